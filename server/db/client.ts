import { PrismaClient as SqliteClient } from './generated/sqlite/client.js';
import { PrismaClient as PostgresClient } from './generated/postgresql/client.js';
import { adapterFactoryFor, providerOf, type Provider } from './adapter.js';
import { transactional, type UnitOfWork } from './unit-of-work.js';

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

// Which database a client talks to, for the few statements written per dialect (db/bulk.ts).
const providers = new WeakMap<object, Provider>();

export function providerOfClient(db: Db): Provider {
  const provider = providers.get(db);
  if (provider === undefined) throw new Error('not a client made by openDatabase');
  return provider;
}

export interface OpenOptions {
  /** Where a failing after-commit effect is reported (see UnitOfWork.afterCommit); default: a process warning. */
  onEffectError?: (error: unknown) => void;
}

export async function openDatabase(databaseUrl: string, options: OpenOptions = {}): Promise<Database> {
  const provider = providerOf(databaseUrl);
  const adapter = adapterFactoryFor(databaseUrl);
  const root =
    provider === 'sqlite'
      ? new SqliteClient({ adapter })
      : (new PostgresClient({ adapter }) as unknown as Db);
  await root.$connect();
  if (provider === 'sqlite') {
    // WAL lets readers proceed while one writer commits; NORMAL sync is the
    // documented safe pairing with WAL (durable across application crashes).
    await root.$queryRawUnsafe('PRAGMA journal_mode = WAL');
    await root.$executeRawUnsafe('PRAGMA synchronous = NORMAL');
    await root.$executeRawUnsafe('PRAGMA foreign_keys = ON');
  }
  const { db, uow } = transactional(
    root,
    options.onEffectError ?? ((error) => process.emitWarning(`after-commit effect failed: ${error instanceof Error ? error.message : String(error)}`)),
  );
  providers.set(db, provider);
  return { db, uow, provider, close: () => root.$disconnect() };
}
