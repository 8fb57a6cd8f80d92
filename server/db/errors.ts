import { Prisma } from './generated/sqlite/client.js';

/** A unique constraint refused the write (P2002): the caller's ID is taken. */
export function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002';
}

/** An update or delete found no row (P2025). */
export function isMissingRow(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2025';
}

/** For "create if missing" writes that may race with another request doing the same. */
export function ignoreUniqueViolation(error: unknown): void {
  if (!isUniqueViolation(error)) throw error;
}
