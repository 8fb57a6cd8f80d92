-- CreateTable
CREATE TABLE "Notification" (
    "apiKeyId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "documentId" TEXT,
    "locationId" TEXT,
    "source" TEXT NOT NULL,
    "sourceData" TEXT NOT NULL,
    "eventId" TEXT,
    "actionUserId" TEXT,
    "actionUser" TEXT,
    "headlineTemplate" TEXT NOT NULL,
    "headlineData" TEXT NOT NULL,
    "bodyMessage" TEXT,
    "timestamp" BIGINT NOT NULL,

    PRIMARY KEY ("apiKeyId", "id")
);

-- CreateTable
CREATE TABLE "NotificationRecipient" (
    "apiKeyId" TEXT NOT NULL,
    "notificationId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "userKey" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "documentId" TEXT,
    "locationId" TEXT,
    "timestamp" BIGINT NOT NULL,
    "readAt" BIGINT,

    PRIMARY KEY ("apiKeyId", "notificationId", "userId"),
    CONSTRAINT "NotificationRecipient_apiKeyId_notificationId_fkey" FOREIGN KEY ("apiKeyId", "notificationId") REFERENCES "Notification" ("apiKeyId", "id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "NotificationConfig" (
    "apiKeyId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "documentId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "inbox" TEXT,
    "email" TEXT,
    "slack" TEXT,
    "updatedAt" BIGINT NOT NULL,

    PRIMARY KEY ("apiKeyId", "organizationId", "documentId", "userId")
);

-- CreateTable
CREATE TABLE "NotificationDefaultConfig" (
    "apiKeyId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "inbox" TEXT,
    "email" TEXT,
    "slack" TEXT,
    "updatedAt" BIGINT NOT NULL,

    PRIMARY KEY ("apiKeyId", "organizationId", "userId")
);

-- CreateIndex
CREATE INDEX "Notification_document_idx" ON "Notification"("apiKeyId", "organizationId", "documentId", "timestamp", "id");

-- CreateIndex
CREATE INDEX "Notification_document_location_idx" ON "Notification"("apiKeyId", "organizationId", "documentId", "locationId", "timestamp", "id");

-- CreateIndex
CREATE INDEX "Notification_action_user_idx" ON "Notification"("apiKeyId", "actionUserId", "organizationId", "timestamp", "id");

-- CreateIndex
CREATE INDEX "NotificationRecipient_user_idx" ON "NotificationRecipient"("apiKeyId", "userId", "organizationId", "timestamp", "notificationId");

-- CreateIndex
CREATE INDEX "NotificationRecipient_user_document_idx" ON "NotificationRecipient"("apiKeyId", "organizationId", "userId", "documentId", "timestamp", "notificationId");

-- CreateIndex
CREATE INDEX "NotificationRecipient_user_location_idx" ON "NotificationRecipient"("apiKeyId", "organizationId", "userId", "locationId", "timestamp", "notificationId");

-- CreateIndex
CREATE INDEX "NotificationRecipient_user_document_location_idx" ON "NotificationRecipient"("apiKeyId", "organizationId", "userId", "documentId", "locationId", "timestamp", "notificationId");

-- CreateIndex
CREATE INDEX "NotificationConfig_apiKeyId_userId_idx" ON "NotificationConfig"("apiKeyId", "userId");

-- CreateIndex
CREATE INDEX "NotificationDefaultConfig_apiKeyId_userId_idx" ON "NotificationDefaultConfig"("apiKeyId", "userId");
