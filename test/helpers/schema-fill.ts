// A row in every table of whatever schema a database has, without knowing the
// schema: the tables, columns, keys and references are read from the database
// itself (SQLite's pragmas, PostgreSQL's catalogs), the values come from each
// column's declared type. test/db/upgrade-every-table.test.ts fills a database
// at an older set of migrations this way, migrates it and reads it back, so a
// new table or column is covered without anyone writing a case for it.
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import type { ArgScalarType, SqlDriverAdapter, SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { providerOf, sqlitePath } from '../../server/db/adapter.js';

/** What values a column takes, from its declared type. */
export type Kind = 'text' | 'int16' | 'int32' | 'int64' | 'boolean' | 'datetime' | 'float' | 'decimal' | 'bytes' | 'json' | 'enum';

export interface Column {
  name: string;
  /** The type as the database declares it (`BIGINT`, `timestamp without time zone`). */
  declared: string;
  kind: Kind;
  notNull: boolean;
  maxLength?: number;
  enumValues?: string[];
}

export interface ForeignKey {
  columns: string[];
  table: string;
  references: string[];
}

export interface Table {
  name: string;
  columns: Column[];
  primaryKey: string[];
  /** Column sets that must be unique: the primary key and every unique index. */
  unique: string[][];
  foreignKeys: ForeignKey[];
  /** CHECK constraints as the database prints them. */
  checks: string[];
}

export type Schema = Map<string, Table>;
export type Value = string | number | bigint | boolean | Date | Buffer | null;
export type Row = Record<string, Value>;

/** The migration engine's own table: its rows are the history, not data. */
const MIGRATIONS_TABLE = '_prisma_migrations';

// ---------------------------------------------------------------------------
// Reading the schema

/** Every table of the database (but the migration history) with its columns, keys, references and checks. */
export async function describeSchema(url: string): Promise<Schema> {
  return providerOf(url) === 'sqlite' ? describeSqlite(sqlitePath(url)) : describePostgres(url);
}

function sqliteKind(declared: string, where: string): Kind {
  const type = declared.toUpperCase().replace(/\(.*$/, '').trim();
  const kinds: Record<string, Kind> = {
    TEXT: 'text',
    INTEGER: 'int32', // Prisma's Int: 32 bits, though SQLite would store 64
    BIGINT: 'int64',
    BOOLEAN: 'boolean',
    DATETIME: 'datetime',
    REAL: 'float',
    DOUBLE: 'float',
    DECIMAL: 'decimal',
    BLOB: 'bytes',
    JSONB: 'json',
  };
  const kind = kinds[type];
  if (!kind) throw new Error(`${where}: no values known for the SQLite type ${declared}; add it to test/helpers/schema-fill.ts`);
  return kind;
}

function describeSqlite(path: string): Schema {
  const db = new Sqlite(path, { readonly: true, fileMustExist: true });
  try {
    const schema: Schema = new Map();
    const tables = db
      .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> ? ORDER BY name`)
      .all(MIGRATIONS_TABLE) as { name: string; sql: string }[];
    for (const { name, sql } of tables) {
      const info = db.prepare(`SELECT * FROM pragma_table_info(?)`).all(name) as { name: string; type: string; notnull: number; pk: number }[];
      const columns = info.map((c) => ({ name: c.name, declared: c.type, kind: sqliteKind(c.type, `${name}.${c.name}`), notNull: c.notnull === 1 || c.pk > 0 }));
      const primaryKey = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
      const indexes = db.prepare(`SELECT name FROM pragma_index_list(?) WHERE "unique" = 1`).all(name) as { name: string }[];
      const unique = indexes.map((index) => (db.prepare(`SELECT name FROM pragma_index_info(?) ORDER BY seqno`).all(index.name) as { name: string }[]).map((c) => c.name));
      const references = db.prepare(`SELECT * FROM pragma_foreign_key_list(?) ORDER BY id, seq`).all(name) as { id: number; table: string; from: string; to: string }[];
      const foreignKeys = new Map<number, ForeignKey>();
      for (const r of references) {
        const key = foreignKeys.get(r.id) ?? { columns: [], table: r.table, references: [] };
        key.columns.push(r.from);
        key.references.push(r.to);
        foreignKeys.set(r.id, key);
      }
      schema.set(name, { name, columns, primaryKey, unique: withKey(primaryKey, unique), foreignKeys: [...foreignKeys.values()], checks: sqliteChecks(sql) });
    }
    return schema;
  } finally {
    db.close();
  }
}

/** SQLite keeps CHECK constraints only in the CREATE TABLE text: each `CHECK (...)` with balanced parentheses. */
function sqliteChecks(sql: string): string[] {
  const checks: string[] = [];
  for (const match of sql.matchAll(/\bCHECK\s*\(/gi)) {
    let depth = 0;
    for (let i = match.index + match[0].length - 1; i < sql.length; i++) {
      if (sql[i] === '(') depth++;
      if (sql[i] === ')' && --depth === 0) {
        checks.push(sql.slice(match.index, i + 1));
        break;
      }
    }
  }
  return checks;
}

function postgresKind(dataType: string, where: string): Kind {
  const kinds: Record<string, Kind> = {
    text: 'text',
    'character varying': 'text',
    character: 'text',
    smallint: 'int16',
    integer: 'int32',
    bigint: 'int64',
    boolean: 'boolean',
    'timestamp without time zone': 'datetime',
    'timestamp with time zone': 'datetime',
    'double precision': 'float',
    real: 'float',
    numeric: 'decimal',
    bytea: 'bytes',
    json: 'json',
    jsonb: 'json',
    'USER-DEFINED': 'enum',
  };
  const kind = kinds[dataType];
  if (!kind) throw new Error(`${where}: no values known for the PostgreSQL type ${dataType}; add it to test/helpers/schema-fill.ts`);
  return kind;
}

async function describePostgres(url: string): Promise<Schema> {
  return withPgClient(url, async (client) => {
    const schema: Schema = new Map();
    const { rows: columns } = await client.query<{ table: string; column: string; data_type: string; udt_name: string; nullable: boolean; max_length: number | null }>(
      `SELECT c.table_name AS "table", c.column_name AS "column", c.data_type, c.udt_name, c.is_nullable = 'YES' AS nullable, c.character_maximum_length AS max_length
         FROM information_schema.columns c
         JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
        WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' AND c.table_name <> $1
        ORDER BY c.table_name, c.ordinal_position`,
      [MIGRATIONS_TABLE],
    );
    const { rows: enums } = await client.query<{ type: string; labels: string[] }>(
      `SELECT t.typname AS type, array_agg(e.enumlabel::text ORDER BY e.enumsortorder) AS labels FROM pg_enum e JOIN pg_type t ON t.oid = e.enumtypid GROUP BY t.typname`,
    );
    for (const c of columns) {
      const table = schema.get(c.table) ?? { name: c.table, columns: [], primaryKey: [], unique: [], foreignKeys: [], checks: [] };
      const kind = postgresKind(c.data_type, `${c.table}.${c.column}`);
      table.columns.push({
        name: c.column,
        declared: c.data_type === 'USER-DEFINED' ? c.udt_name : c.data_type,
        kind,
        notNull: !c.nullable,
        ...(c.max_length !== null ? { maxLength: c.max_length } : {}),
        ...(kind === 'enum' ? { enumValues: enums.find((e) => e.type === c.udt_name)?.labels ?? [] } : {}),
      });
      schema.set(c.table, table);
    }
    // Unique sets from the indexes: Prisma makes @unique and @@unique as unique indexes, not constraints.
    const { rows: indexes } = await client.query<{ table: string; primary: boolean; columns: string[] }>(
      `SELECT t.relname AS "table", i.indisprimary AS "primary", array_agg(a.attname::text ORDER BY k.ord) AS columns
         FROM pg_index i
         JOIN pg_class t ON t.oid = i.indrelid
         JOIN pg_namespace n ON n.oid = t.relnamespace
         CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
         JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
        WHERE n.nspname = current_schema() AND i.indisunique
        GROUP BY t.relname, i.indexrelid, i.indisprimary`,
    );
    for (const index of indexes) {
      const table = schema.get(index.table);
      if (!table) continue;
      if (index.primary) table.primaryKey = index.columns;
      table.unique.push(index.columns);
    }
    const { rows: constraints } = await client.query<{ table: string; type: string; ref: string | null; columns: string[]; refcolumns: string[]; definition: string }>(
      `SELECT t.relname AS "table", c.contype::text AS type, r.relname AS ref, pg_get_constraintdef(c.oid) AS definition,
              array(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(n, o) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.o) AS columns,
              array(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(n, o) JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.o) AS refcolumns
         FROM pg_constraint c
         JOIN pg_class t ON t.oid = c.conrelid
         JOIN pg_namespace n ON n.oid = t.relnamespace
         LEFT JOIN pg_class r ON r.oid = c.confrelid
        WHERE n.nspname = current_schema() AND c.contype IN ('f', 'c')`,
    );
    for (const constraint of constraints) {
      const table = schema.get(constraint.table);
      if (!table) continue;
      if (constraint.type === 'f') table.foreignKeys.push({ columns: constraint.columns, table: constraint.ref!, references: constraint.refcolumns });
      else table.checks.push(constraint.definition);
    }
    return new Map([...schema.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}

function withKey(primaryKey: string[], unique: string[][]): string[][] {
  const sets = primaryKey.length > 0 ? [primaryKey, ...unique] : unique;
  const seen = new Set<string>();
  return sets.filter((set) => !seen.has(set.join('\0')) && seen.add(set.join('\0')));
}

// ---------------------------------------------------------------------------
// Values

/**
 * Rows per table, each with its own purpose:
 * 0. unicode text (accents, CJK, an emoji outside the BMP, quotes, a
 *    backslash, a newline) and the largest values of each integer type;
 * 1. the empty string, empty bytes and the smallest values, a time a
 *    millisecond before the Unix epoch;
 * 2. JSON text in every text column (the JSON columns are TEXT, so the
 *    database cannot say which ones hold JSON: each gets it), a leap day;
 * 3. NULL in every nullable column.
 */
export const ROWS_PER_TABLE = 4;

const TIMES = [
  new Date('2026-11-27T18:54:46.974Z'),
  new Date('1969-12-31T23:59:59.999Z'),
  new Date('2000-02-29T12:00:00.001Z'),
  new Date('2038-01-19T03:14:08.000Z'),
];

function jsonText(table: string, column: string): string {
  return JSON.stringify({ table, column, unicode: 'Grüße 🧪 日本語', numbers: [0, -1, 1.5, 9007199254740993n.toString()], nested: { empty: '', none: null, yes: true } });
}

/** The value of `column` in row `row` of `table` (foreign keys are set afterwards from the referenced rows). */
export function valueFor(table: string, column: Column, row: number): Value {
  if (row === 3 && !column.notNull) return null;
  const text = (value: string) => (column.maxLength !== undefined ? value.slice(0, column.maxLength) : value);
  switch (column.kind) {
    case 'text':
      return text([`Grüße «${table}.${column.name}» 日本語 🧪 "double" 'single' \\ back\nslash #0`, '', jsonText(table, column.name), `row 3 of ${table}.${column.name}`][row]!);
    case 'json':
      return [jsonText(table, column.name), '[]', '{"a":[1,{"b":null}]}', '{}'][row]!;
    case 'int16':
      return [32767, -32768, 0, 42][row]!;
    case 'int32':
      return [2147483647, -2147483648, 0, 42][row]!;
    case 'int64':
      return [9223372036854775807n, -9223372036854775808n, 1795805686974n, -1n][row]!;
    case 'boolean':
      return row % 2 === 0;
    case 'datetime':
      return TIMES[row]!;
    case 'float':
      return [1.5, -2.5e-7, 1e300, 0][row]!;
    case 'decimal':
      return ['12345.678901', '-0.000001', '0', '1'][row]!;
    case 'bytes':
      return [Buffer.from([0, 1, 2, 254, 255]), Buffer.alloc(0), Buffer.from(Array.from({ length: 64 }, (_, i) => i * 4)), Buffer.from([7])][row]!;
    case 'enum': {
      const labels = column.enumValues ?? [];
      if (labels.length === 0) throw new Error(`${table}.${column.name}: an enum without labels`);
      return labels[row % labels.length]!;
    }
  }
}

// ---------------------------------------------------------------------------
// Filling

export interface Filled {
  /** Tables in the order they were written: every referenced table before the tables referencing it. */
  order: string[];
  rows: Map<string, Row[]>;
}

/**
 * Values that satisfy the CHECK constraints the generated ones would break,
 * per `Table.column`: none of the shipped migrations declares one, so the
 * rows above satisfy them trivially; a migration that adds one that they break
 * makes the insert fail naming the constraint, and gets its values here.
 */
export type Overrides = Readonly<Record<string, (row: number) => Value>>;

/**
 * Rows for every table of `schema`: ROWS_PER_TABLE each, parents first. A
 * foreign key takes the referenced columns of one of the parent's rows (a
 * different one per row where it can, so that keys made of references stay
 * unique), agreeing with the columns another reference of the row already
 * set; a self-reference points at its own row. Throws, naming the table,
 * where the rows cannot satisfy a unique set or the references form a cycle.
 */
export function rowsFor(schema: Schema, overrides: Overrides = {}): Filled {
  const order = parentsFirst(schema);
  const rows = new Map<string, Row[]>();
  for (const name of order) {
    const table = schema.get(name)!;
    const generated: Row[] = [];
    for (let i = 0; i < ROWS_PER_TABLE; i++) {
      const row: Row = {};
      for (const column of table.columns) {
        const override = overrides[`${name}.${column.name}`];
        row[column.name] = override ? override(i) : valueFor(name, column, i);
      }
      const fixed = new Set<string>();
      // References with more columns first: they pin the columns shorter ones must then agree with.
      const keys = [...table.foreignKeys].sort((a, b) => (a.table === name ? 1 : 0) - (b.table === name ? 1 : 0) || b.columns.length - a.columns.length);
      for (const key of keys) {
        const nullable = key.columns.every((c) => !table.columns.find((column) => column.name === c)!.notNull);
        if (i === 3 && nullable && key.columns.every((c) => !fixed.has(c))) {
          for (const c of key.columns) row[c] = null;
          key.columns.forEach((c) => fixed.add(c));
          continue;
        }
        const parents = key.table === name ? [row] : rows.get(key.table) ?? [];
        const agreeing = parents.filter((parent) => key.columns.every((c, k) => !fixed.has(c) || sameValue(row[c]!, parent[key.references[k]!]!)));
        if (agreeing.length === 0) throw new Error(`${name}: no row of ${key.table} agrees with the columns other references set (${key.columns.join(', ')})`);
        const parent = agreeing[i % agreeing.length]!;
        key.columns.forEach((c, k) => {
          row[c] = parent[key.references[k]!]!;
          fixed.add(c);
        });
      }
      generated.push(row);
    }
    for (const set of table.unique) {
      const seen = new Map<string, number>();
      generated.forEach((row, i) => {
        if (set.some((c) => row[c] === null)) return;
        const tuple = JSON.stringify(set.map((c) => comparable(row[c]!)));
        if (seen.has(tuple)) throw new Error(`${name}: rows ${seen.get(tuple)} and ${i} collide on the unique columns (${set.join(', ')}); teach test/helpers/schema-fill.ts to vary them`);
        seen.set(tuple, i);
      });
    }
    rows.set(name, generated);
  }
  return { order, rows };
}

function sameValue(a: Value, b: Value): boolean {
  return comparable(a) === comparable(b);
}

/** The tables with every table they reference before them (self-references do not count). */
function parentsFirst(schema: Schema): string[] {
  const order: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string, path: string[]) => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') throw new Error(`the references form a cycle (${[...path, name].join(' -> ')}); break it with a nullable column filled afterwards`);
    state.set(name, 'visiting');
    const table = schema.get(name);
    if (!table) throw new Error(`${path.at(-1)} references ${name}, which is not a table`);
    for (const key of table.foreignKeys) if (key.table !== name) visit(key.table, [...path, name]);
    state.set(name, 'done');
    order.push(name);
  };
  for (const name of schema.keys()) visit(name, []);
  return order;
}

