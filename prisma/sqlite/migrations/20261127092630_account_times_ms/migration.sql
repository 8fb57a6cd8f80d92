-- The DateTime columns of the account and installation tables become BigInt
-- Unix milliseconds (prisma/models.prisma), keeping every stored value to the
-- millisecond. Prisma's SQLite adapter stores a DateTime as ISO 8601 text in
-- UTC ("2026-02-02T03:04:05.678+00:00"), which the generated rebuild would
-- have copied into the BIGINT columns as text. A column default wrote
-- "YYYY-MM-DD HH:MM:SS" (UTC), and the adapter reads an integer as Unix ms.
-- So text becomes the whole seconds of strftime('%s') times 1000 plus the
-- milliseconds of strftime('%f'): exact, as SQLite computes times in integer
-- milliseconds. An integer stays as it is, null stays null. Text SQLite cannot
-- read as a time would turn null and fail the NOT NULL columns rather than
-- change silently.

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_AiProviderKey" (
    "apiKeyId" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "keySealed" TEXT NOT NULL,
    "updatedAt" BIGINT NOT NULL,

    PRIMARY KEY ("apiKeyId", "provider"),
    CONSTRAINT "AiProviderKey_apiKeyId_fkey" FOREIGN KEY ("apiKeyId") REFERENCES "ApiKey" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_AiProviderKey" ("apiKeyId", "keySealed", "provider", "updatedAt") SELECT "apiKeyId", "keySealed", "provider", CASE typeof("updatedAt") WHEN 'text' THEN CAST(strftime('%s', "updatedAt") AS INTEGER) * 1000 + CAST(substr(strftime('%f', "updatedAt"), 4) AS INTEGER) ELSE CAST("updatedAt" AS INTEGER) END FROM "AiProviderKey";
DROP TABLE "AiProviderKey";
ALTER TABLE "new_AiProviderKey" RENAME TO "AiProviderKey";
CREATE TABLE "new_ApiKey" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL,
    "keyDigest" TEXT NOT NULL,
    "keyHint" TEXT NOT NULL,
    "keySealed" TEXT,
    "name" TEXT NOT NULL,
    "expiredAt" BIGINT,
    "createdAt" BIGINT NOT NULL,
    CONSTRAINT "ApiKey_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_ApiKey" ("createdAt", "expiredAt", "id", "keyDigest", "keyHint", "keySealed", "name", "workspaceId") SELECT CASE typeof("createdAt") WHEN 'text' THEN CAST(strftime('%s', "createdAt") AS INTEGER) * 1000 + CAST(substr(strftime('%f', "createdAt"), 4) AS INTEGER) ELSE CAST("createdAt" AS INTEGER) END, CASE typeof("expiredAt") WHEN 'text' THEN CAST(strftime('%s', "expiredAt") AS INTEGER) * 1000 + CAST(substr(strftime('%f', "expiredAt"), 4) AS INTEGER) ELSE CAST("expiredAt" AS INTEGER) END, "id", "keyDigest", "keyHint", "keySealed", "name", "workspaceId" FROM "ApiKey";
DROP TABLE "ApiKey";
ALTER TABLE "new_ApiKey" RENAME TO "ApiKey";
CREATE UNIQUE INDEX "ApiKey_keyDigest_key" ON "ApiKey"("keyDigest");
CREATE INDEX "ApiKey_workspaceId_idx" ON "ApiKey"("workspaceId");
CREATE TABLE "new_AuthToken" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "apiKeyId" TEXT NOT NULL,
    "tokenDigest" TEXT NOT NULL,
    "tokenSealed" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "createdAt" BIGINT NOT NULL,
    CONSTRAINT "AuthToken_apiKeyId_fkey" FOREIGN KEY ("apiKeyId") REFERENCES "ApiKey" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_AuthToken" ("apiKeyId", "createdAt", "id", "name", "tokenDigest", "tokenSealed") SELECT "apiKeyId", CASE typeof("createdAt") WHEN 'text' THEN CAST(strftime('%s', "createdAt") AS INTEGER) * 1000 + CAST(substr(strftime('%f', "createdAt"), 4) AS INTEGER) ELSE CAST("createdAt" AS INTEGER) END, "id", "name", "tokenDigest", "tokenSealed" FROM "AuthToken";
