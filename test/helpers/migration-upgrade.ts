// Upgrading a database that holds data: build it as the release before a
// migration left it (the migrations up to the one before), fill it the way
// that release's ORM wrote rows, apply the migration, read every row back.
// A migration that changes a column's type is proven to keep each value this
// way; one case per such migration (see test/db/migration-upgrades.test.ts).
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import type { ArgType, SqlDriverAdapter, SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { providerOf, sqlitePath, type Provider } from '../../server/db/adapter.js';
import { applyMigrations } from '../../server/db/migrate.js';
import { migrationsDirFor, readMigrationsList } from '../../server/db/migrations-folder.js';

/** A value as the older release's ORM handed it to its driver adapter: a Date for a DateTime column. */
export type StoredValue = string | number | bigint | boolean | Date | null;

export interface UpgradeCase {
  /** The migration under test: its directory name, the same in both providers' folders. */
  migration: string;
  /**
   * Rows written just before `migration`, parents before children, each with
   * every column its table has at that point. They go through Prisma's own
   * driver adapter, so a DateTime is stored exactly as the ORM stored it
   * (ISO text on SQLite, timestamp(3) on PostgreSQL).
   */
  rows: ReadonlyArray<{ table: string; values: Record<string, StoredValue> }>;
  /** Per table, the DateTime columns `migration` turns into BigInt Unix milliseconds. */
  toMs: Readonly<Record<string, readonly string[]>>;
}

/** The migration directory just before `migration` (the database an older release left behind). */
export function migrationBefore(provider: Provider, migration: string): string {
  const names = readMigrationsList(migrationsDirFor(provider)).migrationDirectories.map((directory) => directory.path);
  const index = names.indexOf(migration);
  if (index < 0) throw new Error(`no ${provider} migration ${migration}`);
  if (index === 0) throw new Error(`${migration} is the first migration: there is no database before it to fill`);
  return names[index - 1]!;
}

/**
 * Runs the case on an empty database at `url` (SQLite `file:` or
 * PostgreSQL): migrations up to the one before, the rows, then the migration
 * under test (only it, so later migrations cannot hide what it did).
 * Returns what each table holds afterwards and what it must hold, both in
 * comparable form (see comparable()).
 */
export async function upgradeWithRows(url: string, upgrade: UpgradeCase): Promise<{ actual: Record<string, string[]>; expected: Record<string, string[]> }> {
  const provider = providerOf(url);
  await applyMigrations(url, { through: migrationBefore(provider, upgrade.migration) });
  await writeRows(url, upgrade.rows);
  const { applied } = await applyMigrations(url, { through: upgrade.migration });
  if (applied.join() !== upgrade.migration) throw new Error(`expected to apply ${upgrade.migration} alone, applied ${applied.join(', ')}`);

  const tables = [...new Set(upgrade.rows.map((row) => row.table))];
  const actual: Record<string, string[]> = {};
  const expected: Record<string, string[]> = {};
  const read = await readTables(url, tables);
  for (const table of tables) {
    const toMs = new Set(upgrade.toMs[table] ?? []);
    const written = upgrade.rows.filter((row) => row.table === table).map((row) => row.values);
    const columns = Object.keys(written[0]!);
    expected[table] = written.map((values) => comparable(columns, toMs, (column) => expectedAfter(values[column]!, toMs.has(column)))).sort();
    actual[table] = read[table]!.map((values) => comparable(columns, toMs, (column) => values[column])).sort();
  }
  return { actual, expected };
}

/** What a column holds after the migration: a converted DateTime is its Unix ms as a 64-bit integer. */
function expectedAfter(value: StoredValue, converted: boolean): unknown {
  if (!converted) return value;
  if (value === null) return null;
  if (!(value instanceof Date)) throw new Error(`a column converted to milliseconds must be written as a Date or null, got ${typeof value}`);
  return BigInt(value.getTime());
}

/**
 * One row as a line of text, columns in a fixed order. A converted column
 * keeps its JavaScript type (it must read back as a bigint: a 64-bit
 * integer, not text or a float); other columns compare by value, since the
 * drivers return booleans and small integers differently.
 */
function comparable(columns: string[], toMs: Set<string>, valueOf: (column: string) => unknown): string {
  return JSON.stringify(
    columns.map((column) => {
      const value = valueOf(column);
      if (toMs.has(column)) return value === null ? null : `${typeof value}:${String(value)}`;
      if (typeof value === 'boolean') return value ? '1' : '0';
      if (typeof value === 'number' || typeof value === 'bigint') return String(value);
      return value === undefined ? '<missing>' : value;
    }),
  );
}

function argTypeOf(value: StoredValue): ArgType {
  const scalarType =
    value instanceof Date
      ? 'datetime'
      : typeof value === 'boolean'
        ? 'boolean'
        : typeof value === 'bigint'
          ? 'bigint'
          : typeof value === 'number'
            ? 'int'
            : typeof value === 'string'
              ? 'string'
              : 'unknown';
  return { scalarType, arity: 'scalar' };
}

function driverFactory(url: string): SqlDriverAdapterFactory {
  return providerOf(url) === 'sqlite' ? new PrismaBetterSqlite3({ url: sqlitePath(url) }) : new PrismaPg({ connectionString: url });
}

async function writeRows(url: string, rows: UpgradeCase['rows']): Promise<void> {
  const provider = providerOf(url);
  const adapter: SqlDriverAdapter = await driverFactory(url).connect();
  try {
    for (const { table, values } of rows) {
      const columns = Object.keys(values);
      const placeholders = columns.map((_, i) => (provider === 'sqlite' ? '?' : `$${i + 1}`));
      const args = columns.map((column) => values[column]!);
      await adapter.executeRaw({
        sql: `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${placeholders.join(', ')})`,
        args,
        argTypes: args.map(argTypeOf),
      });
    }
  } finally {
    await adapter.dispose();
  }
}

/** Every row of each table, straight from the driver, 64-bit integers as bigint. */
async function readTables(url: string, tables: string[]): Promise<Record<string, Record<string, unknown>[]>> {
  const result: Record<string, Record<string, unknown>[]> = {};
  if (providerOf(url) === 'sqlite') {
    const db = new Sqlite(sqlitePath(url), { readonly: true, fileMustExist: true });
    try {
      db.defaultSafeIntegers(true);
      for (const table of tables) result[table] = db.prepare(`SELECT * FROM "${table}"`).all() as Record<string, unknown>[];
    } finally {
      db.close();
    }
    return result;
  }
  const INT8 = 20;
  const client = new pg.Client({
    connectionString: url,
    types: { getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === INT8 ? (text: string) => BigInt(text) : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser },
  });
  await client.connect();
  try {
    for (const table of tables) result[table] = (await client.query(`SELECT * FROM "${table}"`)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
  return result;
}
