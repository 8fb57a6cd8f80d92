import { z } from 'zod';
import { errorResponses, errorResponsesWithCode } from './errors.js';

/**
 * The request envelope: every parameter sits inside one top-level `data`
 * object. `.strict()` makes a body that is not wrapped in `data`, or that has
 * other top-level keys, an INVALID_ARGUMENT.
 */
export function requestOf<D extends z.ZodTypeAny>(data: D) {
  return z.object({ data }).strict();
}

/**
 * The `data` of an operation's request as the server sees it once parsed
 * (zod's output: defaults filled, transforms applied): what a router hands
 * its service as `body.data`. A service names its input by the route,
 * `DataOf<typeof addComments>`, so the contract stays the one place it is
 * written.
 */
export type DataOf<R extends { body: z.ZodTypeAny }> = z.infer<R['body']>['data'];

/**
 * What the server hands the service of a rawOperation: its path parameters,
 * query, headers and body as parsed, and the body's exact bytes (what its
 * signature covers). Named by the route, as DataOf names an operation's data.
 */
export type RawInputOf<R extends { pathParams: z.ZodTypeAny; query: z.ZodTypeAny; headers: z.ZodTypeAny; body: z.ZodTypeAny }> = {
  params: z.infer<R['pathParams']>;
  query: z.infer<R['query']>;
  headers: z.infer<R['headers']>;
  body: z.infer<R['body']>;
  raw: Uint8Array;
};

/** The success envelope with a payload: `{result:{status:'success', message, data}}`. */
export function resultOf<D extends z.ZodTypeAny>(data: D) {
  return z.object({
    result: z.object({
      status: z.literal('success'),
      message: z.string(),
      data,
    }),
  });
}

/**
 * The success envelope of paged lists: `pageToken` sits beside `data` inside
 * `result`, as the specification shows, and is null on the last page.
 */
export function pagedResultOf<I extends z.ZodTypeAny>(item: I) {
  return z.object({
    result: z.object({
      status: z.literal('success'),
      message: z.string(),
      data: z.array(item),
      pageToken: z.string().nullable().describe('Pass it back to get the next page; null on the last page.'),
    }),
  });
}

/** The success envelope of operations that return no data (e.g. CRDT add/update). */
export function emptyResult() {
  return z.object({
    result: z.object({
      status: z.literal('success'),
      message: z.string(),
    }),
  });
}

/** Who may call an operation; read by the one authentication middleware. */
export type AuthMode =
  /** `x-service-api-key` + `x-service-auth-token`: an application's data. */
  | 'application'
  /** `x-service-workspace-id` + `x-service-workspace-auth-token`: workspace management. */
  | 'workspace'
  /** No credential (Get Email Verification Status, Record Workflow Step Callback: the token in the body is the credential). */
  | 'public'
  /**
   * `x-service-api-key` (or the `apiKey` query parameter) names the
   * application, without an auth token; the operation itself authenticates
   * the request by an HMAC signature of its raw body (Inbound Workflow
   * Trigger: third parties that cannot hold our credentials).
   */
  | 'signedBody';

/** Named rate-limit tiers; see server/http/rate-limits.ts for their numbers. */
export type RateLimitTier = 'standard' | 'emailStatus' | 'ai';

export interface OperationMeta {
  auth: AuthMode;
  rateLimit: RateLimitTier;
  /** The error envelope carries `code`, the HTTP status (Get All User Data); read by the one error handler. */
  numericErrorCode?: true;
  /** A request and its success response, shown in the OpenAPI document and the API reference at /docs. */
  example: OperationExample;
  /**
   * The body is the caller's own JSON object, not `{data}` (rawOperation):
   * its exact bytes are kept for the operation's signature check, and
   * `example.data` is the whole body.
   */
  rawBody?: true;
}

/** `data` of a request and `result` of its success envelope; typed by the operation's own schemas. */
export interface OperationExample<Data = unknown, Result = unknown> {
  data: Data;
  result: Result;
}

type ResultEnvelopeOf<R extends z.ZodTypeAny> = z.input<R> extends { result: infer X } ? X : never;

/**
 * One operation of the REST interface: always POST, body `{data}`, the given
 * success envelope on 200 and the error envelope on every error code.
 */
export function operation<const P extends string, D extends z.ZodTypeAny, R extends z.ZodTypeAny>(def: {
  path: P;
  summary: string;
  description: string;
  auth?: AuthMode;
  rateLimit?: RateLimitTier;
  numericErrorCode?: true;
  data: D;
  result: R;
  /** Required: the API reference shows it. Checked twice: by the compiler against these types, and by test/contract/examples.test.ts against the schemas' refinements. */
  example: OperationExample<z.input<D>, ResultEnvelopeOf<R>>;
}) {
  const metadata: OperationMeta = { auth: def.auth ?? 'application', rateLimit: def.rateLimit ?? 'standard', example: def.example };
  if (def.numericErrorCode) metadata.numericErrorCode = true;
  return {
    method: 'POST' as const,
    path: def.path,
    summary: def.summary,
    description: def.description,
    metadata,
    body: requestOf(def.data),
    responses: { 200: def.result, ...(def.numericErrorCode ? errorResponsesWithCode : errorResponses) },
  };
}

/** `{}` is the whole `data` of operations that take no parameters. */
export const ZNoParams = z.object({}).strict();

/** The same operation at a second path (e.g. a /v2 alias of a /v1 operation). */
export function aliasOf<O extends ReturnType<typeof operation>, const P extends string>(op: O, path: P): Omit<O, 'path'> & { path: P } {
  return { ...op, path, summary: `${op.summary} (alias)`, description: `Alias of ${op.path}. ${op.description}` };
}

/**
 * An operation that takes a third party's own JSON object as its body (no
 * `data` envelope: a sender such as GitHub cannot reshape what it posts),
 * with path and query parameters. Still POST, still the result and error
 * envelopes; the body's exact bytes reach the handler as `req.rawBody`.
 */
export function rawOperation<const P extends string, PP extends z.ZodTypeAny, Q extends z.ZodTypeAny, H extends z.ZodTypeAny, B extends z.ZodTypeAny, R extends z.ZodTypeAny>(def: {
  path: P;
  summary: string;
  description: string;
  auth: AuthMode;
  rateLimit?: RateLimitTier;
  pathParams: PP;
  query: Q;
  headers: H;
  body: B;
  result: R;
  example: OperationExample<z.input<B>, ResultEnvelopeOf<R>> & { params: z.input<PP>; query?: z.input<Q>; headers?: z.input<H> };
}) {
  const metadata: OperationMeta = { auth: def.auth, rateLimit: def.rateLimit ?? 'standard', example: def.example, rawBody: true };
  return {
    method: 'POST' as const,
    path: def.path,
    summary: def.summary,
    description: def.description,
    metadata,
    pathParams: def.pathParams,
    query: def.query,
    headers: def.headers,
    body: def.body,
    responses: { 200: def.result, ...errorResponses },
  };
}
