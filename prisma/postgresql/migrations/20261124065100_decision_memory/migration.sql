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

    CONSTRAINT "Judgment_pkey" PRIMARY KEY ("apiKeyId","id")
);

-- CreateTable
CREATE TABLE "JudgmentRevision" (
    "apiKeyId" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "size" INTEGER NOT NULL,

    CONSTRAINT "JudgmentRevision_pkey" PRIMARY KEY ("apiKeyId")
);

-- CreateIndex
CREATE INDEX "Judgment_apiKeyId_decidedAt_id_idx" ON "Judgment"("apiKeyId", "decidedAt", "id");

-- CreateIndex
CREATE INDEX "Judgment_apiKeyId_organizationId_decidedAt_id_idx" ON "Judgment"("apiKeyId", "organizationId", "decidedAt", "id");

-- CreateIndex
CREATE INDEX "Judgment_apiKeyId_organizationId_documentId_decidedAt_id_idx" ON "Judgment"("apiKeyId", "organizationId", "documentId", "decidedAt", "id");

-- CreateIndex
CREATE INDEX "Judgment_apiKeyId_reviewerId_decidedAt_id_idx" ON "Judgment"("apiKeyId", "reviewerId", "decidedAt", "id");
