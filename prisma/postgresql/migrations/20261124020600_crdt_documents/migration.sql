-- CreateTable
CREATE TABLE "CrdtDocument" (
    "apiKeyId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "documentId" TEXT NOT NULL,
    "editorId" TEXT NOT NULL,
    "state" BYTEA NOT NULL,
    "restBase" BYTEA,
    "restClientId" BIGINT,
    "type" TEXT,
    "contentKey" TEXT,
    "updatedByUserId" TEXT,
    "createdAt" BIGINT NOT NULL,
    "updatedAt" BIGINT NOT NULL,

    CONSTRAINT "CrdtDocument_pkey" PRIMARY KEY ("apiKeyId","organizationId","documentId","editorId")
);

-- CreateIndex
CREATE INDEX "CrdtDocument_apiKeyId_updatedByUserId_idx" ON "CrdtDocument"("apiKeyId", "updatedByUserId");
