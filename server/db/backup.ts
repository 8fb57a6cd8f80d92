import { chmodSync, copyFileSync, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Sqlite from 'better-sqlite3';
import { failedPrecondition, invalidArgument } from '../lib/app-error.js';
import { providerOf, sqlitePath } from './adapter.js';
import { sqliteRecordedMigrations } from './migrate.js';
import { shippedMigrations } from './migrations-folder.js';

/**
 * Backups of the embedded SQLite database (operator CLI `backup` and
 * `restore`; the operator guide, docs/operations.md#backups). PostgreSQL has
 * its own tools, which the CLI names instead of wrapping them.
 */

/** What the CLI answers on PostgreSQL: the commands of the operator guide. */
export const POSTGRES_BACKUP = 'pg_dump --format=custom --no-owner --file=FILE "$DATABASE_URL"';
export const POSTGRES_RESTORE = 'pg_restore --clean --if-exists --no-owner --single-transaction --dbname="$DATABASE_URL" FILE';

export interface BackupResult {
  provider: 'sqlite';
  database: string;
  file: string;
  bytes: number;
  /** When the snapshot was taken: it holds every write committed before this. */
  takenAt: string;
}

/**
 * A consistent online snapshot: VACUUM INTO reads the whole database in one
 * read transaction, which in WAL mode neither waits for the running
 * servers' writes nor holds them up, and sees every write committed before
 * it began (a copy of the file alone would miss those still in the -wal).
 * Written beside the target and renamed into place, so a file at FILE is
 * always a whole backup; owner-only, since it holds sealed secrets and
 * personal data.
 */
export function backupDatabase(databaseUrl: string, file: string): BackupResult {
  if (providerOf(databaseUrl) === 'postgresql') {
    throw failedPrecondition(`on PostgreSQL, back up with pg_dump (a consistent snapshot while the servers run): ${POSTGRES_BACKUP.replace('FILE', file)}; restore with: ${POSTGRES_RESTORE.replace('FILE', file)}`);
  }
  const database = sqlitePath(databaseUrl);
  const target = resolve(file);
  if (existsSync(target)) throw invalidArgument(`${file} exists: backup writes a new file and never replaces one`);
  if (!existsSync(dirname(target))) throw invalidArgument(`the directory of ${file} does not exist`);
  if (!existsSync(database)) throw failedPrecondition(`there is no database at ${database} (DATABASE_URL) to back up`);

  const partial = `${target}.partial-${process.pid}`;
  const db = new Sqlite(database, { readonly: true, fileMustExist: true, timeout: 5000 });
  try {
    const takenAt = new Date().toISOString();
    db.prepare('VACUUM INTO ?').run(partial);
    chmodSync(partial, 0o600);
    renameSync(partial, target);
    return { provider: 'sqlite', database, file: target, bytes: statSync(target).size, takenAt };
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    db.close();
  }
}

export interface RestoreResult {
  provider: 'sqlite';
  database: string;
  restoredFrom: string;
  /** Where the database that was replaced went (with its -wal), or null when there was none. */
  previous: string | null;
  /** Migrations of this version the backup lacks: the server applies them at its next start. */
  pendingMigrations: string[];
}

/** The sealed values a restore checks against the configured master key before it replaces anything. */
export interface SealedProbe {
  check: string | undefined;
  /** A master-key rotation under way when the backup was taken: either of its keys opens the backup. */
  rotation: string | undefined;
  /** An auth token, for a database from before the check value existed. */
  legacyToken: string | undefined;
}

/**
 * Replaces the database with a backup, with every server stopped. Refused,
 * before anything changes, when the file is not a whole SQLite database, was
 * taken by a newer version, cannot be opened with the configured master key
 * (`opensWithKey`), or when a process still has the database open. The
 * database it replaces is kept beside it as `<name>.before-restore-<time>`.
 */
export function restoreDatabase(databaseUrl: string, file: string, opensWithKey: (probe: SealedProbe) => string | undefined): RestoreResult {
  if (providerOf(databaseUrl) === 'postgresql') {
    throw failedPrecondition(`on PostgreSQL, restore with pg_restore, the servers stopped: ${POSTGRES_RESTORE.replace('FILE', file)}`);
  }
  const source = resolve(file);
  if (!existsSync(source)) throw invalidArgument(`${file} does not exist`);
  const { migrations, probe } = inspectBackup(source, file);

  const known = shippedMigrations('sqlite');
  const unknown = migrations.filter((name) => !known.includes(name));
  if (unknown.length > 0) throw failedPrecondition(`${file} was taken by a newer version (its migration ${unknown[0]} is unknown to this one): restore it with that version`);
  const refusal = opensWithKey(probe);
  if (refusal !== undefined) throw failedPrecondition(`${file} cannot be opened with this master key: ${refusal}`);

  const database = sqlitePath(databaseUrl);
  if (!existsSync(dirname(database))) throw failedPrecondition(`DATABASE_URL points into ${dirname(database)}, which does not exist`);
  if (existsSync(database)) assertNotInUse(database);

  const partial = `${database}.restore-partial-${process.pid}`;
  copyFileSync(source, partial);
  chmodSync(partial, 0o600);
  let previous: string | null = null;
  if (existsSync(database)) {
    previous = `${database}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    renameSync(database, previous);
    // The old database's log and index go with it: its last writes may still be in the -wal.
    for (const suffix of ['-wal', '-shm']) if (existsSync(database + suffix)) renameSync(database + suffix, previous + suffix);
  }
  renameSync(partial, database);
  return { provider: 'sqlite', database, restoredFrom: source, previous, pendingMigrations: known.filter((name) => !migrations.includes(name)) };
}

function inspectBackup(path: string, file: string): { migrations: string[]; probe: SealedProbe } {
  let db: Sqlite.Database;
  try {
    db = new Sqlite(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw invalidArgument(`${file} is not a SQLite database (${(error as Error).message})`);
  }
  try {
    let check: string;
    try {
      check = (db.prepare('PRAGMA quick_check').pluck().get() as string) ?? '';
    } catch (error) {
      throw invalidArgument(`${file} is not a SQLite database (${(error as Error).message})`);
    }
    if (check !== 'ok') throw invalidArgument(`${file} is damaged (SQLite's quick_check: ${check.split('\n')[0]})`);
    const migrations = sqliteRecordedMigrations(db);
    if (migrations === undefined) throw invalidArgument(`${file} is not a backup of this service's database (it has no migration history)`);
    const table = (name: string) => db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(name) !== undefined;
    const checkValue = table('ServerMeta') ? (db.prepare(`SELECT value FROM ServerMeta WHERE key = 'masterKeyCheck'`).pluck().get() as string | undefined) : undefined;
    const rotation = table('ServerMeta') ? (db.prepare(`SELECT value FROM ServerMeta WHERE key = 'masterKeyRotation'`).pluck().get() as string | undefined) : undefined;
    const legacyToken = table('AuthToken') ? (db.prepare('SELECT tokenSealed FROM AuthToken LIMIT 1').pluck().get() as string | undefined) : undefined;
    return { migrations, probe: { check: checkValue, rotation, legacyToken } };
  } finally {
    db.close();
  }
}

/**
 * A running server (or CLI) keeps the database open, and in WAL mode every
 * open connection holds a shared lock that an exclusive lock cannot pass: if
 * one can be taken without waiting, no process has the file open.
 */
function assertNotInUse(database: string): void {
  const db = new Sqlite(database, { timeout: 0, fileMustExist: true });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('COMMIT');
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_BUSY') throw failedPrecondition(`the database ${database} is in use (a server or CLI has it open): stop every server first; restore replaces the whole database`);
    throw error;
  } finally {
    db.close();
  }
}
