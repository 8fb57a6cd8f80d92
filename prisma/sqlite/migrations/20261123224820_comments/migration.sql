-- CreateTable
CREATE TABLE "CommentAnnotation" (
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

    PRIMARY KEY ("apiKeyId", "id")
);

-- CreateTable
CREATE TABLE "Comment" (
    "apiKeyId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "documentId" TEXT NOT NULL,
    "annotationId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "orderKey" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "html" TEXT,
    "fromUserId" TEXT NOT NULL,
    "fromUser" TEXT NOT NULL,
    "taggedUsers" TEXT NOT NULL DEFAULT '[]',
    "createdAt" BIGINT NOT NULL,
    "lastUpdated" BIGINT NOT NULL,

    PRIMARY KEY ("apiKeyId", "annotationId", "id"),
    CONSTRAINT "Comment_apiKeyId_annotationId_fkey" FOREIGN KEY ("apiKeyId", "annotationId") REFERENCES "CommentAnnotation" ("apiKeyId", "id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "CommentMention" (
    "apiKeyId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "documentId" TEXT NOT NULL,
    "annotationId" TEXT NOT NULL,
    "commentId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,

    PRIMARY KEY ("apiKeyId", "annotationId", "commentId", "userId"),
    CONSTRAINT "CommentMention_apiKeyId_annotationId_commentId_fkey" FOREIGN KEY ("apiKeyId", "annotationId", "commentId") REFERENCES "Comment" ("apiKeyId", "annotationId", "id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "CommentReaction" (
    "apiKeyId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "documentId" TEXT NOT NULL,
    "annotationId" TEXT NOT NULL,
    "commentId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "icon" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "fromUser" TEXT NOT NULL,
    "createdAt" BIGINT NOT NULL,

    PRIMARY KEY ("apiKeyId", "id"),
    CONSTRAINT "CommentReaction_apiKeyId_annotationId_commentId_fkey" FOREIGN KEY ("apiKeyId", "annotationId", "commentId") REFERENCES "Comment" ("apiKeyId", "annotationId", "id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "CommentReadMark" (
    "apiKeyId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "documentId" TEXT NOT NULL,
    "annotationId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "readAt" BIGINT NOT NULL,

    PRIMARY KEY ("apiKeyId", "annotationId", "userId"),
    CONSTRAINT "CommentReadMark_apiKeyId_annotationId_fkey" FOREIGN KEY ("apiKeyId", "annotationId") REFERENCES "CommentAnnotation" ("apiKeyId", "id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "CommentAnnotation_apiKeyId_organizationId_documentId_createdAt_id_idx" ON "CommentAnnotation"("apiKeyId", "organizationId", "documentId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "CommentAnnotation_apiKeyId_organizationId_createdAt_id_idx" ON "CommentAnnotation"("apiKeyId", "organizationId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "CommentAnnotation_apiKeyId_fromUserId_idx" ON "CommentAnnotation"("apiKeyId", "fromUserId");

-- CreateIndex
CREATE INDEX "CommentAnnotation_apiKeyId_assignedToUserId_idx" ON "CommentAnnotation"("apiKeyId", "assignedToUserId");

-- CreateIndex
CREATE INDEX "Comment_apiKeyId_annotationId_orderKey_idx" ON "Comment"("apiKeyId", "annotationId", "orderKey");

-- CreateIndex
CREATE INDEX "Comment_apiKeyId_organizationId_createdAt_orderKey_idx" ON "Comment"("apiKeyId", "organizationId", "createdAt", "orderKey");

-- CreateIndex
CREATE INDEX "Comment_apiKeyId_fromUserId_idx" ON "Comment"("apiKeyId", "fromUserId");

-- CreateIndex
CREATE UNIQUE INDEX "Comment_apiKeyId_orderKey_key" ON "Comment"("apiKeyId", "orderKey");

-- CreateIndex
CREATE INDEX "CommentMention_apiKeyId_userId_idx" ON "CommentMention"("apiKeyId", "userId");

-- CreateIndex
CREATE INDEX "CommentReaction_apiKeyId_annotationId_commentId_createdAt_id_idx" ON "CommentReaction"("apiKeyId", "annotationId", "commentId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "CommentReaction_apiKeyId_organizationId_userId_createdAt_id_idx" ON "CommentReaction"("apiKeyId", "organizationId", "userId", "createdAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "CommentReaction_apiKeyId_annotationId_commentId_userId_icon_key" ON "CommentReaction"("apiKeyId", "annotationId", "commentId", "userId", "icon");

-- CreateIndex
CREATE INDEX "CommentReadMark_apiKeyId_userId_idx" ON "CommentReadMark"("apiKeyId", "userId");
