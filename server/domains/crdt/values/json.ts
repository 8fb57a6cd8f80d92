import * as Y from 'yjs';
import { CrdtValueError } from './errors.js';
import { MAX_DEPTH } from './limits.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

// In unicode mode a surrogate pair is one code point, so this matches only
// unpaired halves. Yjs encodes strings as UTF-8, which turns those into U+FFFD:
// the value a client receives would differ from the one stored.
const UNPAIRED_SURROGATE = /\p{Cs}/u;

export function checkWellFormed(text: string, path: string): void {
  if (UNPAIRED_SURROGATE.test(text)) {
    throw new CrdtValueError(`${path} contains an unpaired surrogate code unit (U+D800 to U+DFFF), which cannot be stored`);
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

export function memberPath(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/**
 * Checks one entry of a map or array root: a JSON value that survives a trip
 * through Yjs unchanged.
 */
export function checkEntry(value: unknown, path: string): void {
  // Yjs picks the content kind of a map value or array element by
  // `value.constructor`; an own key "constructor" hides it and Yjs throws.
  if (isPlainObject(value) && Object.hasOwn(value, 'constructor')) {
    throw new CrdtValueError(
      `${path} has a key named "constructor", which Yjs cannot store on a map value or array element (it may appear one level deeper)`,
    );
  }
  checkJson(value, path, 1);
}

function checkJson(value: unknown, path: string, depth: number): void {
  if (depth > MAX_DEPTH) throw new CrdtValueError(`${path} is nested more than ${MAX_DEPTH} levels deep`);
  if (value === null || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new CrdtValueError(`${path} must be a finite number`);
    return;
  }
  if (typeof value === 'string') {
    checkWellFormed(value, path);
    return;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) throw new CrdtValueError(`${path}[${i}] must be a JSON value`);
      checkJson(value[i], `${path}[${i}]`, depth + 1);
    }
    return;
  }
  if (isPlainObject(value)) {
    for (const key of Object.keys(value)) {
      // lib0 decodes objects by assignment, so after a sync or a reload this
      // key would set the object's prototype instead of being a property.
      if (key === '__proto__') {
        throw new CrdtValueError(`${path}: keys named __proto__ cannot be stored inside nested values`);
      }
      checkWellFormed(key, `a key of ${path}`);
      checkJson(value[key], memberPath(path, key), depth + 1);
    }
    return;
  }
  throw new CrdtValueError(`${path} must be a JSON value (null, boolean, number, string, array or object)`);
}

/** Assigns as an own property even for keys such as `__proto__`. */
export function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * A deep copy with fresh plain objects, so the caller's value and what the
 * document holds never share structure (Yjs keeps the object it is given).
 * Only own properties are copied: a value decoded by lib0 may carry a
 * prototype that a `__proto__` key turned into.
 */
export function cloneJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(cloneJson);
  if (typeof value === 'object' && value !== null) {
    if (value instanceof Uint8Array) return Array.from(value);
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(value)) defineOwn(copy, key, cloneJson((value as Record<string, unknown>)[key]));
    return copy;
  }
  return value === undefined ? null : value;
}

/** The JSON value of whatever a Y.Map or Y.Array holds, nested shared types included. */
export function plainOf(value: unknown): unknown {
  if (value instanceof Y.Map) {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of value.entries()) defineOwn(out, key, plainOf(inner));
    return out;
  }
  if (value instanceof Y.Array) return value.toArray().map(plainOf);
  if (value instanceof Y.AbstractType) return cloneJson(value.toJSON());
  return cloneJson(value);
}

/**
 * One string per JSON value, equal exactly when the values are equal
 * (object key order ignored): both the equality test and the identity the
 * sequence diff compares.
 */
export function jsonKey(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(jsonKey).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${jsonKey(record[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
