import { keysetAfter, type Cursor } from '../../../lib/page-token.js';

/** Rows after `after` in (createdAt, id) order: the keyset condition of every paged list. */
export const after = (cursor: Cursor | undefined) => keysetAfter(cursor, (at) => new Date(at));

export const byCreation = [{ createdAt: 'asc' as const }, { id: 'asc' as const }];
