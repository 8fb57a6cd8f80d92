// Where this version's migrations are, and their names, without the schema
// engine: the server reads them on every start and for /readyz, while the
// engine and its drivers (migration-engine.ts) load only when a migration is
// to be applied or diagnosed.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MigrationList } from '@prisma/schema-engine-wasm/schema_engine_bg';
import type { Provider } from './adapter.js';

/**
 * The repository root: the first directory above this module holding both
 * package.json and prisma/. Walking up (rather than a fixed "../..") keeps it
 * right both for server/db/*.ts under tsx and dist/server/db/*.js under node.
 */
export const repoRoot: string = findRepoRoot(dirname(fileURLToPath(import.meta.url)));

function findRepoRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'prisma'))) return dir;
    if (dirname(dir) === dir) throw new Error(`No directory with package.json and prisma/ above ${start}`);
  }
}

export function migrationsDirFor(provider: Provider): string {
  return join(repoRoot, 'prisma', provider, 'migrations');
}

/**
 * A migrations folder in the shape the Prisma CLI hands the engine: one entry
 * per sub-directory, sorted by name (the timestamp prefix gives the order).
 * A missing folder is an empty history.
 */
export function readMigrationsList(migrationsDir: string): MigrationList {
  const lockPath = join(migrationsDir, 'migration_lock.toml');
  const names = migrationNames(migrationsDir);
  return {
    baseDir: migrationsDir,
    lockfile: { path: 'migration_lock.toml', content: existsSync(lockPath) ? readFileSync(lockPath, 'utf8') : null },
    migrationDirectories: names.map((name) => {
      const file = join(migrationsDir, name, 'migration.sql');
      let content: MigrationList['migrationDirectories'][number]['migrationFile']['content'];
      try {
        content = { tag: 'ok', value: readFileSync(file, 'utf8') };
      } catch (error) {
        content = { tag: 'error', value: error instanceof Error ? error.message : String(error) };
      }
      return { path: name, migrationFile: { path: 'migration.sql', content } };
    }),
    shadowDbInitScript: '',
  };
}

/** The migration directory names of a folder, in apply order (a missing folder has none). */
function migrationNames(migrationsDir: string): string[] {
  return existsSync(migrationsDir)
    ? readdirSync(migrationsDir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
        .sort()
    : [];
}

/** The names of the migrations this version ships for a provider, in apply order, without reading their SQL. */
export function shippedMigrations(provider: Provider): string[] {
  return migrationNames(migrationsDirFor(provider));
}

/** The list cut after the migration named `last` (all of it when undefined); an unknown name throws. */
export function migrationsThrough(list: MigrationList, last: string | undefined): MigrationList {
  if (last === undefined) return list;
  const index = list.migrationDirectories.findIndex((directory) => directory.path === last);
  if (index < 0) throw new Error(`no migration ${last} in ${list.baseDir}`);
  return { ...list, migrationDirectories: list.migrationDirectories.slice(0, index + 1) };
}
