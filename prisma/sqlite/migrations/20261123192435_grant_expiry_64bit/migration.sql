-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Grant" (
    "apiKeyId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "resourceType" TEXT NOT NULL,
    "resourceId" TEXT NOT NULL,
    "principalType" TEXT NOT NULL,
    "principalId" TEXT NOT NULL,
    "accessRole" TEXT NOT NULL,
    "expiresAt" BIGINT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,

    PRIMARY KEY ("apiKeyId", "organizationId", "resourceType", "resourceId", "principalType", "principalId")
);
INSERT INTO "new_Grant" ("accessRole", "apiKeyId", "createdAt", "expiresAt", "organizationId", "principalId", "principalType", "resourceId", "resourceType", "updatedAt") SELECT "accessRole", "apiKeyId", "createdAt", "expiresAt", "organizationId", "principalId", "principalType", "resourceId", "resourceType", "updatedAt" FROM "Grant";
DROP TABLE "Grant";
ALTER TABLE "new_Grant" RENAME TO "Grant";
CREATE INDEX "Grant_apiKeyId_principalType_principalId_organizationId_idx" ON "Grant"("apiKeyId", "principalType", "principalId", "organizationId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
