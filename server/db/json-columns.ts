/**
 * JSON kept in TEXT columns (for portability between SQLite and PostgreSQL):
 * the one encoding the repos write, and a record of the text a row was read
 * with, so a write can tell whether a new value would store different bytes.
 */

/** A JSON column's text; SQL NULL for null. */
export function encodeJson(value: unknown): string | null {
  return value === null ? null : JSON.stringify(value);
}

/** A NOT NULL JSON column's text. */
export function encodeJsonText(value: unknown): string {
  return JSON.stringify(value);
}

/** A user reference as a record stores it: only the fields given, in a fixed order. */
export function userJson(user: { userId: string; name?: string | undefined; email?: string | undefined }): string {
  return JSON.stringify({ userId: user.userId, ...(user.name !== undefined ? { name: user.name } : {}), ...(user.email !== undefined ? { email: user.email } : {}) });
}

/** The JSON text a record was decoded from, per column: kept on the record, unseen by the services. */
const STORED = Symbol('stored JSON text');

export interface StoredJson<K extends string = string> {
  readonly [STORED]?: Readonly<Partial<Record<K, string | null>>>;
}

/** `record` with the text of its JSON columns as read. */
export function withStoredJson<R extends object, K extends string>(record: R, stored: Record<K, string | null>): R & StoredJson<K> {
  return Object.assign(record, { [STORED]: stored });
}

/**
 * Whether storing `value` in `field` would write other text than the column
 * holds now: the comparison is of the encoded bytes, as an update's "did it
 * change" has always been (key order and formatting count). A record that was
 * not read from storage compares with its own value encoded.
 */
export function differsFromStored<R extends StoredJson, K extends keyof R & string>(record: R, field: K, value: R[K]): boolean {
  const stored = record[STORED];
  const text = stored !== undefined && Object.hasOwn(stored, field) ? stored[field] : encodeJson(record[field]);
  return encodeJson(value) !== text;
}
