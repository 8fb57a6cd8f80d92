-- CreateTable
CREATE TABLE "AgentExecution" (
    "apiKeyId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "agentName" TEXT NOT NULL,
    "agentVersion" INTEGER,
    "organizationId" TEXT NOT NULL,
    "documentId" TEXT NOT NULL,
    "seedUrl" TEXT NOT NULL,
    "crossPageExecute" BOOLEAN NOT NULL,
    "maxUrls" INTEGER NOT NULL,
    "deviceType" TEXT NOT NULL,
    "visibility" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "runningKey" TEXT,
    "startedAt" BIGINT NOT NULL,
    "startedMonth" INTEGER NOT NULL,
    "completedAt" BIGINT,
    "deadlineAt" BIGINT NOT NULL,
    "error" TEXT,
    "trigger" TEXT NOT NULL,
    "workflowExecutionId" TEXT,
    "previousExecutionId" TEXT,
    "ranBy" TEXT,
    "ranByUserId" TEXT,
    "userContext" TEXT,
    "aiConfig" TEXT,
    "summary" TEXT NOT NULL,
    "llmModel" TEXT,
    "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0,
    "updatedAt" BIGINT NOT NULL,

    CONSTRAINT "AgentExecution_pkey" PRIMARY KEY ("apiKeyId","id")
);

-- CreateTable
CREATE TABLE "AgentExecutionResult" (
    "apiKeyId" TEXT NOT NULL,
    "executionId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "findings" TEXT NOT NULL,
    "error" TEXT,
    "findingCount" INTEGER NOT NULL,
    "processedAt" BIGINT NOT NULL,

    CONSTRAINT "AgentExecutionResult_pkey" PRIMARY KEY ("apiKeyId","executionId","id")
);

-- CreateIndex
CREATE INDEX "AgentExecution_apiKeyId_agentId_startedAt_id_idx" ON "AgentExecution"("apiKeyId", "agentId", "startedAt", "id");

-- CreateIndex
CREATE INDEX "AgentExecution_apiKeyId_organizationId_documentId_startedAt_idx" ON "AgentExecution"("apiKeyId", "organizationId", "documentId", "startedAt", "id");

-- CreateIndex
CREATE INDEX "AgentExecution_apiKeyId_status_idx" ON "AgentExecution"("apiKeyId", "status");

-- CreateIndex
CREATE INDEX "AgentExecution_apiKeyId_ranByUserId_idx" ON "AgentExecution"("apiKeyId", "ranByUserId");

-- CreateIndex
CREATE INDEX "AgentExecution_apiKeyId_agentId_startedMonth_idx" ON "AgentExecution"("apiKeyId", "agentId", "startedMonth");

-- CreateIndex
CREATE UNIQUE INDEX "AgentExecution_apiKeyId_runningKey_key" ON "AgentExecution"("apiKeyId", "runningKey");

-- CreateIndex
CREATE UNIQUE INDEX "AgentExecutionResult_apiKeyId_executionId_url_key" ON "AgentExecutionResult"("apiKeyId", "executionId", "url");
