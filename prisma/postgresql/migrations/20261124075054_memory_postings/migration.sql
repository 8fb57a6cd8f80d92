-- AlterTable
ALTER TABLE "Judgment" ADD COLUMN     "postings" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "JudgmentRevision" ADD COLUMN     "postings" INTEGER NOT NULL DEFAULT 0;
