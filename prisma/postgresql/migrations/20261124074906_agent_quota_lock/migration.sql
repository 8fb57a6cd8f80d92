-- CreateTable
CREATE TABLE "AgentQuotaLock" (
    "apiKeyId" TEXT NOT NULL,

    CONSTRAINT "AgentQuotaLock_pkey" PRIMARY KEY ("apiKeyId")
);
