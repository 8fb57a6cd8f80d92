-- The DateTime columns of the access tables become BigInt Unix milliseconds
-- written from the service clock, keeping every stored value to the
-- millisecond, as 20261127092630_account_times_ms did for the account tables
-- (the generated diff dropped and re-added each column, losing its values).
-- Each column changes type in place: Prisma's DateTime is TIMESTAMP(3)
-- without time zone holding UTC, and EXTRACT(EPOCH FROM) of a timestamp
-- without time zone counts from 1970-01-01 00:00:00 whatever the session's
-- TimeZone, a whole number of milliseconds times 1000. The type change
-- rebuilds the indexes on these columns (Grant_members_idx and the
-- (createdAt, id) paging indexes). The CURRENT_TIMESTAMP defaults of createdAt
-- are dropped first: a bigint column cannot keep them.
-- (No semicolons in these comments: the schema engine splits the script at each.)

-- AlterTable
ALTER TABLE "Document" ALTER COLUMN "createdAt" DROP DEFAULT,
ALTER COLUMN "createdAt" SET DATA TYPE BIGINT USING (EXTRACT(EPOCH FROM "createdAt") * 1000)::BIGINT,
ALTER COLUMN "updatedAt" SET DATA TYPE BIGINT USING (EXTRACT(EPOCH FROM "updatedAt") * 1000)::BIGINT;

-- AlterTable
ALTER TABLE "Folder" ALTER COLUMN "createdAt" DROP DEFAULT,
ALTER COLUMN "createdAt" SET DATA TYPE BIGINT USING (EXTRACT(EPOCH FROM "createdAt") * 1000)::BIGINT,
ALTER COLUMN "updatedAt" SET DATA TYPE BIGINT USING (EXTRACT(EPOCH FROM "updatedAt") * 1000)::BIGINT;

-- AlterTable
ALTER TABLE "Grant" ALTER COLUMN "createdAt" DROP DEFAULT,
ALTER COLUMN "createdAt" SET DATA TYPE BIGINT USING (EXTRACT(EPOCH FROM "createdAt") * 1000)::BIGINT,
ALTER COLUMN "updatedAt" SET DATA TYPE BIGINT USING (EXTRACT(EPOCH FROM "updatedAt") * 1000)::BIGINT;

-- AlterTable
ALTER TABLE "Organization" ALTER COLUMN "createdAt" DROP DEFAULT,
ALTER COLUMN "createdAt" SET DATA TYPE BIGINT USING (EXTRACT(EPOCH FROM "createdAt") * 1000)::BIGINT,
ALTER COLUMN "updatedAt" SET DATA TYPE BIGINT USING (EXTRACT(EPOCH FROM "updatedAt") * 1000)::BIGINT;

-- AlterTable
ALTER TABLE "User" ALTER COLUMN "createdAt" DROP DEFAULT,
ALTER COLUMN "createdAt" SET DATA TYPE BIGINT USING (EXTRACT(EPOCH FROM "createdAt") * 1000)::BIGINT,
ALTER COLUMN "updatedAt" SET DATA TYPE BIGINT USING (EXTRACT(EPOCH FROM "updatedAt") * 1000)::BIGINT;

-- AlterTable
ALTER TABLE "UserGroup" ALTER COLUMN "createdAt" DROP DEFAULT,
ALTER COLUMN "createdAt" SET DATA TYPE BIGINT USING (EXTRACT(EPOCH FROM "createdAt") * 1000)::BIGINT;

-- AlterTable
ALTER TABLE "UserGroupMember" ALTER COLUMN "createdAt" DROP DEFAULT,
ALTER COLUMN "createdAt" SET DATA TYPE BIGINT USING (EXTRACT(EPOCH FROM "createdAt") * 1000)::BIGINT;
