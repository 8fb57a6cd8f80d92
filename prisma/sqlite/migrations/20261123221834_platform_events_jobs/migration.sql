-- CreateTable
CREATE TABLE "DomainEvent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "apiKeyId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "organizationId" TEXT,
    "documentId" TEXT,
    "actorUserId" TEXT,
    "body" TEXT NOT NULL,
    "occurredAt" BIGINT NOT NULL
);

-- CreateTable
CREATE TABLE "Job" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "kind" TEXT NOT NULL,
    "apiKeyId" TEXT,
    "key" TEXT,
    "payload" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "runAt" BIGINT NOT NULL,
    "leaseOwner" TEXT,
    "leaseUntil" BIGINT,
    "lastError" TEXT,
    "result" TEXT,
    "createdAt" BIGINT NOT NULL,
    "updatedAt" BIGINT NOT NULL,
    "finishedAt" BIGINT
);

-- CreateIndex
CREATE INDEX "DomainEvent_apiKeyId_occurredAt_id_idx" ON "DomainEvent"("apiKeyId", "occurredAt", "id");

-- CreateIndex
CREATE INDEX "DomainEvent_apiKeyId_organizationId_documentId_idx" ON "DomainEvent"("apiKeyId", "organizationId", "documentId");

-- CreateIndex
CREATE UNIQUE INDEX "Job_key_key" ON "Job"("key");

-- CreateIndex
CREATE INDEX "Job_state_runAt_idx" ON "Job"("state", "runAt");

-- CreateIndex
CREATE INDEX "Job_apiKeyId_kind_createdAt_idx" ON "Job"("apiKeyId", "kind", "createdAt");
