-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Judgment" (
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
    "postings" INTEGER NOT NULL DEFAULT 0,

    PRIMARY KEY ("apiKeyId", "id")
);
INSERT INTO "new_Judgment" ("apiKeyId", "createdAt", "decidedAt", "decision", "documentId", "id", "organizationId", "reason", "reviewerId", "subject", "tags") SELECT "apiKeyId", "createdAt", "decidedAt", "decision", "documentId", "id", "organizationId", "reason", "reviewerId", "subject", "tags" FROM "Judgment";
DROP TABLE "Judgment";
ALTER TABLE "new_Judgment" RENAME TO "Judgment";
CREATE INDEX "Judgment_apiKeyId_decidedAt_id_idx" ON "Judgment"("apiKeyId", "decidedAt", "id");
CREATE INDEX "Judgment_apiKeyId_organizationId_decidedAt_id_idx" ON "Judgment"("apiKeyId", "organizationId", "decidedAt", "id");
CREATE INDEX "Judgment_apiKeyId_organizationId_documentId_decidedAt_id_idx" ON "Judgment"("apiKeyId", "organizationId", "documentId", "decidedAt", "id");
CREATE INDEX "Judgment_apiKeyId_reviewerId_decidedAt_id_idx" ON "Judgment"("apiKeyId", "reviewerId", "decidedAt", "id");
CREATE TABLE "new_JudgmentRevision" (
    "apiKeyId" TEXT NOT NULL PRIMARY KEY,
    "revision" INTEGER NOT NULL,
    "size" INTEGER NOT NULL,
    "postings" INTEGER NOT NULL DEFAULT 0
);
INSERT INTO "new_JudgmentRevision" ("apiKeyId", "revision", "size") SELECT "apiKeyId", "revision", "size" FROM "JudgmentRevision";
DROP TABLE "JudgmentRevision";
ALTER TABLE "new_JudgmentRevision" RENAME TO "JudgmentRevision";
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
