import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { gatedSqlite } from './sqlite-gate.js';

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
 * The driver adapter factory for a database URL. SQLite gets its directory
 * created and a busy timeout so concurrent writers queue instead of failing
 * (WAL is switched on by the client, see client.ts).
 */
export function adapterFactoryFor(databaseUrl: string): SqlDriverAdapterFactory {
  if (providerOf(databaseUrl) === 'sqlite') {
    const path = sqlitePath(databaseUrl);
    mkdirSync(dirname(path), { recursive: true });
    return gatedSqlite(new PrismaBetterSqlite3({ url: path, timeout: 5000 }));
  }
  return new PrismaPg({ connectionString: databaseUrl, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) });
}
