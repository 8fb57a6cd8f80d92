-- The DateTime columns of the access tables (Organization, Folder, Document,
-- User, Grant, UserGroup, UserGroupMember) become BigInt Unix milliseconds
-- written from the service clock, like every other table since
-- 20261127092630_account_times_ms, keeping every stored value to the
-- millisecond. The conversion is that migration's: Prisma's SQLite adapter
-- stored a DateTime as ISO 8601 text in UTC, a column default wrote
-- "YYYY-MM-DD HH:MM:SS" (UTC), so text becomes the whole seconds of
-- strftime('%s') times 1000 plus the milliseconds of strftime('%f'), exact.
-- An integer stays as it is. Text SQLite cannot read as a time would turn
-- null and fail the NOT NULL columns rather than change silently.

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Document" (
    "apiKeyId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "folderId" TEXT,
    "accessType" TEXT NOT NULL DEFAULT 'organizationPrivate',
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" BIGINT NOT NULL,
    "updatedAt" BIGINT NOT NULL,

    PRIMARY KEY ("apiKeyId", "organizationId", "id")
);
INSERT INTO "new_Document" ("accessType", "apiKeyId", "createdAt", "disabled", "folderId", "id", "name", "organizationId", "updatedAt") SELECT "accessType", "apiKeyId", CASE typeof("createdAt") WHEN 'text' THEN CAST(strftime('%s', "createdAt") AS INTEGER) * 1000 + CAST(substr(strftime('%f', "createdAt"), 4) AS INTEGER) ELSE CAST("createdAt" AS INTEGER) END, "disabled", "folderId", "id", "name", "organizationId", CASE typeof("updatedAt") WHEN 'text' THEN CAST(strftime('%s', "updatedAt") AS INTEGER) * 1000 + CAST(substr(strftime('%f', "updatedAt"), 4) AS INTEGER) ELSE CAST("updatedAt" AS INTEGER) END FROM "Document";
DROP TABLE "Document";
ALTER TABLE "new_Document" RENAME TO "Document";
CREATE INDEX "Document_apiKeyId_organizationId_createdAt_id_idx" ON "Document"("apiKeyId", "organizationId", "createdAt", "id");
CREATE INDEX "Document_apiKeyId_organizationId_folderId_createdAt_id_idx" ON "Document"("apiKeyId", "organizationId", "folderId", "createdAt", "id");
CREATE TABLE "new_Folder" (
    "apiKeyId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "parentId" TEXT,
    "accessType" TEXT NOT NULL DEFAULT 'organizationPrivate',
    "inheritAccessFromParent" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" BIGINT NOT NULL,
    "updatedAt" BIGINT NOT NULL,

    PRIMARY KEY ("apiKeyId", "organizationId", "id")
);
INSERT INTO "new_Folder" ("accessType", "apiKeyId", "createdAt", "id", "inheritAccessFromParent", "name", "organizationId", "parentId", "updatedAt") SELECT "accessType", "apiKeyId", CASE typeof("createdAt") WHEN 'text' THEN CAST(strftime('%s', "createdAt") AS INTEGER) * 1000 + CAST(substr(strftime('%f', "createdAt"), 4) AS INTEGER) ELSE CAST("createdAt" AS INTEGER) END, "id", "inheritAccessFromParent", "name", "organizationId", "parentId", CASE typeof("updatedAt") WHEN 'text' THEN CAST(strftime('%s', "updatedAt") AS INTEGER) * 1000 + CAST(substr(strftime('%f', "updatedAt"), 4) AS INTEGER) ELSE CAST("updatedAt" AS INTEGER) END FROM "Folder";
DROP TABLE "Folder";
ALTER TABLE "new_Folder" RENAME TO "Folder";
CREATE INDEX "Folder_apiKeyId_organizationId_parentId_idx" ON "Folder"("apiKeyId", "organizationId", "parentId");
CREATE TABLE "new_Grant" (
    "apiKeyId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "resourceType" TEXT NOT NULL,
    "resourceId" TEXT NOT NULL,
    "principalType" TEXT NOT NULL,
    "principalId" TEXT NOT NULL,
    "accessRole" TEXT NOT NULL,
    "expiresAt" BIGINT,
    "accessFields" TEXT,
    "createdAt" BIGINT NOT NULL,
    "updatedAt" BIGINT NOT NULL,

    PRIMARY KEY ("apiKeyId", "organizationId", "resourceType", "resourceId", "principalType", "principalId")
);
INSERT INTO "new_Grant" ("accessFields", "accessRole", "apiKeyId", "createdAt", "expiresAt", "organizationId", "principalId", "principalType", "resourceId", "resourceType", "updatedAt") SELECT "accessFields", "accessRole", "apiKeyId", CASE typeof("createdAt") WHEN 'text' THEN CAST(strftime('%s', "createdAt") AS INTEGER) * 1000 + CAST(substr(strftime('%f', "createdAt"), 4) AS INTEGER) ELSE CAST("createdAt" AS INTEGER) END, "expiresAt", "organizationId", "principalId", "principalType", "resourceId", "resourceType", CASE typeof("updatedAt") WHEN 'text' THEN CAST(strftime('%s', "updatedAt") AS INTEGER) * 1000 + CAST(substr(strftime('%f', "updatedAt"), 4) AS INTEGER) ELSE CAST("updatedAt" AS INTEGER) END FROM "Grant";
DROP TABLE "Grant";
ALTER TABLE "new_Grant" RENAME TO "Grant";
CREATE INDEX "Grant_apiKeyId_principalType_principalId_organizationId_idx" ON "Grant"("apiKeyId", "principalType", "principalId", "organizationId");
CREATE INDEX "Grant_members_idx" ON "Grant"("apiKeyId", "organizationId", "resourceType", "resourceId", "principalType", "createdAt", "principalId");
CREATE TABLE "new_Organization" (
    "apiKeyId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" BIGINT NOT NULL,
    "updatedAt" BIGINT NOT NULL,

    PRIMARY KEY ("apiKeyId", "id")
);
INSERT INTO "new_Organization" ("apiKeyId", "createdAt", "disabled", "id", "name", "updatedAt") SELECT "apiKeyId", CASE typeof("createdAt") WHEN 'text' THEN CAST(strftime('%s', "createdAt") AS INTEGER) * 1000 + CAST(substr(strftime('%f', "createdAt"), 4) AS INTEGER) ELSE CAST("createdAt" AS INTEGER) END, "disabled", "id", "name", CASE typeof("updatedAt") WHEN 'text' THEN CAST(strftime('%s', "updatedAt") AS INTEGER) * 1000 + CAST(substr(strftime('%f', "updatedAt"), 4) AS INTEGER) ELSE CAST("updatedAt" AS INTEGER) END FROM "Organization";
DROP TABLE "Organization";
ALTER TABLE "new_Organization" RENAME TO "Organization";
CREATE INDEX "Organization_apiKeyId_createdAt_id_idx" ON "Organization"("apiKeyId", "createdAt", "id");
CREATE TABLE "new_User" (
    "apiKeyId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "initial" TEXT NOT NULL,
    "profile" TEXT NOT NULL DEFAULT '{}',
    "createdAt" BIGINT NOT NULL,
    "updatedAt" BIGINT NOT NULL,

    PRIMARY KEY ("apiKeyId", "id")
);
INSERT INTO "new_User" ("apiKeyId", "createdAt", "email", "id", "initial", "name", "profile", "updatedAt") SELECT "apiKeyId", CASE typeof("createdAt") WHEN 'text' THEN CAST(strftime('%s', "createdAt") AS INTEGER) * 1000 + CAST(substr(strftime('%f', "createdAt"), 4) AS INTEGER) ELSE CAST("createdAt" AS INTEGER) END, "email", "id", "initial", "name", "profile", CASE typeof("updatedAt") WHEN 'text' THEN CAST(strftime('%s', "updatedAt") AS INTEGER) * 1000 + CAST(substr(strftime('%f', "updatedAt"), 4) AS INTEGER) ELSE CAST("updatedAt" AS INTEGER) END FROM "User";
DROP TABLE "User";
ALTER TABLE "new_User" RENAME TO "User";
CREATE TABLE "new_UserGroup" (
    "apiKeyId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "createdAt" BIGINT NOT NULL,

    PRIMARY KEY ("apiKeyId", "organizationId", "id")
);
INSERT INTO "new_UserGroup" ("apiKeyId", "createdAt", "id", "name", "organizationId") SELECT "apiKeyId", CASE typeof("createdAt") WHEN 'text' THEN CAST(strftime('%s', "createdAt") AS INTEGER) * 1000 + CAST(substr(strftime('%f', "createdAt"), 4) AS INTEGER) ELSE CAST("createdAt" AS INTEGER) END, "id", "name", "organizationId" FROM "UserGroup";
DROP TABLE "UserGroup";
ALTER TABLE "new_UserGroup" RENAME TO "UserGroup";
CREATE TABLE "new_UserGroupMember" (
    "apiKeyId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "groupId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "createdAt" BIGINT NOT NULL,

    PRIMARY KEY ("apiKeyId", "organizationId", "groupId", "userId")
);
INSERT INTO "new_UserGroupMember" ("apiKeyId", "createdAt", "groupId", "organizationId", "userId") SELECT "apiKeyId", CASE typeof("createdAt") WHEN 'text' THEN CAST(strftime('%s', "createdAt") AS INTEGER) * 1000 + CAST(substr(strftime('%f', "createdAt"), 4) AS INTEGER) ELSE CAST("createdAt" AS INTEGER) END, "groupId", "organizationId", "userId" FROM "UserGroupMember";
DROP TABLE "UserGroupMember";
ALTER TABLE "new_UserGroupMember" RENAME TO "UserGroupMember";
CREATE INDEX "UserGroupMember_apiKeyId_organizationId_userId_idx" ON "UserGroupMember"("apiKeyId", "organizationId", "userId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
