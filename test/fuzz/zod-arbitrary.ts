import fc from 'fast-check';
import type { z } from 'zod';

/**
 * A zod (v3 API) schema → fast-check arbitrary, for the zod types the contract
 * uses. Two modes:
 * - `valid`: values the schema should accept (refinements are not solved: the
 *   generated value is kept either way and the server decides);
 * - `boundary`: each node is sometimes a value at or just past its limits
 *   (exactly-max and max+1 lengths and sizes, huge/negative/fractional/-0
 *   numbers, unicode, prototype-named keys and IDs, deep nesting).
 *
 * String fields are biased toward a pool of values keyed by field name (the
 * IDs the suite seeded: organizationId, documentId, ...), so a fair share of
 * cases finds its records instead of all being NOT_FOUND.
 */

export type Mode = 'valid' | 'boundary';
export type Pool = ReadonlyMap<string, readonly string[]>;

interface Ctx {
  mode: Mode;
  pool: Pool;
  /** The field name this value sits under (array elements inherit it; `organizationIds` items use the `organizationId` pool too). */
  key: string | undefined;
  depth: number;
}

/** Field names that JavaScript gives a meaning: as keys and as IDs they must be plain data. */
export const PROTO_NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'] as const;

export const UNICODE_SAMPLES = [
  '😀', // astral (a surrogate pair in UTF-16)
  '𝕏𝔸', // astral letters
  'e\u0301', // combining acute accent
  'a\u0300\u0301\u0302\u0303', // stacked combining marks
  '\u202Eevil\u202C', // RTL override
  'שלום', // right-to-left script
  'مرحبا',
  '👨‍👩‍👧‍👦', // ZWJ sequence
  '\u200B', // zero-width space only
  '\uFEFF', // BOM
  '\u0000', // NUL (the server refuses it)
  '\uD800', // lone surrogate (JSON.stringify escapes it; the server refuses it)
  'ǅ', // title-case digraph
  ' ', // blank
  '\t\n\r',
  '../../etc/passwd',
  "' OR 1=1 --",
  '%00',
  '${jndi:ldap://x}',
] as const;

const NUMBER_SAMPLES = [0, -0, -1, 1, 0.5, -0.5, 1e308, -1e308, 5e-324, 2 ** 31, 2 ** 31 - 1, 2 ** 32, 2 ** 53, 2 ** 53 + 2, -(2 ** 53), 2 ** 63, 1e21, 123.456];

export function arbitraryOf(schema: z.ZodTypeAny, mode: Mode, pool: Pool): fc.Arbitrary<unknown> {
  return build(schema, { mode, pool, key: undefined, depth: 0 });
}

function def(schema: z.ZodTypeAny): any {
  return (schema as any)._def;
}

/** Mixes boundary values into a valid arbitrary in boundary mode. */
function withBoundary(ctx: Ctx, valid: fc.Arbitrary<unknown>, boundary: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  if (ctx.mode !== 'boundary') return valid;
  return fc.oneof({ arbitrary: valid, weight: 1 }, { arbitrary: boundary, weight: 1 });
}

