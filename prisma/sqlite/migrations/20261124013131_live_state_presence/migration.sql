-- CreateTable
CREATE TABLE "LiveStateData" (
    "apiKeyId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "documentId" TEXT NOT NULL,
    "liveStateDataId" TEXT NOT NULL,
    "data" TEXT NOT NULL,
    "updatedAt" BIGINT NOT NULL,

    PRIMARY KEY ("apiKeyId", "organizationId", "documentId", "liveStateDataId")
);

-- CreateTable
CREATE TABLE "Presence" (
    "apiKeyId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "documentId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "user" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "clientId" INTEGER NOT NULL,
    "updatedAt" BIGINT NOT NULL,

    PRIMARY KEY ("apiKeyId", "organizationId", "documentId", "userId")
);

-- CreateIndex
CREATE INDEX "Presence_apiKeyId_userId_idx" ON "Presence"("apiKeyId", "userId");
