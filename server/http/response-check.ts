import { isDeepStrictEqual } from 'node:util';
import { isAppRoute, validateResponse, type AppRoute, type AppRouter } from '@ts-rest/core';

/**
 * Whether each answer is checked against the contract before it leaves.
 *
 * `off` (the default): the handlers' types already hold every answer to the
 * contract's response schema at compile time, and parsing the answer again
 * at run time was a third to a half of the CPU of a large list (a profile of
 * Get Permissions 10 x 30: zod's parse of the response took as long as the
 * handler and its queries together).
 *
 * `strict` (every test runs with it, see vitest.config.ts): each answer is
 * parsed with its response schema, a failure is an error as it was with
 * ts-rest's own response validation, and so is an answer that parsing would
 * change (a key the schema strips, a default it fills, a transform). So no
 * answer relies on the parse to drop a field it must not show: what the
 * tests see is what `off` sends.
 */
export type ResponseValidation = 'off' | 'strict';

/** An answer the contract's schema would change: a handler returns more, or other, than the contract says. */
export class ResponseChangedByContract extends Error {
  constructor(route: AppRoute, where: string) {
    super(`the answer of ${route.method} ${route.path} is changed by its response schema at ${where}: the handler must return exactly the contract's shape`);
  }
}

type Handler = (args: never) => Promise<{ status: number; body: unknown }>;

/**
 * Wraps every handler of `router` (ts-rest's implementation object, nested as
 * `contract` is) with the strict check; returns it unchanged when `mode` is off.
 */
export function checkResponses<T>(contract: AppRouter, router: T, mode: ResponseValidation): T {
  if (mode === 'off') return router;
  const wrap = (node: AppRouter, impl: Record<string, unknown>): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(impl)) {
      const route = node[name];
      if (route === undefined) {
        out[name] = value;
      } else if (isAppRoute(route)) {
        const handler = (typeof value === 'function' ? value : (value as { handler: Handler }).handler) as Handler;
        const checked: Handler = async (args) => {
          const result = await handler(args);
          checkAnswer(route, result);
          return result;
        };
        out[name] = typeof value === 'function' ? checked : { ...(value as object), handler: checked };
      } else {
        out[name] = wrap(route, value as Record<string, unknown>);
      }
    }
    return out;
  };
  return wrap(contract, router as Record<string, unknown>) as T;
}

function checkAnswer(route: AppRoute, result: { status: number; body: unknown }): void {
  // Streams and bodies of another content type are sent as they are.
  const responseType = route.responses[result.status] as unknown;
  if (responseType === undefined || (typeof responseType === 'object' && responseType !== null && 'contentType' in responseType)) return;
  if (typeof (result.body as { pipe?: unknown } | null)?.pipe === 'function') return;
  const parsed = validateResponse({ appRoute: route, response: result }) as { body: unknown };
  const sent = asJson(result.body);
  const wanted = asJson(parsed.body);
  if (!isDeepStrictEqual(sent, wanted)) throw new ResponseChangedByContract(route, firstDifference(sent, wanted));
}

/** What the client receives: JSON drops undefined members and turns dates into strings. */
function asJson(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

function firstDifference(a: unknown, b: unknown, path = 'body'): string {
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return `${path} (${JSON.stringify(a)?.slice(0, 80)} → ${JSON.stringify(b)?.slice(0, 80)})`;
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const x = (a as Record<string, unknown>)[key];
    const y = (b as Record<string, unknown>)[key];
    if (!isDeepStrictEqual(x, y)) return firstDifference(x, y, `${path}.${key}`);
  }
  return path;
}
