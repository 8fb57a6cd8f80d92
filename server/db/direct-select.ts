import type { Cursor } from '../lib/page-token.js';
import { directReadsOf, type Db } from './client.js';
import type { RowOf, Shape } from './direct-reads.js';
import { rawParams } from './raw-params.js';

/** A column's condition: equal to a value (IS NULL for null), or one of a list. */
export type Condition = unknown | { in: readonly unknown[] };

/**
 * One SELECT of a table's rows on a hot path, through the direct reads
 * (db/direct-reads.ts): the conditions the ORM's `findMany` took there, and
 * nothing more (equality, IN, a keyset cursor, an order, a limit), so each
 * converted read says the same as it did. Names are code's, never input's.
 */
export interface Select<S extends Shape> {
  from: string;
  columns: S;
  /** Every condition must hold; an undefined one is left out. */
  where: Record<string, Condition>;
  /** Rows after the cursor in (at, id) order, as keysetAfter (lib/page-token.ts) wrote it for the ORM. */
  after?: { cursor: Cursor | undefined; order: 'asc' | 'desc'; at: string; id: string };
  orderBy?: ReadonlyArray<readonly [string, 'asc' | 'desc']>;
  take?: number;
}

export async function selectRows<S extends Shape>(db: Db, select: Select<S>): Promise<RowOf<S>[]> {
  const { params, bind } = rawParams(db);
  const conditions: string[] = [];
  for (const [column, condition] of Object.entries(select.where)) {
    if (condition === undefined) continue;
    const name = quoted(column);
    if (condition === null) conditions.push(`${name} IS NULL`);
    else if (isList(condition)) conditions.push(condition.in.length === 0 ? 'FALSE' : `${name} IN (${condition.in.map(bind).join(', ')})`);
    else conditions.push(`${name} = ${bind(condition)}`);
  }
  const after = select.after;
  if (after?.cursor !== undefined) {
    const at = BigInt(after.cursor.at);
    const [from, beyond] = after.order === 'asc' ? ['>=', '>'] : ['<=', '<'];
    // The first bound lets the database seek to the cursor along the index (see keysetAfter).
    conditions.push(`${quoted(after.at)} ${from} ${bind(at)} AND (${quoted(after.at)} ${beyond} ${bind(at)} OR ${quoted(after.id)} ${beyond} ${bind(after.cursor.id)})`);
  }
  const sql = [
    `SELECT ${columnList(select.columns)} FROM ${quoted(select.from)}`,
    conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '',
    select.orderBy?.length ? `ORDER BY ${select.orderBy.map(([column, order]) => `${quoted(column)} ${order === 'asc' ? 'ASC' : 'DESC'}`).join(', ')}` : '',
    select.take !== undefined ? `LIMIT ${Math.trunc(select.take)}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return directReadsOf(db).rows(select.columns, sql, params);
}

/** A shape's columns as a SELECT list, for the direct reads whose SQL is written by hand. */
export const columnList = (shape: Shape): string => Object.keys(shape).map(quoted).join(', ');

const isList = (condition: unknown): condition is { in: readonly unknown[] } =>
  typeof condition === 'object' && condition !== null && !Array.isArray(condition) && Array.isArray((condition as { in?: unknown }).in);

function quoted(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`not a column or table name: ${name}`);
  return `"${name}"`;
}
