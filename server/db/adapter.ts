import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { gatedSqlite } from './sqlite-gate.js';
import { ConfigError } from '../config.js';

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

/**
 * The driver adapter factory for a database URL. SQLite gets a busy timeout
 * so concurrent writers queue instead of failing (WAL is switched on by the
 * client, see client.ts).
 */
export function adapterFactoryFor(databaseUrl: string): SqlDriverAdapterFactory {
  if (providerOf(databaseUrl) === 'sqlite') {
    return gatedSqlite(new PrismaBetterSqlite3({ url: prepareSqliteFile(databaseUrl), timeout: 5000 }));
  }
  return new PrismaPg({ connectionString: databaseUrl, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) });
}
