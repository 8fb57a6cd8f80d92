-- CreateTable
CREATE TABLE "ServerMeta" (
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ServerMeta_pkey" PRIMARY KEY ("key")
);
