import { isAppRoute, type AppRoute, type AppRouter } from '@ts-rest/core';
import { z } from 'zod';
import { contract, type Contract } from '../contract/index.js';
import { checkedUrl, createTransport, RawRequest, type Call, type RequestOptions, type RetryOptions } from './transport.js';

export { contract } from '../contract/index.js';
export type { Contract, ErrorStatus } from '../contract/index.js';
export { CollabError, CollabNetworkError, CollabResponseError, CollabTimeoutError, UserTokenError, WebhookVerificationError } from './errors.js';
export type { CallInfo } from './errors.js';
export type { RequestOptions, RetryOptions } from './transport.js';
export { applicationAudience, verifyUserToken, type UserTokenClaims, type VerifyUserTokenOptions } from './user-token.js';
export { isWebhookEvent, verifyWebhook, type EventPayload, type EventType, type WebhookEvent, type WebhookEventOf, type WebhookHeaders } from './webhooks.js';

/** Credentials: the application pair for most operations, the workspace pair for /v2/workspace management. */
export interface ClientOptions {
  /** The server's address, e.g. `https://collab.example.com` (a path prefix is kept). */
  baseUrl: string;
  apiKey?: string;
  authToken?: string;
  workspaceId?: string;
  workspaceAuthToken?: string;
  /** Extra headers sent on every request. */
  headers?: Record<string, string>;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Per attempt, in ms, until the whole response is read; none by default. A timed-out attempt throws CollabTimeoutError and is not retried. */
  timeout?: number;
  /** Retries of UNAVAILABLE, rate-limited and never-connected attempts; see RetryOptions. */
  retry?: RetryOptions;
}

/** The `data` of an operation's request, e.g. `OperationData<Contract['comments']['getComments']>`. */
export type OperationData<R extends AppRoute> = R extends { body: z.ZodTypeAny } ? z.input<R['body']>['data'] : never;
/** The `result` of an operation's success response. */
export type OperationResult<R extends AppRoute> = R['responses'][200] extends z.ZodTypeAny ? z.output<R['responses'][200]>['result'] : never;
/**
 * The item type of a paged list: an operation is paged when its result has
 * `pageToken` beside the `data` array (the contract's pagedResultOf) and its
 * data takes `pageToken` back.
 */
export type PageItem<R extends AppRoute> =
  OperationResult<R> extends { data: Array<infer Item>; pageToken: string | null } ? ('pageToken' extends keyof OperationData<R> ? Item : never) : never;

type Args<R extends AppRoute> = {} extends OperationData<R>
  ? [data?: OperationData<R>, options?: RequestOptions]
  : [data: OperationData<R>, options?: RequestOptions];

/** What a paged operation adds to its method. Both follow `pageToken` until it is null, with the same data and options on every page. */
export interface Paging<R extends AppRoute> {
  /** Each page's whole result (`data`, `pageToken`, ...). A `pageToken` in `data` starts there. */
  pages(...args: Args<R>): AsyncGenerator<OperationResult<R>, void, undefined>;
  /** Each item of each page, in the server's order. */
  iterate(...args: Args<R>): AsyncGenerator<PageItem<R>, void, undefined>;
}

/** One operation: resolves to its `result`; throws CollabError and the other errors of this package. */
export type Operation<R extends AppRoute> = ((...args: Args<R>) => Promise<OperationResult<R>>) & ([PageItem<R>] extends [never] ? unknown : Paging<R>);

/**
 * The request of an operation whose body is the caller's own JSON, not
 * `{data}` (Inbound Workflow Trigger): its path parameters, query and body,
 * extra headers, and the secret that signs the body as sent.
 */
export interface RawRequestOf<R extends AppRoute> {
  params: R extends { pathParams: z.ZodTypeAny } ? z.input<R['pathParams']> : never;
  query?: R extends { query: z.ZodTypeAny } ? z.input<R['query']> : never;
  body: R extends { body: z.ZodTypeAny } ? z.input<R['body']> : never;
  /** E.g. `x-workflow-event`, `webhook-id`. */
  headers?: Record<string, string>;
  /** Adds `x-workflow-signature: sha256=<hex>`, the HMAC-SHA256 of the body's exact text with this secret (the trigger's). */
  signingSecret?: string;
}

/** An operation taking a RawRequestOf: resolves to its `result`, throws as the others. */
export type RawOperation<R extends AppRoute> = (request: RawRequestOf<R>, options?: RequestOptions) => Promise<OperationResult<R>>;