function build(schema: z.ZodTypeAny, ctx: Ctx): fc.Arbitrary<unknown> {
  const d = def(schema);
  switch (d.typeName as string) {
    case 'ZodString':
      return stringArb(schema, ctx);
    case 'ZodNumber':
      return numberArb(d, ctx);
    case 'ZodBoolean':
      return withBoundary(ctx, fc.boolean(), fc.constantFrom(0, 1, 'true', null));
    case 'ZodLiteral':
      return withBoundary(ctx, fc.constant(d.value), fc.constantFrom(typeof d.value === 'string' ? d.value.toUpperCase() : String(d.value), `${String(d.value)} `));
    case 'ZodEnum':
      return withBoundary(ctx, fc.constantFrom(...(d.values as string[])), fc.constantFrom('', ...PROTO_NAMES, ...(d.values as string[]).map((v) => v.toUpperCase())));
    case 'ZodNativeEnum':
      return fc.constantFrom(...Object.values(d.values as Record<string, unknown>));
    case 'ZodOptional':
      return fc.option(build(d.innerType, ctx), { nil: undefined, freq: 3 });
    case 'ZodNullable':
      return fc.option(build(d.innerType, ctx), { nil: null, freq: 4 });
    case 'ZodDefault':
    case 'ZodCatch':
      return fc.option(build(d.innerType, ctx), { nil: undefined, freq: 3 });
    case 'ZodReadonly':
    case 'ZodBranded':
      return build(d.innerType ?? d.type, ctx);
    case 'ZodEffects':
      // Refinements and preprocessors: generate for the inner schema, let the server decide.
      return build(d.schema, ctx);
    case 'ZodPipeline':
      return build(d.in, ctx);
    case 'ZodLazy':
      // Recursive schemas: stop recursing past a few levels (an optional field then stays out).
      if (ctx.depth > 4) return fc.constant(undefined);
      return build(d.getter(), { ...ctx, depth: ctx.depth + 1 });
    case 'ZodArray':
      return arrayArb(d, ctx);
    case 'ZodTuple':
      return fc.tuple(...(d.items as z.ZodTypeAny[]).map((item) => build(item, ctx)));
    case 'ZodObject':
      return objectArb(schema, ctx);
    case 'ZodRecord':
      return recordArb(d, ctx);
    case 'ZodUnion':
    case 'ZodDiscriminatedUnion':
      return fc.oneof(...(d.options as z.ZodTypeAny[]).map((option) => build(option, ctx)));
    case 'ZodIntersection':
      return fc.tuple(build(d.left, ctx), build(d.right, ctx)).map(([a, b]) => (isPlainObject(a) && isPlainObject(b) ? { ...a, ...b } : a));
    case 'ZodUnknown':
    case 'ZodAny':
      return withBoundary(ctx, jsonValue(ctx.depth), fc.oneof(deepNesting(), fc.constant(protoKeyed())));
    case 'ZodNull':
      return fc.constant(null);
    case 'ZodUndefined':
      return fc.constant(undefined);
    default:
      throw new Error(`zod-arbitrary: no generator for ${String(d.typeName)}; add one`);
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `organizationIds` → `organizationId`, so list items share the single ID's pool. */
function poolKey(key: string | undefined): string | undefined {
  if (!key) return undefined;
  return key.endsWith('Ids') ? key.slice(0, -1) : key;
}

function stringArb(schema: z.ZodTypeAny, ctx: Ctx): fc.Arbitrary<unknown> {
  const checks = def(schema).checks as { kind: string; value?: number; regex?: RegExp }[];
  let min = 0;
  let max = Infinity;
  const regexes: RegExp[] = [];
  let format: string | undefined;
  for (const check of checks) {
    if (check.kind === 'min') min = Math.max(min, check.value!);
    else if (check.kind === 'max') max = Math.min(max, check.value!);
    else if (check.kind === 'length') min = max = check.value!;
    else if (check.kind === 'regex') regexes.push(check.regex!);
    else if (['email', 'url', 'uuid', 'datetime', 'cuid', 'ulid'].includes(check.kind)) format = check.kind;
  }
  const longest = Math.max(min, Math.min(max, min + 40));
  const fits = (s: string) => s.length >= min && s.length <= max && regexes.every((r) => new RegExp(r.source, r.flags.replace('g', '')).test(s));
  let base: fc.Arbitrary<string>;
  if (format === 'email') base = fc.emailAddress();
  else if (format === 'url') base = fc.webUrl();
  else if (format === 'uuid') base = fc.uuid();
  else if (format === 'datetime') base = fc.date({ noInvalidDate: true }).map((date) => date.toISOString());
  else {
    const plain = fc.string({ minLength: min, maxLength: longest, unit: 'grapheme' });
    // A regex fast-check can generate from (no look-arounds) drives the generation; others filter.
    const matching = regexes.flatMap((regex) => {
      try {
        return [fc.stringMatching(regex)];
      } catch {
        return [];
      }
    });
    base = matching.length > 0 ? fc.oneof(...matching, plain) : plain;
  }
  let valid: fc.Arbitrary<unknown> = base.filter(fits);
  const fromPool = (ctx.pool.get(poolKey(ctx.key) ?? '') ?? []).filter((value) => schema.safeParse(value).success);
  if (fromPool.length > 0) valid = fc.oneof({ arbitrary: fc.constantFrom(...fromPool), weight: 3 }, { arbitrary: valid, weight: 1 });
  const limits: string[] = ['', 'x'.repeat(Math.max(0, min - 1))];
  if (Number.isFinite(max)) limits.push('x'.repeat(max), 'x'.repeat(max + 1), '😀'.repeat(Math.ceil(max / 2) + 1), 'e\u0301'.repeat(Math.ceil(max / 2)));
  else limits.push('x'.repeat(100_000));
  return withBoundary(ctx, valid, fc.constantFrom<unknown>(...limits, ...UNICODE_SAMPLES, ...PROTO_NAMES, ...fromPool.map((value) => `${value}\u0301`)));
}

function numberArb(d: any, ctx: Ctx): fc.Arbitrary<unknown> {
  let min = -Number.MAX_SAFE_INTEGER;
  let max = Number.MAX_SAFE_INTEGER;
  let int = false;
  for (const check of d.checks as { kind: string; value?: number; inclusive?: boolean }[]) {
    if (check.kind === 'min') min = Math.max(min, check.inclusive ? check.value! : check.value! + (Number.isInteger(check.value) ? 1 : Number.EPSILON));
    else if (check.kind === 'max') max = Math.min(max, check.inclusive ? check.value! : check.value! - (Number.isInteger(check.value) ? 1 : Number.EPSILON));
    else if (check.kind === 'int') int = true;
  }
  const valid = int
    ? fc.oneof(fc.integer({ min: Math.ceil(Math.max(min, -(2 ** 31))), max: Math.floor(Math.min(max, 2 ** 31)) }), fc.constantFrom(Math.ceil(min), Math.floor(max)))
    : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
  return withBoundary(ctx, valid, fc.constantFrom<unknown>(min, max, min - 1, max + 1, min - 0.5, max + 0.5, ...NUMBER_SAMPLES, '1', '1e3'));
}

function arrayArb(d: any, ctx: Ctx): fc.Arbitrary<unknown> {
  const min: number = d.exactLength?.value ?? d.minLength?.value ?? 0;
  const max: number = d.exactLength?.value ?? d.maxLength?.value ?? Infinity;
  const item = build(d.type, ctx);
  const valid = fc.array(item, { minLength: min, maxLength: Math.max(min, Math.min(max, 5)) });
  if (ctx.mode !== 'boundary') return valid;
  const sizes = [0, Math.max(0, min - 1)];
  if (Number.isFinite(max)) sizes.push(max, max + 1);
  else sizes.push(1001);
  // Exactly-max and max+1: the same item repeated (an array of 1,000 distinct generated items is slow to shrink),
  // a valid one: boundary items nested in boundary sizes would multiply into gigabytes.
  const sized = fc.tuple(fc.constantFrom(...sizes), build(d.type, { ...ctx, mode: 'valid' })).map(([size, one]) => Array.from({ length: size }, () => one));
  return withBoundary(ctx, valid, fc.oneof(sized, item));
}

function objectArb(schema: z.ZodTypeAny, ctx: Ctx): fc.Arbitrary<unknown> {
  const shape = (schema as z.AnyZodObject).shape as Record<string, z.ZodTypeAny>;
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, field] of Object.entries(shape)) fields[key] = build(field, { ...ctx, key, depth: ctx.depth + 1 });
  const valid = fc.record(fields).map((value) => {
    // fc.record keeps optional fields as `undefined` keys; JSON drops them, as a client would.
    for (const key of Object.keys(value)) if (value[key] === undefined) delete value[key];
    return value;
  });
  if (ctx.mode !== 'boundary') return valid;
  // Prototype-named fields beside the real ones (refused by strict objects, kept as data by free-form ones).
  const extra = fc.tuple(valid, fc.constantFrom(...PROTO_NAMES), jsonValue(2)).map(([value, key, extraValue]) => {
    const out = { ...(value as object) };
    Object.defineProperty(out, key, { value: extraValue, enumerable: true, configurable: true, writable: true });
    return out;
  });
  return fc.oneof({ arbitrary: valid, weight: 3 }, { arbitrary: extra, weight: 1 });
}

