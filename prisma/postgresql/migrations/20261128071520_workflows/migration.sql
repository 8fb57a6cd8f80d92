-- CreateTable
CREATE TABLE "WorkflowDefinition" (
    "apiKeyId" TEXT NOT NULL,
    "definitionId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "scopeLevel" TEXT NOT NULL,
    "organizationId" TEXT,
    "documentId" TEXT,
    "createdAt" BIGINT NOT NULL,
    "updatedAt" BIGINT NOT NULL,

    CONSTRAINT "WorkflowDefinition_pkey" PRIMARY KEY ("apiKeyId","definitionId")
);

-- CreateTable
CREATE TABLE "WorkflowDefinitionVersion" (
    "apiKeyId" TEXT NOT NULL,
    "definitionId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "body" TEXT NOT NULL,
    "createdAt" BIGINT NOT NULL,

    CONSTRAINT "WorkflowDefinitionVersion_pkey" PRIMARY KEY ("apiKeyId","definitionId","version")
);

-- CreateTable
CREATE TABLE "WorkflowExecution" (
    "apiKeyId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "definitionId" TEXT NOT NULL,
    "definitionVersion" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "correlationId" TEXT NOT NULL,
    "idempotencyKey" TEXT,
    "organizationId" TEXT,
    "documentId" TEXT,
    "triggerContext" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "nextSeq" INTEGER NOT NULL,
    "stepCount" INTEGER NOT NULL,
    "failureReason" TEXT,
    "startedAt" BIGINT NOT NULL,
    "completedAt" BIGINT,
    "cancelledAt" BIGINT,
    "updatedAt" BIGINT NOT NULL,

    CONSTRAINT "WorkflowExecution_pkey" PRIMARY KEY ("apiKeyId","id")
);

-- CreateTable
CREATE TABLE "WorkflowStep" (
    "apiKeyId" TEXT NOT NULL,
    "executionId" TEXT NOT NULL,
    "stepId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "nodeId" TEXT NOT NULL,
    "nodeType" TEXT NOT NULL,
    "groupId" TEXT,
    "iteration" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL,
    "input" TEXT NOT NULL,
    "output" TEXT NOT NULL,
    "decision" TEXT,
    "error" TEXT,
    "agentExecutionId" TEXT,
    "createdAt" BIGINT NOT NULL,
    "startedAt" BIGINT,
    "completedAt" BIGINT,

    CONSTRAINT "WorkflowStep_pkey" PRIMARY KEY ("apiKeyId","executionId","stepId")
);

-- CreateTable
CREATE TABLE "WorkflowReviewerDecision" (
    "apiKeyId" TEXT NOT NULL,
    "executionId" TEXT NOT NULL,
    "stepId" TEXT NOT NULL,
    "reviewerId" TEXT NOT NULL,
    "decision" TEXT NOT NULL,
    "reason" TEXT,
    "decidedAt" BIGINT NOT NULL,

    CONSTRAINT "WorkflowReviewerDecision_pkey" PRIMARY KEY ("apiKeyId","executionId","stepId","reviewerId")
);

-- CreateTable
CREATE TABLE "WorkflowEvent" (
    "apiKeyId" TEXT NOT NULL,
    "executionId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "eventId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "stepId" TEXT,
    "timestamp" BIGINT NOT NULL,
    "data" TEXT NOT NULL,

    CONSTRAINT "WorkflowEvent_pkey" PRIMARY KEY ("apiKeyId","executionId","seq")
);

-- CreateIndex
CREATE INDEX "WorkflowDefinition_apiKeyId_status_updatedAt_definitionId_idx" ON "WorkflowDefinition"("apiKeyId", "status", "updatedAt", "definitionId");

-- CreateIndex
CREATE INDEX "WorkflowExecution_apiKeyId_startedAt_id_idx" ON "WorkflowExecution"("apiKeyId", "startedAt", "id");

-- CreateIndex
CREATE INDEX "WorkflowExecution_apiKeyId_definitionId_startedAt_id_idx" ON "WorkflowExecution"("apiKeyId", "definitionId", "startedAt", "id");

-- CreateIndex
CREATE INDEX "WorkflowExecution_apiKeyId_status_startedAt_id_idx" ON "WorkflowExecution"("apiKeyId", "status", "startedAt", "id");

-- CreateIndex
CREATE INDEX "WorkflowExecution_apiKeyId_organizationId_documentId_idx" ON "WorkflowExecution"("apiKeyId", "organizationId", "documentId");

-- CreateIndex
CREATE UNIQUE INDEX "WorkflowExecution_apiKeyId_idempotencyKey_key" ON "WorkflowExecution"("apiKeyId", "idempotencyKey");

-- CreateIndex
CREATE INDEX "WorkflowStep_apiKeyId_executionId_seq_idx" ON "WorkflowStep"("apiKeyId", "executionId", "seq");

-- CreateIndex
CREATE INDEX "WorkflowStep_apiKeyId_agentExecutionId_idx" ON "WorkflowStep"("apiKeyId", "agentExecutionId");
