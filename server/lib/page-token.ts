import { invalidArgument } from './app-error.js';
import { constantTimeEqual, mac } from './crypto.js';

/** A keyset position: the sort key of the last item returned. */
export interface Cursor {
  at: number;
  id: string;
}

/**
 * Opaque page tokens: a keyset cursor plus the query it belongs to, with an
 * HMAC so a forged, altered or reused-for-another-query token is a clear
 * INVALID_ARGUMENT instead of a wrong page. Keyset paging costs the same on
 * page 1 and page 10,000 and never skips or repeats a row while rows are added.
 */
export function createPageTokens(key: Buffer) {
  return {
    encode(scope: string, cursor: Cursor): string {
      const body = Buffer.from(JSON.stringify([cursor.at, cursor.id])).toString('base64url');
      return `${body}.${mac(key, `${scope}\n${body}`)}`;
    },

    decode(scope: string, token: string | undefined): Cursor | undefined {
      if (token === undefined) return undefined;
      const [body, tag, extra] = token.split('.');
      if (!body || !tag || extra !== undefined || !constantTimeEqual(tag, mac(key, `${scope}\n${body}`))) {
        throw invalidArgument('pageToken is not valid for this request: pass the pageToken of the previous page of the same query');
      }
      const [at, id] = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as [number, string];
      return { at, id };
    },
  };
}

export type PageTokens = ReturnType<typeof createPageTokens>;

/**
 * Splits a fetched page of `pageSize + 1` rows into the page and the token of
 * the next one (null when this was the last page).
 */
export function pageOf<T>(rows: T[], pageSize: number, cursorOf: (row: T) => Cursor, encode: (c: Cursor) => string) {
  const items = rows.slice(0, pageSize);
  const last = items[items.length - 1];
  return { items, pageToken: rows.length > pageSize && last !== undefined ? encode(cursorOf(last)) : null };
}
