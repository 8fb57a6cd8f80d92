-- AlterTable
ALTER TABLE "CommentAnnotation" ADD COLUMN     "agent" TEXT,
ADD COLUMN     "agentId" TEXT,
ADD COLUMN     "membersOnly" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "sourceType" TEXT NOT NULL DEFAULT 'user',
ADD COLUMN     "type" TEXT NOT NULL DEFAULT 'comment';

-- CreateIndex
CREATE INDEX "CommentAnnotation_apiKeyId_organizationId_documentId_agentI_idx" ON "CommentAnnotation"("apiKeyId", "organizationId", "documentId", "agentId");
