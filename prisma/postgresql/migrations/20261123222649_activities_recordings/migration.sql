-- CreateTable
CREATE TABLE "Activity" (
    "apiKeyId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "documentId" TEXT,
    "featureType" TEXT NOT NULL,
    "actionType" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "actionUser" TEXT NOT NULL,
    "targetEntityId" TEXT NOT NULL,
    "template" TEXT NOT NULL,
    "templateData" TEXT NOT NULL,
    "timestamp" BIGINT NOT NULL,

    CONSTRAINT "Activity_pkey" PRIMARY KEY ("apiKeyId","id")
);

-- CreateTable
CREATE TABLE "Recording" (
    "apiKeyId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "documentId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "fromUser" TEXT NOT NULL,
    "recordingType" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "displayName" TEXT NOT NULL,
    "durationMs" INTEGER NOT NULL,
    "durationDisplay" TEXT NOT NULL,
    "attachments" TEXT NOT NULL,
    "latestVersion" INTEGER NOT NULL,
    "createdAt" BIGINT NOT NULL,

    CONSTRAINT "Recording_pkey" PRIMARY KEY ("apiKeyId","id")
);

-- CreateIndex
CREATE INDEX "Activity_apiKeyId_organizationId_timestamp_id_idx" ON "Activity"("apiKeyId", "organizationId", "timestamp", "id");

-- CreateIndex
CREATE INDEX "Activity_apiKeyId_organizationId_documentId_timestamp_id_idx" ON "Activity"("apiKeyId", "organizationId", "documentId", "timestamp", "id");

-- CreateIndex
CREATE INDEX "Activity_apiKeyId_organizationId_targetEntityId_timestamp_i_idx" ON "Activity"("apiKeyId", "organizationId", "targetEntityId", "timestamp", "id");

-- CreateIndex
CREATE INDEX "Activity_apiKeyId_organizationId_featureType_timestamp_id_idx" ON "Activity"("apiKeyId", "organizationId", "featureType", "timestamp", "id");

-- CreateIndex
CREATE INDEX "Activity_apiKeyId_organizationId_actionType_timestamp_id_idx" ON "Activity"("apiKeyId", "organizationId", "actionType", "timestamp", "id");

-- CreateIndex
CREATE INDEX "Activity_apiKeyId_userId_organizationId_timestamp_id_idx" ON "Activity"("apiKeyId", "userId", "organizationId", "timestamp", "id");

-- CreateIndex
CREATE INDEX "Recording_apiKeyId_organizationId_createdAt_id_idx" ON "Recording"("apiKeyId", "organizationId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Recording_apiKeyId_organizationId_documentId_createdAt_id_idx" ON "Recording"("apiKeyId", "organizationId", "documentId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Recording_apiKeyId_userId_organizationId_createdAt_id_idx" ON "Recording"("apiKeyId", "userId", "organizationId", "createdAt", "id");
