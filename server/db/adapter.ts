import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { SqlDriverAdapter, SqlDriverAdapterFactory, Transaction } from '@prisma/driver-adapter-utils';
import { gatedSqlite } from './sqlite-gate.js';
import { ConfigError } from '../lib/config-error.js';
import type { PoolStats } from '../platform/metrics.js';

export type Provider = 'sqlite' | 'postgresql';

export const DEFAULT_DATABASE_URL = 'file:./data/collab.db';

/** `file:` is embedded SQLite; `postgres://` and `postgresql://` are PostgreSQL. */
export function providerOf(databaseUrl: string): Provider {
  if (databaseUrl.startsWith('file:')) return 'sqlite';
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) return 'postgresql';
  throw new Error(`DATABASE_URL must start with file:, postgres:// or postgresql:// (got "${databaseUrl.split(':')[0]}:...")`);
}

/** Absolute path of a `file:` URL, relative paths taken from the working directory. */
export function sqlitePath(databaseUrl: string): string {
  const path = databaseUrl.slice('file:'.length).split('?')[0] ?? '';
  if (path === '') throw new Error('DATABASE_URL file: needs a path, e.g. file:./data/collab.db');
  return resolve(path);
}

/**
 * Makes sure the SQLite file can be opened: only the default ./data is
 * created (a typo in a custom path must not silently start an empty
 * database elsewhere), and a new file is created owner-only, since it holds
 * credential digests and sealed secrets. SQLite gives its -wal and -shm
 * files the database file's mode.
 */
export function prepareSqliteFile(databaseUrl: string): string {
  const path = sqlitePath(databaseUrl);
  const dir = dirname(path);
  if (!existsSync(dir)) {
    if (path !== sqlitePath(DEFAULT_DATABASE_URL)) throw new ConfigError(`DATABASE_URL points into ${dir}, which does not exist`);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return path;
}

/** A database URL's driver adapter factory, and the state of its connections (for the metrics). */
export interface Driver {
  factory: SqlDriverAdapterFactory;
  pool(): PoolStats;
  /** The adapter the client connected through (db/direct-reads.ts); undefined before it connects. */
  adapter(): SqlDriverAdapter | undefined;
  /** Told of each transaction the client opens, as the adapter's own object (db/unit-of-work.ts keeps it for direct statements). */
  onTransaction(listener: (tx: Transaction) => void): void;
}

/** The factory, remembering the adapter it makes (the client connects once, through it) and telling of each transaction it starts. */
function remembering(factory: SqlDriverAdapterFactory): Pick<Driver, 'factory' | 'adapter' | 'onTransaction'> {
  let connected: SqlDriverAdapter | undefined;
  let listener: ((tx: Transaction) => void) | undefined;
  return {
    factory: {
      provider: factory.provider,
      adapterName: factory.adapterName,
      connect: async () => {
        const adapter = await factory.connect();
        const startTransaction = adapter.startTransaction.bind(adapter);
        adapter.startTransaction = async (isolationLevel) => {
          const tx = await startTransaction(isolationLevel);
          listener?.(tx);
          return tx;
        };
        return (connected = adapter);
      },
    },
    adapter: () => connected,
    onTransaction: (next) => {
      listener = next;
    },
  };
}

/**
 * The driver for a database URL. On SQLite, a statement that finds the file
 * locked by another connection is tried again for SQLITE_BUSY_WAIT_MS, so concurrent
 * writers queue instead of failing (WAL is switched on by the client, see
 * client.ts). PostgreSQL's pool is made here rather than by the adapter, so
 * its counts can be read (the adapter keeps its own pool out of reach); the
 * adapter still ends it on disconnect.
 *
 * Only the driver of the URL's database is loaded: a process holds one for
 * its whole life, and the other (pg and its adapter on SQLite, the native
 * better-sqlite3 on PostgreSQL) would take memory for nothing.
 */
export async function driverFor(databaseUrl: string, poolSize = DEFAULT_POOL_SIZE, statementTimeoutMs = DEFAULT_STATEMENT_TIMEOUT_MS): Promise<Driver> {
  if (providerOf(databaseUrl) === 'sqlite') {
    const { PrismaBetterSqlite3 } = await import('@prisma/adapter-better-sqlite3');
    // Busy timeout 0: the gate waits for another connection's lock without blocking the process (see sqlite-gate.ts).
    const gated = gatedSqlite(new PrismaBetterSqlite3({ url: prepareSqliteFile(databaseUrl), timeout: 0 }), { busyWaitMs: SQLITE_BUSY_WAIT_MS });
    return {
      ...remembering(gated),
      pool: () => {
        const gate = gated.gate();
        const open = gate.connected ? 1 : 0;
        return { open, idle: gate.held ? 0 : open, waiting: gate.waiting, max: 1 };
      },
    };
  }
  const [{ default: pg }, { PrismaPg }] = await Promise.all([import('pg'), import('@prisma/adapter-pg')]);
  // Sent as a startup parameter of every connection, so it holds for each statement the pool runs
  // (a lock wait included), not only the ones this code thought of. 0 leaves the server's own setting.
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize, ...(statementTimeoutMs > 0 ? { statement_timeout: statementTimeoutMs } : {}) });
  return {
    ...remembering(new PrismaPg(pool, { disposeExternalPool: true })),
    pool: () => ({ open: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options.max }),
  };
}

/** How long a statement or transaction waits for another connection's lock on the SQLite file before it is UNAVAILABLE. */
export const SQLITE_BUSY_WAIT_MS = 5000;

/** PostgreSQL connections per process when DATABASE_POOL_SIZE is unset. */
export const DEFAULT_POOL_SIZE = 10;

/**
 * DATABASE_STATEMENT_TIMEOUT_MS when unset: far above any statement the
 * server runs in normal operation, yet short enough that a statement stuck
 * behind a lock or a runaway plan gives its connection back within a
 * client's patience instead of pinning it until the pool runs dry.
 */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;

export async function adapterFactoryFor(databaseUrl: string): Promise<SqlDriverAdapterFactory> {
  return (await driverFor(databaseUrl)).factory;
}
