/**
 * CRDT editor data as JSON values: reading a Y.Doc's root types, checking
 * request values against a type, and writing a whole new value as the
 * smallest edit of what the document holds (Update CRDT Data).
 */
import { prepare } from './check-value.js';
import type { CrdtType } from './root-types.js';

export { CrdtValueError } from './errors.js';
export type { CrdtType } from './root-types.js';
export { readValue } from './read-value.js';
export { clearValue, writeValue } from './write-value.js';

/**
 * Checks that `value` fits `type`: a string for text and xml (xml must
 * parse), a plain object for map, an array for array, built of values that
 * come back unchanged after a sync. Throws CrdtValueError.
 */
export function checkValue(type: CrdtType, value: unknown): void {
  prepare(type, value);
}
