import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface TestDatabase {
  url: string;
  dataDir: string;
  drop(): Promise<void>;
}

/** Where test/helpers/template-database.ts (run by test/global-setup.ts) tells the workers the run's template is. */
export const SQLITE_TEMPLATE_VAR = 'COLLAB_TEST_SQLITE_TEMPLATE';
export const POSTGRES_TEMPLATE_VAR = 'COLLAB_TEST_POSTGRES_TEMPLATE';

export interface TestDatabaseOptions {
  /**
   * No schema at all, as an operator's new database is: for tests of the
   * migrations themselves and of a first start. Otherwise the database
   * starts as a copy of the run's migrated template (test/global-setup.ts),
   * where a server's start-up migration finds nothing left to do.
   */
  empty?: boolean;
}

/**
 * A fresh database for one test file: SQLite in a temp directory by default;
 * a new PostgreSQL database when TEST_DATABASE_URL is set (the scale-out path
 * that .ci/run proves). Migrated unless `empty` (see TestDatabaseOptions);
 * outside a vitest run (no template made), it is empty and the server
 * migrates it at start.
 */
export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'collab-test-'));
  const base = process.env.TEST_DATABASE_URL;
  if (!base) {
    const path = join(dataDir, 'collab.db');
    const template = options.empty ? undefined : process.env[SQLITE_TEMPLATE_VAR];
    if (template) {
      copyFileSync(template, path);
      // What the server gives a database file it creates: it holds credential digests and sealed secrets.
      chmodSync(path, 0o600);
    }
    return { url: `file:${path}`, dataDir, drop: async () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  const name = `collab_test_${randomBytes(6).toString('hex')}`;
  const template = options.empty ? undefined : process.env[POSTGRES_TEMPLATE_VAR];
  await adminQuery(base, template ? `CREATE DATABASE "${name}" TEMPLATE "${template}"` : `CREATE DATABASE "${name}"`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    dataDir,
    drop: async () => {
      await adminQuery(base, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** One statement on a PostgreSQL server's admin connection (CREATE/DROP DATABASE). */
export async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export const usingPostgres = Boolean(process.env.TEST_DATABASE_URL);
