-- CreateTable
CREATE TABLE "AgentQuotaLock" (
    "apiKeyId" TEXT NOT NULL PRIMARY KEY
);
