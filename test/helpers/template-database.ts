import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import pg from 'pg';
import type { Provider } from '../../server/db/adapter.js';
import { applyMigrations } from '../../server/db/migrate.js';
import { migrationsDirFor } from '../../server/db/migrations-folder.js';

/**
 * The migrated template that each test database is copied from, made once
 * per migration set (test/global-setup.ts), so that a test file does not
 * apply every migration itself. The key is a hash of the provider's
 * migration files: a new or edited migration makes a new template. A
 * template is made by the server's own applyMigrations (what a first start
 * does) under a temporary name and then renamed, so a run never sees a half
 * made one, and runs started together share the finished one.
 */

/** A template of another migration set unused this long is removed (another checkout may still be running with it meanwhile). */
const STALE_AFTER_MS = 24 * 60 * 60 * 1000;

/** Hex digest of every file under prisma/<provider>/migrations/, names and contents. */
export function migrationsHash(provider: Provider): string {
  const root = migrationsDirFor(provider);
  const hash = createHash('sha256');
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true })
      .flatMap((entry) => (entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)]))
      .sort();
  for (const file of walk(root)) {
    hash.update(relative(root, file).split('\\').join('/')).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * The SQLite template file for the current migrations, made if missing.
 * Kept under the temp directory between runs (one small file per migration
 * set); templates of other migration sets not used for a day are removed.
 */
export async function sqliteTemplate(): Promise<string> {
  const dir = join(tmpdir(), 'collab-test-templates');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const key = migrationsHash('sqlite');
  const path = join(dir, `sqlite-${key}.db`);
  if (!existsSync(path)) {
    const building = join(dir, `building-${key}-${randomBytes(6).toString('hex')}.db`);
    try {
      await applyMigrations(`file:${building}`);
      // The engine leaves a rollback-journal database behind; a copy of the one file is the whole database.
      for (const suffix of ['-wal', '-journal']) {
        if (existsSync(building + suffix)) throw new Error(`the migrated template ${building} left a ${suffix} file behind`);
      }
      chmodSync(building, 0o600);
      renameSync(building, path);
    } finally {
      rmSync(building, { force: true });
    }
  }
  const now = new Date();
  utimesSync(path, now, now);
  for (const name of readdirSync(dir)) {
    const other = join(dir, name);
    if (other !== path && now.getTime() - statSync(other).mtimeMs > STALE_AFTER_MS) rmSync(other, { force: true });
  }
  return path;
}

/**
 * The PostgreSQL template database for the current migrations on the server
 * of `baseUrl`, made if missing. Test databases are made from it with
 * `CREATE DATABASE … TEMPLATE`, which PostgreSQL refuses while any session is
 * connected to the template: so it allows no connections once made. Each
 * run stamps its template's comment with the time; templates of other
 * migration sets (or builds left by a killed run) stamped over a day ago are
 * dropped.
 */
export async function postgresTemplate(baseUrl: string): Promise<string> {
  const key = migrationsHash('postgresql');
  const name = `collab_template_${key}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    const exists = async (db: string) => (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [db])).rowCount === 1;
    const stamp = (db: string) => admin.query(`COMMENT ON DATABASE "${db}" IS '${new Date().toISOString()}'`);
    if (!(await exists(name))) {
      const building = `collab_template_build_${key}_${randomBytes(4).toString('hex')}`;
      await admin.query(`CREATE DATABASE "${building}"`);
      await stamp(building);
      try {
        const url = new URL(baseUrl);
        url.pathname = `/${building}`;
        await applyMigrations(url.toString());
        await admin.query(`ALTER DATABASE "${building}" WITH ALLOW_CONNECTIONS false`);
        // The engine's and the lock's sessions end as applyMigrations returns; the server may take a moment to see it.
        await retryWhileAccessed(() => admin.query(`ALTER DATABASE "${building}" RENAME TO "${name}"`)).catch(async (error: unknown) => {
          // Another run made it meanwhile: use theirs.
          if ((error as { code?: string }).code !== '42P04') throw error;
        });
      } finally {
        await admin.query(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`);
      }
    }
    await stamp(name);
    const others = await admin.query<{ datname: string; stamp: string | null }>(
      `SELECT datname, shobj_description(oid, 'pg_database') AS stamp FROM pg_database WHERE datname LIKE 'collab\\_template\\_%' AND datname <> $1`,
      [name],
    );
    for (const other of others.rows) {
      const used = Date.parse(other.stamp ?? '');
      if (Number.isFinite(used) && Date.now() - used < STALE_AFTER_MS) continue;
      await admin.query(`DROP DATABASE IF EXISTS "${other.datname}" WITH (FORCE)`).catch(() => undefined);
    }
    return name;
  } finally {
    await admin.end();
  }
}

/** Runs `fn` again for up to 5 s while PostgreSQL says the database is being accessed by other users (55006). */
async function retryWhileAccessed<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if ((error as { code?: string }).code !== '55006' || attempt >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