const ARG_TYPES: Record<Kind, ArgScalarType> = {
  text: 'string',
  json: 'string',
  int16: 'int',
  int32: 'int',
  int64: 'bigint',
  boolean: 'boolean',
  datetime: 'datetime',
  float: 'float',
  decimal: 'decimal',
  bytes: 'bytes',
  enum: 'enum',
};

function driverFactory(url: string): SqlDriverAdapterFactory {
  return providerOf(url) === 'sqlite' ? new PrismaBetterSqlite3({ url: sqlitePath(url) }) : new PrismaPg({ connectionString: url });
}

/**
 * Writes the rows through Prisma's own driver adapter, so each value is
 * stored as the ORM of that release stored it (a DateTime as ISO text on
 * SQLite, timestamp(3) on PostgreSQL).
 */
export async function writeRows(url: string, schema: Schema, filled: Filled): Promise<void> {
  const sqlite = providerOf(url) === 'sqlite';
  const adapter: SqlDriverAdapter = await driverFactory(url).connect();
  try {
    for (const name of filled.order) {
      const table = schema.get(name)!;
      const names = table.columns.map((c) => `"${c.name}"`).join(', ');
      const placeholders = table.columns.map((_, i) => (sqlite ? '?' : `$${i + 1}`)).join(', ');
      for (const [i, row] of filled.rows.get(name)!.entries()) {
        const args = table.columns.map((c) => row[c.name]!);
        try {
          await adapter.executeRaw({
            sql: `INSERT INTO "${name}" (${names}) VALUES (${placeholders})`,
            args,
            argTypes: table.columns.map((c) => ({ scalarType: ARG_TYPES[c.kind], arity: 'scalar' as const })),
          });
        } catch (error) {
          const checks = table.checks.length > 0 ? ` (its CHECK constraints: ${table.checks.join('; ')}; see Overrides)` : '';
          throw new Error(`writing row ${i} of ${name}${checks}: ${(error as Error).message}`, { cause: error });
        }
      }
    }
  } finally {
    await adapter.dispose();
  }
}

