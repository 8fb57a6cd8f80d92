import type { Db } from '../db/client.js';
import { rawParams } from '../db/raw-params.js';
import type { UnitOfWork } from '../db/unit-of-work.js';

/**
 * A column that holds values sealed with the master key, as its domain
 * module declares it (DomainModule.sealed), so that a master-key rotation
 * finds every one of them: test/cli/master-key-rotate.test.ts holds the
 * declarations to prisma/models.prisma.
 */
export interface SealedColumn {
  /** The table and its primary key, as in prisma/models.prisma: rows are visited in key order. */
  table: string;
  key: readonly string[];
  column: string;
  /**
   * For a column of JSON documents with sealed leaves: the stored text with
   * each sealed leaf passed through `reseal`. Absent: the column holds one
   * sealed value (or null, or '' for none).
   */
  leaves?: (stored: string, reseal: (sealed: string) => string) => string;
}

/** The name a rotation reports a column by. */
export const columnName = (c: SealedColumn) => `${c.table}.${c.column}`;

/**
 * Passes every stored value of a column through `reseal`, in batches of
 * `batchSize` rows in key order, each batch in one transaction. A row is
 * written only where the value changed, and only if it still holds what was
 * read: a value a server wrote meanwhile is sealed with the new key already
 * (the rotation's `reseal` phase) and is left as it is. Returns how many
 * rows it rewrote.
 */
export async function resealColumn(
  db: Db,
  uow: UnitOfWork,
  column: SealedColumn,
  reseal: (sealed: string) => string,
  options: { batchSize: number; afterBatch?: (rewritten: number) => void | Promise<void> },
): Promise<number> {
  const ident = (name: string) => `"${name}"`;
  const keys = column.key.map(ident);
  const tuple = (names: string[]) => (names.length === 1 ? names[0]! : `(${names.join(', ')})`);
  let cursor: unknown[] | undefined;
  let rewritten = 0;
  for (;;) {
    const { params, bind } = rawParams(db);
    const after = cursor === undefined ? '' : `AND ${tuple(keys)} > ${tuple(cursor.map(bind))}`;
    const rows = await db.$queryRawUnsafe<Record<string, unknown>[]>(
      `SELECT ${[...keys, ident(column.column)].join(', ')} FROM ${ident(column.table)}
       WHERE ${ident(column.column)} IS NOT NULL AND ${ident(column.column)} <> '' ${after}
       ORDER BY ${keys.join(', ')} LIMIT ${bind(options.batchSize)}`,
      ...params,
    );
    if (rows.length === 0) return rewritten;
    const changes = rows.flatMap((row) => {
      const stored = row[column.column] as string;
      const next = column.leaves ? column.leaves(stored, reseal) : reseal(stored);
      return next === stored ? [] : [{ row, stored, next }];
    });
    if (changes.length > 0) {
      await uow.run(async () => {
        for (const { row, stored, next } of changes) {
          const { params: update, bind: put } = rawParams(db);
          const set = `${ident(column.column)} = ${put(next)}`;
          const where = [...column.key.map((name) => `${ident(name)} = ${put(row[name])}`), `${ident(column.column)} = ${put(stored)}`].join(' AND ');
          rewritten += await db.$executeRawUnsafe(`UPDATE ${ident(column.table)} SET ${set} WHERE ${where}`, ...update);
        }
      });
    }
    await options.afterBatch?.(rewritten);
    const last = rows[rows.length - 1]!;
    cursor = column.key.map((name) => last[name]);
  }
}
