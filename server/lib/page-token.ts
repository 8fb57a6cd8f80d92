import { z } from 'zod';
import { DEFAULT_PAGE_SIZE } from '../../contract/common/paging.js';
import { invalidArgument } from './app-error.js';
import { constantTimeEqual, mac } from './crypto.js';

/** A keyset position: the sort key of the last item returned. */
export interface Cursor {
  at: number;
  id: string;
}

/** A cursor as a token carries it: `[at, id]`. */
export const ZCursorTuple = z.tuple([z.number(), z.string()]);

/**
 * Opaque page tokens: a keyset cursor plus the query it belongs to, with an
 * HMAC so a forged, altered or reused-for-another-query token is a clear
 * INVALID_ARGUMENT instead of a wrong page. Keyset paging costs the same on
 * page 1 and page 10,000 and never skips or repeats a row while rows are added.
 */
export function createPageTokens(key: Buffer) {
  const refused = () => invalidArgument('pageToken is not valid for this request: pass the pageToken of the previous page of the same query');

  /** Any JSON value, bound to `scope` by the HMAC. */
  function seal(scope: string, value: unknown): string {
    const body = Buffer.from(JSON.stringify(value)).toString('base64url');
    return `${body}.${mac(key, `${scope}\n${body}`)}`;
  }

  /** The value of a token sealed for `scope`; INVALID_ARGUMENT when forged, altered, of another query, or not of `schema`'s shape. */
  function open<T>(scope: string, token: string, schema: z.ZodType<T>): T {
    const [body, tag, extra] = token.split('.');
    if (!body || !tag || extra !== undefined || !constantTimeEqual(tag, mac(key, `${scope}\n${body}`))) throw refused();
    let value: unknown;
    try {
      value = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      throw refused();
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw refused();
    return parsed.data;
  }

  const tokens = {
    seal,
    open,

    encode(scope: string, cursor: Cursor): string {
      return seal(scope, [cursor.at, cursor.id]);
    },

    decode(scope: string, token: string | undefined): Cursor | undefined {
      if (token === undefined) return undefined;
      const [at, id] = open(scope, token, ZCursorTuple);
      return { at, id };
    },
  };
  return {
    ...tokens,

    /**
     * One page of a keyset-paged list: fetches `pageSize + 1` rows after the
     * request's cursor and returns the page with the next token (null on the
     * last page). `scope` names the query (tenant, filters), so a token only
     * works for the query that produced it.
     */
    async page<T>(
      scope: string,
      request: { pageSize?: number; pageToken?: string },
      fetch: (after: Cursor | undefined, take: number) => Promise<T[]>,
      cursorOf: (row: T) => Cursor,
    ): Promise<{ items: T[]; pageToken: string | null }> {
      const pageSize = request.pageSize ?? DEFAULT_PAGE_SIZE;
      const rows = await fetch(tokens.decode(scope, request.pageToken), pageSize + 1);
      return pageOf(rows, pageSize, cursorOf, (cursor) => tokens.encode(scope, cursor));
    },
  };
}

export type PageTokens = ReturnType<typeof createPageTokens>;

/**
 * Splits a fetched page of `pageSize + 1` rows into the page and the token of
 * the next one (null when this was the last page).
 */
function pageOf<T>(rows: T[], pageSize: number, cursorOf: (row: T) => Cursor, encode: (c: Cursor) => string) {
  const items = rows.slice(0, pageSize);
  const last = items[items.length - 1];
  return { items, pageToken: rows.length > pageSize && last !== undefined ? encode(cursorOf(last)) : null };
}

/**
 * The keyset condition of the rows after `cursor` in (time, id) order, for a
 * Prisma `where`. The bare `gte`/`lte` on the time lets the database seek to
 * the cursor in its (…, time, id) index (with the OR alone it reads every row
 * before it, and page 1,000 costs a thousand pages); the OR only sorts out
 * rows of that one instant. `value` turns the cursor's number into the
 * column's type (BigInt milliseconds, or a Date).
 */
export function keysetAfter(
  cursor: Cursor | undefined,
  value: (at: number) => bigint | Date,
  options: { order?: 'asc' | 'desc'; at?: string; id?: string } = {},
): Record<string, unknown> {
  if (!cursor) return {};
  const { order = 'asc', at: atField = 'createdAt', id: idField = 'id' } = options;
  const at = value(cursor.at);
  const beyond = order === 'asc' ? 'gt' : 'lt';
  const from = order === 'asc' ? 'gte' : 'lte';
  return { [atField]: { [from]: at }, OR: [{ [atField]: { [beyond]: at } }, { [idField]: { [beyond]: cursor.id } }] };
}
