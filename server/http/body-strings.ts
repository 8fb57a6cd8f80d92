import { isUtf8 } from 'node:buffer';

/**
 * Strings that one of the databases cannot store, or would store other than
 * sent, are refused before the body is parsed, for every string of the body
 * (keys included), so no operation or field can forget the check:
 * - NUL: PostgreSQL text cannot hold it (SQLite would);
 * - a lone UTF-16 surrogate (`"\ud800"`): PostgreSQL refuses it, SQLite
 *   stores bytes that read back as something else;
 * - bytes that are not UTF-8: the decoder would silently turn them into
 *   U+FFFD, storing something the client never sent.
 * JSON must be UTF-8 between systems (RFC 8259 §8.1), so other charsets are
 * refused too rather than decoded.
 */

export type BodyStringProblem = 'charset' | 'not-utf8' | 'nul' | 'lone-surrogate';

export const BODY_STRING_ERROR_TYPES: Record<BodyStringProblem, string> = {
  charset: 'charset.unsupported',
  'not-utf8': 'body.not.utf8',
  nul: 'nul.in.body',
  'lone-surrogate': 'lone.surrogate.in.body',
};

const BACKSLASH = 0x5c;
const LETTER_U = 0x75;

/** The express.json `verify` hook: throws an error whose `type` the error handler maps to INVALID_ARGUMENT. */
export function verifyBodyStrings(_req: unknown, _res: unknown, raw: Buffer, encoding: string): void {
  const problem = encoding.toLowerCase() === 'utf-8' ? findBodyStringProblem(raw) : 'charset';
  if (problem) throw Object.assign(new Error(`request body: ${problem}`), { type: BODY_STRING_ERROR_TYPES[problem] });
}

/**
 * Scans JSON text without parsing it. In valid JSON a backslash only occurs
 * inside strings, where it starts an escape; so stepping from backslash to
 * backslash visits every escape exactly once (`\\` is skipped whole). Text
 * that is not valid JSON is left to JSON.parse to refuse.
 */
export function findBodyStringProblem(raw: Buffer): BodyStringProblem | null {
  // Valid UTF-8 never encodes a surrogate, so raw bytes cannot make a lone one.
  if (!isUtf8(raw)) return 'not-utf8';
  // Just past a high-surrogate escape still waiting for its low half, else -1.
  let highEnd = -1;
  for (let i = raw.indexOf(BACKSLASH); i !== -1; ) {
    // The low half must be the very next escape, right after the high one.
    if (highEnd !== -1 && i !== highEnd) return 'lone-surrogate';
    if (raw[i + 1] !== LETTER_U) {
      if (highEnd !== -1) return 'lone-surrogate';
      i = raw.indexOf(BACKSLASH, i + 2);
      continue;
    }
    const unit = hex4(raw, i + 2);
    if (unit === 0) return 'nul';
    const high = unit >= 0xd800 && unit <= 0xdbff;
    const low = unit >= 0xdc00 && unit <= 0xdfff;
    if (highEnd !== -1) {
      if (!low) return 'lone-surrogate';
      highEnd = -1;
    } else if (low) {
      return 'lone-surrogate';
    } else if (high) {
      highEnd = i + 6;
    }
    i = raw.indexOf(BACKSLASH, i + 6);
  }
  return highEnd === -1 ? null : 'lone-surrogate';
}

/** The code unit of four hex digits at `at`, or -1 when they are not (JSON.parse then refuses the text). */
function hex4(raw: Buffer, at: number): number {
  let value = 0;
  for (let k = at; k < at + 4; k++) {
    const c = raw[k];
    let digit: number;
    if (c === undefined) return -1;
    if (c >= 0x30 && c <= 0x39) digit = c - 0x30;
    else if (c >= 0x41 && c <= 0x46) digit = c - 0x37;
    else if (c >= 0x61 && c <= 0x66) digit = c - 0x57;
    else return -1;
    value = value * 16 + digit;
  }
  return value;
}

/**
 * A `__proto__` key anywhere in the body. JSON.parse keeps it as an ordinary
 * key, but every later step (zod's object and record parsing, object spreads,
 * lib0's encoding of collaborative data) drops it or turns it into the
 * object's prototype, so the value would be lost without a word: refused
 * instead, for every operation. (IDs named `__proto__` are refused by the
 * contract's ID schema for the same reason.)
 */
export class ProtoKeyInBody extends Error {
  constructor() {
    super('keys named "__proto__" are not accepted in the request body');
  }
}

/**
 * A number JSON.parse could only read as ±Infinity (`1e400`). JSON.stringify
 * writes it as `null`, in every stored JSON value and every response, so a
 * free-form value would change without a word: refused instead, for every
 * operation.
 */
export class NonFiniteNumberInBody extends Error {
  constructor() {
    super('numbers in the request body must be finite numbers of at most ±1.7976931348623157e308');
  }
}

/** The express.json `reviver`: sees every key and value of the parsed body. */
export function refuseUnstorableValues(key: string, value: unknown): unknown {
  if (key === '__proto__') throw new ProtoKeyInBody();
  if (typeof value === 'number' && !Number.isFinite(value)) throw new NonFiniteNumberInBody();
  return value;
}
