-- The DateTime columns of the account and installation tables become BigInt
-- Unix milliseconds (prisma/models.prisma), keeping every stored value to the
-- millisecond. The generated diff dropped and re-added each column, losing
-- its values: here each column changes type in place. Prisma's DateTime is
-- TIMESTAMP(3) without time zone holding UTC, and EXTRACT(EPOCH FROM) of a
-- timestamp without time zone counts from 1970-01-01 00:00:00 whatever the
-- session's TimeZone. At millisecond precision, times 1000 it is a whole
-- number (exact: EXTRACT returns numeric since PostgreSQL 14). The type change
-- rebuilds the indexes on these columns. The CURRENT_TIMESTAMP defaults are
-- dropped first: a bigint column cannot keep them.
-- (No semicolons in these comments: the schema engine splits the script at each.)

-- AlterTable
ALTER TABLE "AiProviderKey" ALTER COLUMN "updatedAt" SET DATA TYPE BIGINT USING (EXTRACT(EPOCH FROM "updatedAt") * 1000)::BIGINT;

-- AlterTable
ALTER TABLE "ApiKey" ALTER COLUMN "expiredAt" SET DATA TYPE BIGINT USING (EXTRACT(EPOCH FROM "expiredAt") * 1000)::BIGINT,
ALTER COLUMN "createdAt" DROP DEFAULT,
ALTER COLUMN "createdAt" SET DATA TYPE BIGINT USING (EXTRACT(EPOCH FROM "createdAt") * 1000)::BIGINT;

-- AlterTable
ALTER TABLE "AuthToken" ALTER COLUMN "createdAt" DROP DEFAULT,
ALTER COLUMN "createdAt" SET DATA TYPE BIGINT USING (EXTRACT(EPOCH FROM "createdAt") * 1000)::BIGINT;

-- AlterTable
ALTER TABLE "FeatureToggle" ALTER COLUMN "updatedAt" SET DATA TYPE BIGINT USING (EXTRACT(EPOCH FROM "updatedAt") * 1000)::BIGINT;

-- AlterTable
ALTER TABLE "ServerMeta" ALTER COLUMN "createdAt" DROP DEFAULT,
ALTER COLUMN "createdAt" SET DATA TYPE BIGINT USING (EXTRACT(EPOCH FROM "createdAt") * 1000)::BIGINT;

-- AlterTable
ALTER TABLE "Setting" ALTER COLUMN "updatedAt" SET DATA TYPE BIGINT USING (EXTRACT(EPOCH FROM "updatedAt") * 1000)::BIGINT;

-- AlterTable
ALTER TABLE "SigningKey" ALTER COLUMN "createdAt" DROP DEFAULT,
ALTER COLUMN "createdAt" SET DATA TYPE BIGINT USING (EXTRACT(EPOCH FROM "createdAt") * 1000)::BIGINT,
ALTER COLUMN "retiredAt" SET DATA TYPE BIGINT USING (EXTRACT(EPOCH FROM "retiredAt") * 1000)::BIGINT;

-- AlterTable
ALTER TABLE "Workspace" ALTER COLUMN "emailVerifiedAt" SET DATA TYPE BIGINT USING (EXTRACT(EPOCH FROM "emailVerifiedAt") * 1000)::BIGINT,
ALTER COLUMN "createdAt" DROP DEFAULT,
ALTER COLUMN "createdAt" SET DATA TYPE BIGINT USING (EXTRACT(EPOCH FROM "createdAt") * 1000)::BIGINT;
