-- CreateTable
CREATE TABLE "Judgment" (
    "apiKeyId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "decision" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "reviewerId" TEXT NOT NULL,
    "organizationId" TEXT,
    "documentId" TEXT,
    "tags" TEXT NOT NULL,
    "decidedAt" BIGINT NOT NULL,
    "createdAt" BIGINT NOT NULL,
    "postings" INTEGER NOT NULL DEFAULT 0,

    PRIMARY KEY ("apiKeyId", "id")
);

-- CreateTable
CREATE TABLE "JudgmentRevision" (
    "apiKeyId" TEXT NOT NULL PRIMARY KEY,
    "revision" INTEGER NOT NULL,
    "size" INTEGER NOT NULL,
    "postings" INTEGER NOT NULL DEFAULT 0
);

-- CreateTable
CREATE TABLE "Agent" (
    "apiKeyId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL,
    "latestVersion" INTEGER NOT NULL,
    "executionCount" INTEGER NOT NULL DEFAULT 0,
    "lastExecutedAt" BIGINT,
    "createdAt" BIGINT NOT NULL,
    "updatedAt" BIGINT NOT NULL,

    PRIMARY KEY ("apiKeyId", "id")
);

-- CreateTable
CREATE TABLE "AgentVersion" (
    "apiKeyId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "config" TEXT NOT NULL,
    "createdAt" BIGINT NOT NULL,

    PRIMARY KEY ("apiKeyId", "agentId", "version")
);

-- CreateTable
CREATE TABLE "BuiltinAgentState" (
    "apiKeyId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL,
    "updatedAt" BIGINT NOT NULL,

    PRIMARY KEY ("apiKeyId", "agentId")
);

-- CreateTable
CREATE TABLE "AgentQuotaLock" (
    "apiKeyId" TEXT NOT NULL PRIMARY KEY
);

-- CreateTable
CREATE TABLE "AgentGroup" (
    "apiKeyId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "agentIds" TEXT NOT NULL,
    "createdAt" BIGINT NOT NULL,
    "updatedAt" BIGINT NOT NULL,

    PRIMARY KEY ("apiKeyId", "id")
);

-- CreateIndex
CREATE INDEX "Judgment_apiKeyId_decidedAt_id_idx" ON "Judgment"("apiKeyId", "decidedAt", "id");

-- CreateIndex
CREATE INDEX "Judgment_apiKeyId_organizationId_decidedAt_id_idx" ON "Judgment"("apiKeyId", "organizationId", "decidedAt", "id");

-- CreateIndex
CREATE INDEX "Judgment_apiKeyId_organizationId_documentId_decidedAt_id_idx" ON "Judgment"("apiKeyId", "organizationId", "documentId", "decidedAt", "id");

-- CreateIndex
CREATE INDEX "Judgment_apiKeyId_reviewerId_decidedAt_id_idx" ON "Judgment"("apiKeyId", "reviewerId", "decidedAt", "id");

-- CreateIndex
CREATE INDEX "Agent_apiKeyId_createdAt_id_idx" ON "Agent"("apiKeyId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "AgentGroup_apiKeyId_createdAt_id_idx" ON "AgentGroup"("apiKeyId", "createdAt", "id");
