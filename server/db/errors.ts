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

/**
 * PostgreSQL cancelled the statement (SQLSTATE 57014, query_canceled): it ran
 * past DATABASE_STATEMENT_TIMEOUT_MS, typically waiting for a lock another
 * session held. Prisma reports it as P2010 (raw query) or P2039 (model query)
 * with the driver's code in `meta`; a pg error seen directly carries it as `code`.
 */
export function isStatementTimeout(error: unknown): boolean {
  if (error instanceof Prisma.PrismaClientKnownRequestError) {
    const cause = (error.meta as { driverAdapterError?: { cause?: { originalCode?: unknown; code?: unknown } } } | undefined)?.driverAdapterError?.cause;
    return cause?.originalCode === QUERY_CANCELED || cause?.code === QUERY_CANCELED;
  }
  return (error as { code?: unknown } | null)?.code === QUERY_CANCELED && typeof (error as { severity?: unknown }).severity === 'string';
}

const QUERY_CANCELED = '57014';