function recordArb(d: any, ctx: Ctx): fc.Arbitrary<unknown> {
  const keySchema = d.keyType as z.ZodTypeAny;
  const keyArb = build(keySchema, { ...ctx, key: poolKey(ctx.key), mode: 'valid' }) as fc.Arbitrary<string>;
  const value = build(d.valueType, { ...ctx, depth: ctx.depth + 1 });
  const valid = fc.array(fc.tuple(keyArb, value), { maxLength: 4 }).map(entriesToObject);
  if (ctx.mode !== 'boundary') return valid;
  const protoKeys = fc.array(fc.tuple(fc.constantFrom<string>(...PROTO_NAMES), value), { minLength: 1, maxLength: 3 }).map(entriesToObject);
  const many = fc.tuple(fc.constantFrom(31, 101, 1001), build(d.valueType, { ...ctx, mode: 'valid', depth: ctx.depth + 1 })).map(([size, one]) => entriesToObject(Array.from({ length: size }, (_, i) => [`k${i}`, one])));
  return fc.oneof({ arbitrary: valid, weight: 2 }, { arbitrary: protoKeys, weight: 1 }, { arbitrary: many, weight: 1 });
}

/** An object with own enumerable keys exactly as given, `__proto__` included (JSON.stringify then writes it). */
function entriesToObject(entries: [string, unknown][]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries) Object.defineProperty(out, key, { value, enumerable: true, configurable: true, writable: true });
  return out;
}

