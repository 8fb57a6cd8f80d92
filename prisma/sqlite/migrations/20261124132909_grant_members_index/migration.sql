-- CreateIndex
CREATE INDEX "Grant_members_idx" ON "Grant"("apiKeyId", "organizationId", "resourceType", "resourceId", "principalType", "createdAt", "principalId");
