-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_CommentAnnotation" (
    "apiKeyId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "documentId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "locationId" TEXT,
    "location" TEXT,
    "status" TEXT NOT NULL,
    "priority" TEXT,
    "assignedToUserId" TEXT,
    "assignedTo" TEXT,
    "customList" TEXT NOT NULL DEFAULT '[]',
    "context" TEXT,
    "restricted" BOOLEAN NOT NULL DEFAULT false,
    "fromUserId" TEXT NOT NULL,
    "fromUser" TEXT NOT NULL,
    "createdAt" BIGINT NOT NULL,
    "lastUpdated" BIGINT NOT NULL,
    "type" TEXT NOT NULL DEFAULT 'comment',
    "sourceType" TEXT NOT NULL DEFAULT 'user',
    "agentId" TEXT,
    "agent" TEXT,
    "membersOnly" BOOLEAN NOT NULL DEFAULT false,

    PRIMARY KEY ("apiKeyId", "id")
);
INSERT INTO "new_CommentAnnotation" ("apiKeyId", "assignedTo", "assignedToUserId", "context", "createdAt", "customList", "documentId", "fromUser", "fromUserId", "id", "lastUpdated", "location", "locationId", "organizationId", "priority", "restricted", "status") SELECT "apiKeyId", "assignedTo", "assignedToUserId", "context", "createdAt", "customList", "documentId", "fromUser", "fromUserId", "id", "lastUpdated", "location", "locationId", "organizationId", "priority", "restricted", "status" FROM "CommentAnnotation";
DROP TABLE "CommentAnnotation";
ALTER TABLE "new_CommentAnnotation" RENAME TO "CommentAnnotation";
CREATE INDEX "CommentAnnotation_apiKeyId_organizationId_documentId_agentId_idx" ON "CommentAnnotation"("apiKeyId", "organizationId", "documentId", "agentId");
CREATE INDEX "CommentAnnotation_apiKeyId_organizationId_documentId_createdAt_id_idx" ON "CommentAnnotation"("apiKeyId", "organizationId", "documentId", "createdAt", "id");
CREATE INDEX "CommentAnnotation_apiKeyId_organizationId_createdAt_id_idx" ON "CommentAnnotation"("apiKeyId", "organizationId", "createdAt", "id");
CREATE INDEX "CommentAnnotation_apiKeyId_fromUserId_idx" ON "CommentAnnotation"("apiKeyId", "fromUserId");
CREATE INDEX "CommentAnnotation_apiKeyId_assignedToUserId_idx" ON "CommentAnnotation"("apiKeyId", "assignedToUserId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
