-- AlterTable
ALTER TABLE "ApiKey" ADD COLUMN     "keySealed" TEXT;

-- CreateTable
CREATE TABLE "WebhookEndpoint" (
    "id" TEXT NOT NULL,
    "apiKeyId" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "filterTypes" TEXT,
    "channels" TEXT,
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "rateLimit" INTEGER,
    "uid" TEXT,
    "metadata" TEXT NOT NULL DEFAULT '{}',
    "secretSealed" TEXT NOT NULL,
    "previousSecretSealed" TEXT,
    "previousSecretUntil" BIGINT,
    "rateWindow" BIGINT NOT NULL DEFAULT 0,
    "rateCount" INTEGER NOT NULL DEFAULT 0,
    "createdAt" BIGINT NOT NULL,
    "updatedAt" BIGINT NOT NULL,

    CONSTRAINT "WebhookEndpoint_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WebhookMessage" (
    "id" TEXT NOT NULL,
    "apiKeyId" TEXT NOT NULL,
    "eventType" TEXT NOT NULL,
    "eventId" TEXT,
    "organizationId" TEXT,
    "documentId" TEXT,
    "body" TEXT NOT NULL,
    "createdAt" BIGINT NOT NULL,

    CONSTRAINT "WebhookMessage_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WebhookDelivery" (
    "id" TEXT NOT NULL,
    "apiKeyId" TEXT NOT NULL,
    "messageId" TEXT NOT NULL,
    "endpointId" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "manual" BOOLEAN NOT NULL DEFAULT false,
    "generation" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" BIGINT,
    "leaseOwner" TEXT,
    "leaseUntil" BIGINT,
    "createdAt" BIGINT NOT NULL,
    "updatedAt" BIGINT NOT NULL,

    CONSTRAINT "WebhookDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WebhookAttempt" (
    "id" TEXT NOT NULL,
    "apiKeyId" TEXT NOT NULL,
    "deliveryId" TEXT NOT NULL,
    "endpointId" TEXT NOT NULL,
    "messageId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "responseStatusCode" INTEGER,
    "response" TEXT NOT NULL,
    "durationMs" INTEGER NOT NULL,
    "trigger" TEXT NOT NULL,
    "nextAttemptAt" BIGINT,
    "createdAt" BIGINT NOT NULL,

    CONSTRAINT "WebhookAttempt_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "WebhookEndpoint_apiKeyId_createdAt_id_idx" ON "WebhookEndpoint"("apiKeyId", "createdAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookEndpoint_apiKeyId_uid_key" ON "WebhookEndpoint"("apiKeyId", "uid");

-- CreateIndex
CREATE INDEX "WebhookMessage_apiKeyId_organizationId_documentId_idx" ON "WebhookMessage"("apiKeyId", "organizationId", "documentId");

-- CreateIndex
CREATE INDEX "WebhookMessage_createdAt_idx" ON "WebhookMessage"("createdAt");

-- CreateIndex
CREATE INDEX "WebhookDelivery_state_nextAttemptAt_id_idx" ON "WebhookDelivery"("state", "nextAttemptAt", "id");

-- CreateIndex
CREATE INDEX "WebhookDelivery_endpointId_createdAt_id_idx" ON "WebhookDelivery"("endpointId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "WebhookDelivery_endpointId_state_createdAt_id_idx" ON "WebhookDelivery"("endpointId", "state", "createdAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookDelivery_endpointId_messageId_key" ON "WebhookDelivery"("endpointId", "messageId");

-- CreateIndex
CREATE INDEX "WebhookAttempt_endpointId_createdAt_id_idx" ON "WebhookAttempt"("endpointId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "WebhookAttempt_endpointId_messageId_createdAt_id_idx" ON "WebhookAttempt"("endpointId", "messageId", "createdAt", "id");

-- AddForeignKey
ALTER TABLE "WebhookDelivery" ADD CONSTRAINT "WebhookDelivery_messageId_fkey" FOREIGN KEY ("messageId") REFERENCES "WebhookMessage"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WebhookDelivery" ADD CONSTRAINT "WebhookDelivery_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "WebhookEndpoint"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WebhookAttempt" ADD CONSTRAINT "WebhookAttempt_deliveryId_fkey" FOREIGN KEY ("deliveryId") REFERENCES "WebhookDelivery"("id") ON DELETE CASCADE ON UPDATE CASCADE;
