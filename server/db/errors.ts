import { alreadyExists } from '../lib/app-error.js';
import { Prisma } from './generated/sqlite/client.js';

/** A unique constraint refused the write (P2002): the caller's ID is taken. */
export function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002';
}

/** Runs a create whose unique key the caller chose: a taken key is ALREADY_EXISTS naming `what`. */
export async function createdOnce<T>(what: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw alreadyExists(`${what} already exists`);
    throw error;
  }
}

/** An update or delete found no row (P2025). */
export function isMissingRow(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2025';
}

/** A transaction could not start or finish in time (P2028) or lost a write conflict or deadlock (P2034). */
export function isTransactionContention(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && (error.code === 'P2028' || error.code === 'P2034');
}
