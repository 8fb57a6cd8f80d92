import { PrismaClient as SqliteClient } from './generated/sqlite/client.js';
import { PrismaClient as PostgresClient } from './generated/postgresql/client.js';
import { adapterFactoryFor, providerOf, type Provider } from './adapter.js';

/**
 * Both generated clients share one model API (they come from the same
 * prisma/models.prisma), so the rest of the code is typed against one of them.
 */
export type Db = InstanceType<typeof SqliteClient>;

export interface Database {
  db: Db;
  provider: Provider;
  close(): Promise<void>;
}

export async function openDatabase(databaseUrl: string): Promise<Database> {
  const provider = providerOf(databaseUrl);
  const adapter = adapterFactoryFor(databaseUrl);
  const db =
    provider === 'sqlite'
      ? new SqliteClient({ adapter })
      : (new PostgresClient({ adapter }) as unknown as Db);
  await db.$connect();
  if (provider === 'sqlite') {
    // WAL lets readers proceed while one writer commits; NORMAL sync is the
    // documented safe pairing with WAL (durable across application crashes).
    await db.$queryRawUnsafe('PRAGMA journal_mode = WAL');
    await db.$executeRawUnsafe('PRAGMA synchronous = NORMAL');
    await db.$executeRawUnsafe('PRAGMA foreign_keys = ON');
  }
  return { db, provider, close: () => db.$disconnect() };
}
