import { alreadyExists } from '../lib/app-error.js';
// The runtime's class, which both generated clients throw: taking it through one of them (their Prisma
// namespace) would load that client's modules on the other database too.
import { PrismaClientKnownRequestError } from '@prisma/client/runtime/client';

/** A unique constraint refused the write (P2002, or the adapter's own error for a statement sent past the ORM): the caller's ID is taken. */
export function isUniqueViolation(error: unknown): boolean {
  if (error instanceof PrismaClientKnownRequestError && error.code === 'P2002') return true;
  return adapterCause(error)?.kind === 'UniqueConstraintViolation';
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
  return error instanceof PrismaClientKnownRequestError && error.code === 'P2025';
}

/** A transaction could not start or finish in time (P2028) or lost a write conflict or deadlock (P2034). */
export function isTransactionContention(error: unknown): boolean {
  return error instanceof PrismaClientKnownRequestError && (error.code === 'P2028' || error.code === 'P2034');
}

/**
 * PostgreSQL cancelled the statement (SQLSTATE 57014, query_canceled): it ran
 * past DATABASE_STATEMENT_TIMEOUT_MS, typically waiting for a lock another
 * session held. Prisma reports it as P2010 (raw query) or P2039 (model query)
 * with the driver's code in `meta`; a pg error seen directly carries it as `code`.
 */
export function isStatementTimeout(error: unknown): boolean {
  if (error instanceof PrismaClientKnownRequestError) {
    const cause = (error.meta as { driverAdapterError?: { cause?: { originalCode?: unknown; code?: unknown } } } | undefined)?.driverAdapterError?.cause;
    return cause?.originalCode === QUERY_CANCELED || cause?.code === QUERY_CANCELED;
  }
  return (error as { code?: unknown } | null)?.code === QUERY_CANCELED && typeof (error as { severity?: unknown }).severity === 'string';
}

const QUERY_CANCELED = '57014';

/** Why the database could not serve a request, when the cause is the database's state rather than the request. */
export type DatabaseOutage = 'busy' | 'unreachable' | 'full';

/**
 * Classifies driver failures that say the database is (for now) out of reach,
 * locked or out of space, on either provider. Prisma passes the adapter's
 * error along in `meta.driverAdapterError.cause` (kind, SQLite extended code,
 * PostgreSQL SQLSTATE); errors pg raises without a code (a connection that
 * was cut) are recognised by message. Anything else is undefined: a real
 * defect, reported as INTERNAL.
 */
export function databaseOutage(error: unknown): DatabaseOutage | undefined {
  if (isTransactionContention(error)) return 'busy';
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && PRISMA_OUTAGES[code]) return PRISMA_OUTAGES[code];
  const cause = adapterCause(error);
  if (cause !== undefined) {
    const byKind = ADAPTER_KIND_OUTAGES[String(cause.kind)];
    if (byKind) return byKind;
    if (cause.kind === 'sqlite') return sqliteOutage(cause.originalCode, cause.extendedCode);
    const sqlState = typeof cause.code === 'string' ? cause.code : typeof cause.originalCode === 'string' ? cause.originalCode : undefined;
    if (cause.kind === 'postgres' && sqlState !== undefined) return postgresOutage(sqlState);
  }
  const message = error instanceof Error ? error.message : undefined;
  if (message !== undefined && PG_CONNECTION_LOST.some((pattern) => pattern.test(message))) return 'unreachable';
  return undefined;
}

const PRISMA_OUTAGES: Record<string, DatabaseOutage> = {
  P1001: 'unreachable', // cannot reach the database server
  P1002: 'unreachable', // reached, but it timed out
  P1008: 'busy', // operation timed out (SQLite: SQLITE_BUSY, still refused after the gate's wait)
  P1017: 'unreachable', // the server closed the connection
  P2024: 'busy', // no connection from the pool in time
  P2037: 'unreachable', // too many connections
};

const ADAPTER_KIND_OUTAGES: Record<string, DatabaseOutage> = {
  DatabaseNotReachable: 'unreachable',
  ConnectionClosed: 'unreachable',
  SocketTimeout: 'busy',
  TooManyConnections: 'unreachable',
};

// By SQLite primary result code: better-sqlite3 names it (SQLITE_FULL, SQLITE_IOERR_WRITE, ...) and
// the adapter passes the name as originalCode; its numeric extendedCode is only set for unnamed codes.
const SQLITE_OUTAGES: Record<string, DatabaseOutage> = {
  SQLITE_BUSY: 'busy',
  SQLITE_LOCKED: 'busy',
  SQLITE_IOERR: 'unreachable',
  SQLITE_FULL: 'full',
  SQLITE_CANTOPEN: 'unreachable',
};
const SQLITE_PRIMARY_NAMES: Record<number, string> = { 5: 'SQLITE_BUSY', 6: 'SQLITE_LOCKED', 10: 'SQLITE_IOERR', 13: 'SQLITE_FULL', 14: 'SQLITE_CANTOPEN' };

function sqliteOutage(originalCode: unknown, extendedCode: unknown): DatabaseOutage | undefined {
  if (typeof originalCode === 'string') {
    const primary = /^SQLITE_[A-Z]+/.exec(originalCode)?.[0];
    if (primary !== undefined && SQLITE_OUTAGES[primary]) return SQLITE_OUTAGES[primary];
  }
  if (typeof extendedCode === 'number') {
    const name = SQLITE_PRIMARY_NAMES[extendedCode & 0xff];
    return name === undefined ? undefined : SQLITE_OUTAGES[name];
  }
  return undefined;
}

function postgresOutage(sqlState: string): DatabaseOutage | undefined {
  if (sqlState === '53100') return 'full'; // disk_full
  // 08: connection exception; 57P01-57P03: admin/crash shutdown, cannot connect now; 53: insufficient resources.
  if (sqlState.startsWith('08') || /^57P0[1-3]$/.test(sqlState) || sqlState.startsWith('53')) return 'unreachable';
  if (sqlState === '40001' || sqlState === '40P01') return 'busy'; // serialization failure, deadlock
  return undefined;
}

const PG_CONNECTION_LOST = [/^Connection terminated/, /connection error and is not queryable/, /^Client was closed and is not queryable/];

function adapterCause(error: unknown): Record<string, unknown> | undefined {
  const meta = (error as { meta?: { driverAdapterError?: { cause?: unknown } } } | null)?.meta;
  const cause = meta?.driverAdapterError?.cause ?? ((error as { name?: unknown } | null)?.name === 'DriverAdapterError' ? (error as { cause?: unknown }).cause : undefined);
  return cause !== null && typeof cause === 'object' ? (cause as Record<string, unknown>) : undefined;
}
