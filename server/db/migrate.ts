// `prisma migrate deploy` and `prisma migrate status` for this server, on the
// wasm schema engine (see migration-engine.ts for why not the CLI). Runs on
// every server start, so the no-op case must stay cheap.
import { existsSync } from 'node:fs';
import type Sqlite from 'better-sqlite3';
import { providerOf, sqlitePath, type Provider } from './adapter.js';
import { migrationsDirFor, migrationsThrough, readMigrationsList } from './migrations-folder.js';

export interface ApplyOptions {
  /**
   * Apply the migrations only up to and including this one (its directory
   * name), as if the later ones did not exist yet: how a test builds a
   * database as an older release left it, fills it, then applies the rest
   * (test/helpers/migration-upgrade.ts). Default: all of them.
   */
  through?: string;
}

export interface AppliedMigrations {
  provider: Provider;
  /** Names of the migrations applied by this call, oldest first; empty when up to date. */
  applied: string[];
}

/**
 * Applies the pending migrations of prisma/<provider>/migrations/ to the
 * database. Idempotent; the engine records each migration in
 * _prisma_migrations (with the CLI's checksums). On PostgreSQL it runs under
 * an advisory lock (see whileHoldingMigrationLock), so several processes
 * starting at once apply each migration once, and none gives up waiting.
 * A previously failed migration makes this throw (P3009), like the CLI.
 */
export async function applyMigrations(databaseUrl: string, options: ApplyOptions = {}): Promise<AppliedMigrations> {
  const provider = providerOf(databaseUrl);
  const migrationsList = migrationsThrough(readMigrationsList(migrationsDirFor(provider)), options.through);
  // Every start and every CLI run comes here: when the history already lists every migration as
  // finished, answer from one read instead of starting the schema engine (a wasm module, about a
  // second of CPU) and, on PostgreSQL, queueing for the migration lock.
  const names = migrationsList.migrationDirectories.map((d) => d.path);
  if (provider === 'sqlite' ? await sqliteUpToDate(databaseUrl, names) : await postgresUpToDate(databaseUrl, names)) {
    return { provider, applied: [] };
  }
  // The engine and its drivers load only now: a server whose database is up to date never needs them.
  const { withEngineFor, NO_FILTERS } = await import('./migration-engine.js');
  const apply = () => withEngineFor(databaseUrl, (engine) => engine.applyMigrations({ migrationsList, filters: NO_FILTERS }));
  const { appliedMigrationNames } = provider === 'postgresql' ? await whileHoldingMigrationLock(databaseUrl, apply) : await apply();
  return { provider, applied: appliedMigrationNames };
}

/** Our own advisory lock key (the schema engine's is 72707369); any constant no other tool on the database uses. */
const MIGRATION_LOCK_KEY = 7_248_101_613;

/**
 * Runs `fn` holding a session advisory lock on a connection of its own, so
 * processes starting together apply migrations one after another. The schema
 * engine takes a lock too, but gives up after 10 s: a process starting while
 * another one's migration waits behind a long transaction or builds an index
 * on a large table failed to start ("Timed out trying to acquire a postgres
 * advisory lock"). This lock waits as long as the migration takes; it is
 * released when the holder's session ends, so a crashed migrator frees it.
 * Whoever gets it next finds the migrations applied and does nothing.
 */
