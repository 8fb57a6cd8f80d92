-- AlterTable
ALTER TABLE "Grant" ADD COLUMN     "accessFields" TEXT;