/** One method per operation, grouped like the contract: `client.workspace.getActivityConfig()`. */
export type Client<R extends AppRouter = Contract> = {
  [K in keyof R]: R[K] extends AppRoute ? (R[K] extends { pathParams: z.ZodTypeAny } ? RawOperation<R[K]> : Operation<R[K]>) : R[K] extends AppRouter ? Client<R[K]> : never;
};

/** `sha256=<hex>` of `text` with `secret` (Web Crypto, so the SDK runs in browsers and Node alike). */
export async function signInboundBody(secret: string, text: string): Promise<string> {
  const encoder = new TextEncoder();
  const key = await globalThis.crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const signature = new Uint8Array(await globalThis.crypto.subtle.sign('HMAC', key, encoder.encode(text)));
  return `sha256=${Array.from(signature, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/** The path with its `:name` parameters filled in (percent-encoded) and the query appended. */
function filledPath(path: string, params: Record<string, unknown>, query: Record<string, unknown> | undefined): string {
  const filled = path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => encodeURIComponent(String(params[name] ?? '')));
  const search = new URLSearchParams(Object.entries(query ?? {}).filter(([, value]) => value !== undefined).map(([name, value]): [string, string] => [name, String(value)]));
  const text = search.toString();
  return text === '' ? filled : `${filled}?${text}`;
}

function rawMethod(call: Call, name: string, route: AppRoute) {
  return async (request: RawRequestOf<AppRoute>, options?: RequestOptions) => {
    const text = JSON.stringify(request.body);
    const headers = { ...options?.headers, ...request.headers };
    if (request.signingSecret !== undefined) headers['x-workflow-signature'] = await signInboundBody(request.signingSecret, text);
    return call(name, route, new RawRequest(filledPath(route.path, request.params as Record<string, unknown>, request.query as Record<string, unknown> | undefined), text), { ...options, headers });
  };
}

/** The object schema inside zod wrappers (refinements, descriptions), or undefined. */
function objectShape(schema: unknown): z.ZodRawShape | undefined {
  let current = schema;
  while (current instanceof z.ZodEffects) current = current.innerType();
  return current instanceof z.ZodObject ? (current.shape as z.ZodRawShape) : undefined;
}

/** The runtime twin of PageItem: read off the route's schemas. */
function isPaged(route: AppRoute): boolean {
  const result = objectShape(objectShape(route.responses[200])?.result);
  const data = objectShape(objectShape('body' in route ? route.body : undefined)?.data);
  return result?.pageToken !== undefined && result.data instanceof z.ZodArray && data?.pageToken !== undefined;
}

function paging(call: Call, name: string, route: AppRoute) {
  async function* pages(data?: unknown, options?: RequestOptions): AsyncGenerator<unknown, void, undefined> {
    let request = { ...(data as Record<string, unknown> | undefined) };
    for (;;) {
      const page = (await call(name, route, request, options)) as { pageToken: string | null };
      yield page;
      if (typeof page.pageToken !== 'string') return;
      request = { ...request, pageToken: page.pageToken };
    }
  }
  async function* iterate(data?: unknown, options?: RequestOptions): AsyncGenerator<unknown, void, undefined> {
    for await (const page of pages(data, options)) yield* (page as { data: unknown[] }).data;
  }
  return { pages, iterate };
}

function build(router: AppRouter, call: Call, prefix: string): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(router).map(([key, node]) => {
      if (!isAppRoute(node)) return [key, build(node, call, `${prefix}${key}.`)];
      const name = `${prefix}${key}`;
      if ('pathParams' in node) return [key, rawMethod(call, name, node)];
      const method = (data?: unknown, options?: RequestOptions) => call(name, node, data, options);
      return [key, isPaged(node) ? Object.assign(method, paging(call, name, node)) : method];
    }),
  );
}

/** The typed client on the contract: returns `result` on success, throws CollabError and the other errors of this package otherwise. */
export function createClient(options: ClientOptions): Client {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey !== undefined) headers['x-service-api-key'] = options.apiKey;
  if (options.authToken !== undefined) headers['x-service-auth-token'] = options.authToken;
  if (options.workspaceId !== undefined) headers['x-service-workspace-id'] = options.workspaceId;
  if (options.workspaceAuthToken !== undefined) headers['x-service-workspace-auth-token'] = options.workspaceAuthToken;
  const call = createTransport({ baseUrl: checkedUrl(options.baseUrl, 'baseUrl'), headers, fetch: options.fetch, timeout: options.timeout, retry: options.retry });
  return build(contract, call, '') as Client;
}

/** The WebSocket document name of an editor (`<organizationId>/<documentId>/<editorId>`, parts percent-encoded), for the Hocuspocus provider's `name`. */
export { documentNameOf as crdtDocumentName } from '../contract/crdt/document-name.js';