async function whileHoldingMigrationLock<T>(databaseUrl: string, fn: () => Promise<T>): Promise<T> {
  const client = await pgClient(databaseUrl);
  // A connection dropped while waiting is reported by the query below; without a listener it would end the process.
  client.on('error', () => undefined);
  await client.connect();
  try {
    // Role or database defaults must not cut the wait short: how long it lasts is the other migration's business.
    await client.query('SET statement_timeout = 0; SET lock_timeout = 0');
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      return await fn();
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * The engine opens SQLite in exclusive locking mode, which waits (and times
 * out) while another process, e.g. a running server, holds the file open. So
 * when the history table already lists every migration as finished, answer
 * from a plain read-only look and leave the engine unstarted.
 */
async function sqliteUpToDate(databaseUrl: string, migrations: string[]): Promise<boolean> {
  const path = sqlitePath(databaseUrl);
  if (!existsSync(path)) return false;
  const { default: Sqlite } = await import('better-sqlite3');
  const db = new Sqlite(path, { readonly: true, fileMustExist: true, timeout: 5000 });
  try {
    return allRecorded(sqliteRecordedMigrations(db), migrations);
  } finally {
    db.close();
  }
}

/** The migrations the history table records as applied: finished and not rolled back (column `name`). */
export const RECORDED_MIGRATIONS_SQL = 'SELECT migration_name AS name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL';

/** The applied migrations of an open SQLite database, or undefined when it has no history table. */
export function sqliteRecordedMigrations(db: Sqlite.Database): string[] | undefined {
  const table = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'`).get();
  if (!table) return undefined;
  return (db.prepare(RECORDED_MIGRATIONS_SQL).all() as { name: string }[]).map((row) => row.name);
}

function allRecorded(recorded: string[] | undefined, migrations: string[]): boolean {
  if (recorded === undefined) return false;
  const done = new Set(recorded);
  return migrations.every((name) => done.has(name));
}

/** The PostgreSQL side of the no-op check above: one connection, one read of the history table. */
async function postgresUpToDate(databaseUrl: string, migrations: string[]): Promise<boolean> {
  const client = await pgClient(databaseUrl);
  // A connection dropped while reading is reported by the query; without a listener it would end the process.
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows: present } = await client.query<{ table: string | null }>(`SELECT to_regclass('_prisma_migrations')::text AS "table"`);
    if (present[0]?.table == null) return false;
    const { rows } = await client.query<{ name: string }>(RECORDED_MIGRATIONS_SQL);
    return allRecorded(rows.map((row) => row.name), migrations);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export interface MigrationStatus {
  provider: Provider;
  /** Migration directories on disk, in apply order. */
  migrations: string[];
  /** True when every migration on disk is applied, none failed and none was edited. */
  upToDate: boolean;
  hasMigrationsTable: boolean;
  failedMigrationNames: string[];
  editedMigrationNames: string[];
  /** The engine's diagnostic (databaseIsBehind, migrationsDirectoryIsBehind, historiesDiverge) or null when in sync. */
  history:
    | { diagnostic: 'databaseIsBehind'; unappliedMigrationNames: string[] }
    | { diagnostic: 'migrationsDirectoryIsBehind'; unpersistedMigrationNames: string[] }
    | {
        diagnostic: 'historiesDiverge';
        lastCommonMigrationName: string | null;
        unpersistedMigrationNames: string[];
        unappliedMigrationNames: string[];
      }
    | null;
}

/** Like `prisma migrate status`: compares the database's migration history with the folder. JSON-printable. */
export async function migrationStatus(databaseUrl: string): Promise<MigrationStatus> {
  const provider = providerOf(databaseUrl);
  const migrationsList = readMigrationsList(migrationsDirFor(provider));
  const migrations = migrationsList.migrationDirectories.map((directory) => directory.path);
  const { withEngineFor, NO_FILTERS } = await import('./migration-engine.js');
  const diagnosis = await withEngineFor(databaseUrl, (engine) =>
    engine.diagnoseMigrationHistory({ migrationsList, optInToShadowDatabase: false, filters: NO_FILTERS }),
  ).catch((error: unknown) => {
    // Through a driver adapter a missing _prisma_migrations table comes back
    // as P1014 instead of hasMigrationsTable: false (what the native engine
    // reports for a database that was never migrated).
    if (isMissingMigrationsTable(error)) {
      return {
        hasMigrationsTable: false,
        failedMigrationNames: [],
        editedMigrationNames: [],
        history:
          migrations.length === 0
            ? null
            : { diagnostic: 'databaseIsBehind' as const, unappliedMigrationNames: migrations },
      };
    }
    throw error;
  });
  return {
    provider,
    migrations,
    upToDate:
      diagnosis.history === null &&
      diagnosis.failedMigrationNames.length === 0 &&
      diagnosis.editedMigrationNames.length === 0 &&
      (diagnosis.hasMigrationsTable || migrations.length === 0),
    hasMigrationsTable: diagnosis.hasMigrationsTable,
    failedMigrationNames: diagnosis.failedMigrationNames,
    editedMigrationNames: diagnosis.editedMigrationNames,
    history: diagnosis.history,
  };
}

function isMissingMigrationsTable(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error as { code?: unknown }).code === 'P1014' &&
    error.message.includes('_prisma_migrations')
  );
}

/** pg loads on PostgreSQL only: on SQLite nothing else needs it. */
async function pgClient(databaseUrl: string) {
  const { default: pg } = await import('pg');
  return new pg.Client({ connectionString: databaseUrl });
}
