-- RedefineIndex
DROP INDEX "Notification_apiKeyId_actionUserId_organizationId_timestamp_id_idx";
CREATE INDEX "Notification_action_user_idx" ON "Notification"("apiKeyId", "actionUserId", "organizationId", "timestamp", "id");

-- RedefineIndex
DROP INDEX "Notification_apiKeyId_organizationId_documentId_locationId_timestamp_id_idx";
CREATE INDEX "Notification_document_location_idx" ON "Notification"("apiKeyId", "organizationId", "documentId", "locationId", "timestamp", "id");

-- RedefineIndex
DROP INDEX "Notification_apiKeyId_organizationId_documentId_timestamp_id_idx";
CREATE INDEX "Notification_document_idx" ON "Notification"("apiKeyId", "organizationId", "documentId", "timestamp", "id");

-- RedefineIndex
DROP INDEX "NotificationRecipient_apiKeyId_organizationId_userId_documentId_locationId_timestamp_notificationId_idx";
CREATE INDEX "NotificationRecipient_user_document_location_idx" ON "NotificationRecipient"("apiKeyId", "organizationId", "userId", "documentId", "locationId", "timestamp", "notificationId");

-- RedefineIndex
DROP INDEX "NotificationRecipient_apiKeyId_organizationId_userId_locationId_timestamp_notificationId_idx";
CREATE INDEX "NotificationRecipient_user_location_idx" ON "NotificationRecipient"("apiKeyId", "organizationId", "userId", "locationId", "timestamp", "notificationId");

-- RedefineIndex
DROP INDEX "NotificationRecipient_apiKeyId_organizationId_userId_documentId_timestamp_notificationId_idx";
CREATE INDEX "NotificationRecipient_user_document_idx" ON "NotificationRecipient"("apiKeyId", "organizationId", "userId", "documentId", "timestamp", "notificationId");

-- RedefineIndex
DROP INDEX "NotificationRecipient_apiKeyId_userId_organizationId_timestamp_notificationId_idx";
CREATE INDEX "NotificationRecipient_user_idx" ON "NotificationRecipient"("apiKeyId", "userId", "organizationId", "timestamp", "notificationId");
