import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type { PrismaClient as SqliteClient } from './generated/sqlite/client.js';
import type { PoolStats } from '../platform/metrics.js';
import { driverFor, providerOf, type Provider } from './adapter.js';
import { transactional, type UnitOfWork } from './unit-of-work.js';
import { directReads, type DirectReads } from './direct-reads.js';

/**
 * Both generated clients share one model API (they come from the same
 * prisma/models.prisma), so the rest of the code is typed against one of them.
 */
export type Db = InstanceType<typeof SqliteClient>;

export interface Database {
  /** Resolves to the open transaction inside `uow.run`, to the pool elsewhere. */
  db: Db;
  uow: UnitOfWork;
  provider: Provider;
  close(): Promise<void>;
}

// Which database a client talks to, for the few statements written per dialect (db/bulk.ts),
// and the state of its connections, for the metrics.
const clients = new WeakMap<object, { provider: Provider; pool: () => PoolStats; direct: DirectReads }>();

function clientOf(db: Db) {
  const client = clients.get(db);
  if (client === undefined) throw new Error('not a client made by openDatabase');
  return client;
}

export function providerOfClient(db: Db): Provider {
  return clientOf(db).provider;
}

export function poolOfClient(db: Db): PoolStats {
  return clientOf(db).pool();
}

/** Reads past the ORM, for hot paths (db/direct-reads.ts). */
export function directReadsOf(db: Db): DirectReads {
  return clientOf(db).direct;
}

export type QueryListener = (sql: string, via: 'orm' | 'direct') => void;

export interface OpenOptions {
  /** PostgreSQL connections of this process (DATABASE_POOL_SIZE); default 10. SQLite has one. */
  poolSize?: number;
  /** PostgreSQL statement timeout of every connection (DATABASE_STATEMENT_TIMEOUT_MS); 0 = none. Not applicable to SQLite. */
  statementTimeoutMs?: number;
  /** Where a failing after-commit effect is reported (see UnitOfWork.afterCommit); default: a process warning. */
  onEffectError?: (error: unknown) => void;
  /** Called with the SQL of every statement sent and whether it went through the ORM or past it (tests that look at plans or count statements). */
  onQuery?: QueryListener;
}

export async function openDatabase(databaseUrl: string, options: OpenOptions = {}): Promise<Database> {
  const provider = providerOf(databaseUrl);
  const driver = await driverFor(databaseUrl, options.poolSize, options.statementTimeoutMs);
  const onQuery = options.onQuery;
  const root = await newClient(provider, driver.factory, onQuery !== undefined);
  if (onQuery) (root as unknown as { $on(event: 'query', listener: (e: { query: string }) => void): void }).$on('query', (e) => onQuery(e.query, 'orm'));
  await root.$connect();
  if (provider === 'sqlite') {
    // WAL lets readers proceed while one writer commits; NORMAL sync is the
    // documented safe pairing with WAL (durable across application crashes).
    await root.$queryRawUnsafe('PRAGMA journal_mode = WAL');
    await root.$executeRawUnsafe('PRAGMA synchronous = NORMAL');
    await root.$executeRawUnsafe('PRAGMA foreign_keys = ON');
  }
  const { db, uow, opened, adapterTransaction } = transactional(
    root,
    options.onEffectError ?? ((error) => process.emitWarning(`after-commit effect failed: ${error instanceof Error ? error.message : String(error)}`)),
  );
  driver.onTransaction(opened);
  const direct = directReads(db, {
    onQuery,
    inTransaction: uow.active,
    transaction: adapterTransaction,
    adapter: async () => {
      const adapter = driver.adapter();
      if (adapter === undefined) throw new Error('the database client is not connected');
      return adapter;
    },
  });
  clients.set(db, { provider, pool: driver.pool, direct });
  return { db, uow, provider, close: () => root.$disconnect() };
}

/**
 * The generated client of one database, loaded when it is opened: each holds
 * its schema's runtime data model, and the other database's is never needed.
 */
async function newClient(provider: Provider, adapter: SqlDriverAdapterFactory, logQueries: boolean): Promise<Db> {
  const log = logQueries ? [{ emit: 'event' as const, level: 'query' as const }] : undefined;
  if (provider === 'sqlite') {
    const { PrismaClient } = await import('./generated/sqlite/client.js');
    return new PrismaClient({ adapter, log });
  }
  const { PrismaClient } = await import('./generated/postgresql/client.js');
  return new PrismaClient({ adapter, log }) as unknown as Db;
}
