import type { ArgType, SqlQueryable } from '@prisma/driver-adapter-utils';
import type { Db } from './client.js';

/**
 * Reads on hot paths, sent to the driver adapter the ORM itself uses (the same
 * connection, the same SQLite gate, the same PostgreSQL pool) instead of
 * through the ORM. A profile of Get Permissions had half of the server's CPU
 * in the ORM's per-query work (building, compiling, interpreting and mapping
 * each query, with its tracing spans): about 250 µs a query against 4 µs for
 * the statement itself, and 3–4 ms more than the statement for a 1,000-row
 * page. Bulk writes go the same way (`execute`, db/bulk.ts); other writes stay
 * with the ORM.
 *
 * Typed at the edge: each read names its columns' kinds (`Shape`), and every
 * value is decoded to one JavaScript type whichever database or path it came
 * from, so both databases give a repo the same record. Inside a unit of work
 * a statement goes to the adapter's own transaction of that unit of work
 * (db/unit-of-work.ts keeps it when the driver starts it): it holds the
 * SQLite gate and sees the unit of work's writes.
 */
export type Kind = 'text' | 'text?' | 'int' | 'int?' | 'bigint' | 'bigint?' | 'bool' | 'bytes' | 'bytes?';
export type Shape = Record<string, Kind>;

type ValueOf<K extends Kind> = K extends 'text'
  ? string
  : K extends 'text?'
    ? string | null
    : K extends 'int'
      ? number
      : K extends 'int?'
        ? number | null
        : K extends 'bigint'
          ? bigint
          : K extends 'bigint?'
            ? bigint | null
            : K extends 'bytes'
              ? Uint8Array
              : K extends 'bytes?'
                ? Uint8Array | null
                : boolean;
export type RowOf<S extends Shape> = { -readonly [K in keyof S]: ValueOf<S[K]> };

export interface DirectReads {
  /** Rows of `sql` (placeholders from rawParams), decoded per `shape`; a column the shape does not name is left out. */
  rows<S extends Shape>(shape: S, sql: string, params: readonly unknown[]): Promise<RowOf<S>[]>;
  /** Runs a statement that returns no rows (db/bulk.ts's writes); how many rows it changed. */
  execute(sql: string, params: readonly unknown[]): Promise<number>;
}

/** What a client needs for direct statements: its adapter, and the transaction of the current unit of work. */
export interface DirectSource {
  adapter(): Promise<SqlQueryable>;
  inTransaction(): boolean;
  /** The driver adapter's transaction of the current unit of work (undefined outside one). */
  transaction(): SqlQueryable | undefined;
  /** Sees each statement's SQL, as the ORM's query log does (OpenOptions.onQuery). */
  onQuery?: (sql: string, via: 'direct') => void;
}

export function directReads(db: Db, source: DirectSource): DirectReads {
  /**
   * Where a statement goes: the unit of work's transaction (it holds the SQLite gate and sees its own
   * writes) or the adapter. Inside a unit of work whose adapter transaction is unknown, nothing: the
   * caller goes through the ORM's raw query on the transaction instead.
   */
  const target = async (): Promise<SqlQueryable | undefined> => {
    if (!source.inTransaction()) return source.adapter();
    return source.transaction();
  };
  // The adapter maps each argument as it does the ORM's (booleans to 1/0 on SQLite included).
  const query = (sql: string, params: readonly unknown[]) => ({ sql, args: [...params], argTypes: params.map(argTypeOf) });

  return {
    async rows(shape, sql, params) {
      const columns = Object.entries(shape);
      const queryable = await target();
      if (queryable === undefined) {
        const rows = (await db.$queryRawUnsafe(sql, ...params)) as Record<string, unknown>[];
        return rows.map((row) => {
          const out: Record<string, unknown> = {};
          for (const [name, kind] of columns) out[name] = decode(kind, row[name], name);
          return out as RowOf<typeof shape>;
        });
      }
      source.onQuery?.(sql, 'direct');
      const result = await queryable.queryRaw(query(sql, params));
      const at = columns.map(([name]) => result.columnNames.indexOf(name));
      const missing = at.indexOf(-1);
      if (missing !== -1) throw new Error(`direct read: the query returns no column ${columns[missing]![0]}`);
      return result.rows.map((values) => {
        const out: Record<string, unknown> = {};
        for (let i = 0; i < columns.length; i++) out[columns[i]![0]] = decode(columns[i]![1], values[at[i]!], columns[i]![0]);
        return out as RowOf<typeof shape>;
      });
    },

    async execute(sql, params) {
      const queryable = await target();
      if (queryable === undefined) return db.$executeRawUnsafe(sql, ...params);
      source.onQuery?.(sql, 'direct');
      return queryable.executeRaw(query(sql, params));
    },
  };
}

function argTypeOf(value: unknown): ArgType {
  const arity = Array.isArray(value) ? 'list' : 'scalar';
  const sample = Array.isArray(value) ? value[0] : value;
  const scalarType =
    typeof sample === 'bigint' ? 'bigint' : typeof sample === 'number' ? (Number.isInteger(sample) ? 'int' : 'float') : typeof sample === 'boolean' ? 'boolean' : 'string';
  return { scalarType, arity };
}

function decode(kind: Kind, value: unknown, column: string): unknown {
  if (value === null || value === undefined) {
    if (kind.endsWith('?')) return null;
    throw new Error(`direct read: column ${column} is null`);
  }
  switch (kind) {
    case 'text':
    case 'text?':
      return String(value);
    case 'int':
    case 'int?':
      return Number(value);
    case 'bigint':
    case 'bigint?':
      return typeof value === 'bigint' ? value : BigInt(value as string | number);
    case 'bool':
      return value === true || value === 1 || value === 1n || value === '1' || value === 't' || value === 'true';
    case 'bytes':
    case 'bytes?':
      // A plain Uint8Array of its own, as the ORM gives (the drivers hand out Buffers, some of them views of a shared pool).
      if (value instanceof Uint8Array) return new Uint8Array(value);
      throw new Error(`direct read: column ${column} is not bytes`);
  }
}