function protoKeyed(): Record<string, unknown> {
  return entriesToObject(PROTO_NAMES.map((name) => [name, { [name]: name }]));
}

/** Any JSON value, shallow. */
export function jsonValue(depth: number): fc.Arbitrary<unknown> {
  return fc.jsonValue({ maxDepth: Math.max(1, 3 - depth) });
}

/**
 * Arrays or objects nested thousands deep: parsers and validators that
 * recurse must not crash. JSON.stringify itself overflows the stack on such a
 * value, so the value is a placeholder string that `toJsonText` expands.
 */
export function deepNesting(): fc.Arbitrary<unknown> {
  return fc.tuple(fc.constantFrom(50, 1_000, 10_000, 100_000), fc.boolean()).map(([levels, objects]) => `${DEEP_MARK}${levels}:${objects ? 'o' : 'a'}${DEEP_MARK}`);
}

const DEEP_MARK = '\u0001deep\u0001';
const DEEP_PLACEHOLDER = /"\\u0001deep\\u0001(\d+):([oa])\\u0001deep\\u0001"/g;

/** JSON text of a generated value, with deep-nesting placeholders expanded. */
export function toJsonText(value: unknown): string {
  return JSON.stringify(value).replace(DEEP_PLACEHOLDER, (_, levels: string, kind: string) => {
    const n = Number(levels);
    return kind === 'o' ? `${'{"a":'.repeat(n)}"leaf"${'}'.repeat(n)}` : `${'['.repeat(n)}"leaf"${']'.repeat(n)}`;
  });
}