// ---------------------------------------------------------------------------
// Reading back

const PG_INT8 = 20;
const PG_TIMESTAMP = 1114;

/**
 * Every row of each table straight from the driver: 64-bit integers as
 * bigint on both databases, a PostgreSQL `timestamp` (UTC by the schema's
 * convention) as a Date in UTC whatever the process's time zone.
 */
export async function readRows(url: string, tables: readonly string[]): Promise<Map<string, Row[]>> {
  const result = new Map<string, Row[]>();
  if (providerOf(url) === 'sqlite') {
    const db = new Sqlite(sqlitePath(url), { readonly: true, fileMustExist: true });
    try {
      db.defaultSafeIntegers(true);
      for (const table of tables) result.set(table, db.prepare(`SELECT * FROM "${table}"`).all() as Row[]);
    } finally {
      db.close();
    }
    return result;
  }
  const parsers: Record<number, (text: string) => Value> = {
    [PG_INT8]: (text) => BigInt(text),
    [PG_TIMESTAMP]: (text) => new Date(`${text.replace(' ', 'T')}Z`),
  };
  const getTypeParser = ((oid: number, format?: 'text' | 'binary') => parsers[oid] ?? pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser;
  return withPgClient(url, async (client) => {
    for (const table of tables) result.set(table, (await client.query(`SELECT * FROM "${table}"`)).rows as Row[]);
    return result;
  }, { getTypeParser });
}

/**
 * One value as text that is equal for equal values whatever the driver
 * returned: a number and a bigint of the same integer, 1 and true, a Date and
 * the ISO text SQLite keeps it as, bytes as hex.
 */
export function comparable(value: unknown, kind?: Kind): string {
  if (value === null || value === undefined) return String(value);
  if (kind === 'boolean') return value === true || value === 1 || value === 1n ? 'true' : value === false || value === 0 || value === 0n ? 'false' : `not a boolean: ${String(value)}`;
  if (kind === 'datetime') {
    const ms = value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : Number.NaN;
    return Number.isNaN(ms) ? `not a time: ${String(value)}` : new Date(ms).toISOString();
  }
  if (kind === 'float' || kind === 'decimal') return String(Number(value));
  if (value instanceof Date) return value.toISOString();
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return `bytes:${Buffer.from(value).toString('hex')}`;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return String(value);
}

async function withPgClient<T>(url: string, fn: (client: pg.Client) => Promise<T>, types?: { getTypeParser: typeof pg.types.getTypeParser }): Promise<T> {
  const client = new pg.Client({ connectionString: url, ...(types ? { types } : {}) });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