DROP TABLE "AuthToken";
ALTER TABLE "new_AuthToken" RENAME TO "AuthToken";
CREATE UNIQUE INDEX "AuthToken_tokenDigest_key" ON "AuthToken"("tokenDigest");
CREATE INDEX "AuthToken_apiKeyId_createdAt_idx" ON "AuthToken"("apiKeyId", "createdAt");
CREATE TABLE "new_FeatureToggle" (
    "apiKeyId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL,
    "updatedAt" BIGINT NOT NULL,

    PRIMARY KEY ("apiKeyId", "name"),
    CONSTRAINT "FeatureToggle_apiKeyId_fkey" FOREIGN KEY ("apiKeyId") REFERENCES "ApiKey" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_FeatureToggle" ("apiKeyId", "enabled", "name", "updatedAt") SELECT "apiKeyId", "enabled", "name", CASE typeof("updatedAt") WHEN 'text' THEN CAST(strftime('%s', "updatedAt") AS INTEGER) * 1000 + CAST(substr(strftime('%f', "updatedAt"), 4) AS INTEGER) ELSE CAST("updatedAt" AS INTEGER) END FROM "FeatureToggle";
DROP TABLE "FeatureToggle";
ALTER TABLE "new_FeatureToggle" RENAME TO "FeatureToggle";
CREATE TABLE "new_ServerMeta" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "value" TEXT NOT NULL,
    "createdAt" BIGINT NOT NULL
);
INSERT INTO "new_ServerMeta" ("createdAt", "key", "value") SELECT CASE typeof("createdAt") WHEN 'text' THEN CAST(strftime('%s', "createdAt") AS INTEGER) * 1000 + CAST(substr(strftime('%f', "createdAt"), 4) AS INTEGER) ELSE CAST("createdAt" AS INTEGER) END, "key", "value" FROM "ServerMeta";
DROP TABLE "ServerMeta";
ALTER TABLE "new_ServerMeta" RENAME TO "ServerMeta";
CREATE TABLE "new_Setting" (
    "apiKeyId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "updatedAt" BIGINT NOT NULL,

    PRIMARY KEY ("apiKeyId", "kind"),
    CONSTRAINT "Setting_apiKeyId_fkey" FOREIGN KEY ("apiKeyId") REFERENCES "ApiKey" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Setting" ("apiKeyId", "kind", "updatedAt", "value") SELECT "apiKeyId", "kind", CASE typeof("updatedAt") WHEN 'text' THEN CAST(strftime('%s', "updatedAt") AS INTEGER) * 1000 + CAST(substr(strftime('%f', "updatedAt"), 4) AS INTEGER) ELSE CAST("updatedAt" AS INTEGER) END, "value" FROM "Setting";
DROP TABLE "Setting";
ALTER TABLE "new_Setting" RENAME TO "Setting";
CREATE TABLE "new_SigningKey" (
    "kid" TEXT NOT NULL PRIMARY KEY,
    "apiKeyId" TEXT NOT NULL,
    "publicJwk" TEXT NOT NULL,
    "privateJwkSealed" TEXT NOT NULL,
    "createdAt" BIGINT NOT NULL,
    "retiredAt" BIGINT
);
INSERT INTO "new_SigningKey" ("apiKeyId", "createdAt", "kid", "privateJwkSealed", "publicJwk", "retiredAt") SELECT "apiKeyId", CASE typeof("createdAt") WHEN 'text' THEN CAST(strftime('%s', "createdAt") AS INTEGER) * 1000 + CAST(substr(strftime('%f', "createdAt"), 4) AS INTEGER) ELSE CAST("createdAt" AS INTEGER) END, "kid", "privateJwkSealed", "publicJwk", CASE typeof("retiredAt") WHEN 'text' THEN CAST(strftime('%s', "retiredAt") AS INTEGER) * 1000 + CAST(substr(strftime('%f', "retiredAt"), 4) AS INTEGER) ELSE CAST("retiredAt" AS INTEGER) END FROM "SigningKey";
DROP TABLE "SigningKey";
ALTER TABLE "new_SigningKey" RENAME TO "SigningKey";
CREATE INDEX "SigningKey_apiKeyId_createdAt_idx" ON "SigningKey"("apiKeyId", "createdAt");
CREATE TABLE "new_Workspace" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "ownerEmail" TEXT NOT NULL,
    "emailVerified" BOOLEAN NOT NULL DEFAULT false,
    "emailVerifiedAt" BIGINT,
    "authTokenDigest" TEXT NOT NULL,
    "createdAt" BIGINT NOT NULL
);
INSERT INTO "new_Workspace" ("authTokenDigest", "createdAt", "emailVerified", "emailVerifiedAt", "id", "name", "ownerEmail") SELECT "authTokenDigest", CASE typeof("createdAt") WHEN 'text' THEN CAST(strftime('%s', "createdAt") AS INTEGER) * 1000 + CAST(substr(strftime('%f', "createdAt"), 4) AS INTEGER) ELSE CAST("createdAt" AS INTEGER) END, "emailVerified", CASE typeof("emailVerifiedAt") WHEN 'text' THEN CAST(strftime('%s', "emailVerifiedAt") AS INTEGER) * 1000 + CAST(substr(strftime('%f', "emailVerifiedAt"), 4) AS INTEGER) ELSE CAST("emailVerifiedAt" AS INTEGER) END, "id", "name", "ownerEmail" FROM "Workspace";
DROP TABLE "Workspace";
ALTER TABLE "new_Workspace" RENAME TO "Workspace";
CREATE UNIQUE INDEX "Workspace_ownerEmail_key" ON "Workspace"("ownerEmail");
CREATE UNIQUE INDEX "Workspace_authTokenDigest_key" ON "Workspace"("authTokenDigest");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
