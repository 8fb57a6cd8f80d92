// Keyset paging over times kept as BigInt Unix milliseconds (prisma/models.prisma):
// the order, the condition "after the cursor" and a row's cursor, written once
// for every repo and service that pages by (time, id).
import { keysetAfter, type Cursor } from '../lib/page-token.js';

export type { Cursor };
export type SortOrder = 'asc' | 'desc';

/** (createdAt, id), oldest first unless told: the order of every list paged by creation. */
export function byCreation(order: SortOrder = 'asc'): [{ createdAt: SortOrder }, { id: SortOrder }] {
  return [{ createdAt: order }, { id: order }];
}

/**
 * The rows after `cursor` in (time, id) order for a Prisma `where`, the time
 * a BigInt ms column: `createdAt` and `id` unless named (see keysetAfter for
 * why it is written so that the database seeks to the cursor).
 */
export function afterMs(cursor: Cursor | undefined, options: { order?: SortOrder; at?: string; id?: string } = {}): Record<string, unknown> {
  return keysetAfter(cursor, BigInt, options);
}

/** A row's place in a (time, id) order: its BigInt ms time and its id, as a page token carries them. */
export function cursorAt(at: bigint, id: string): Cursor {
  return { at: Number(at), id };
}

/** The cursor of a row paged by creation. */
export function creationCursor(row: { createdAt: bigint; id: string }): Cursor {
  return cursorAt(row.createdAt, row.id);
}
