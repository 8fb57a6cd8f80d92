import { initClient, type AppRoute, type AppRouter } from '@ts-rest/core';
import type { z } from 'zod';
import { contract, type Contract, type ErrorStatus } from '../contract/index.js';

export { contract } from '../contract/index.js';
export type { Contract, ErrorStatus } from '../contract/index.js';

/** Credentials: the application pair for most operations, the workspace pair for /v2/workspace management. */
export interface ClientOptions {
  baseUrl: string;
  apiKey?: string;
  authToken?: string;
  workspaceId?: string;
  workspaceAuthToken?: string;
  /** Extra headers sent on every request (e.g. x-request-id). */
  headers?: Record<string, string>;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
}

/** A failure envelope `{error:{message,status,details}}`, thrown by every method. */
export class CollabError extends Error {
  constructor(
    readonly status: ErrorStatus,
    message: string,
    readonly httpStatus: number,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'CollabError';
  }
}

type DataOf<R extends AppRoute> = R extends { body: z.ZodTypeAny } ? z.input<R['body']>['data'] : never;
type ResultOf<R extends AppRoute> = R['responses'][200] extends z.ZodTypeAny ? z.output<R['responses'][200]>['result'] : never;

/** One method per operation, grouped like the contract: `client.workspace.getActivityConfig()`. */
export type Client<R extends AppRouter = Contract> = {
  [K in keyof R]: R[K] extends AppRoute
    ? {} extends DataOf<R[K]>
      ? (data?: DataOf<R[K]>) => Promise<ResultOf<R[K]>>
      : (data: DataOf<R[K]>) => Promise<ResultOf<R[K]>>
    : R[K] extends AppRouter
      ? Client<R[K]>
      : never;
};

type RawMethod = (args: { body: unknown }) => Promise<{ status: number; body: unknown }>;

/** The typed client on the contract: returns `result` on success, throws CollabError otherwise. */
export function createClient(options: ClientOptions): Client {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey !== undefined) headers['x-service-api-key'] = options.apiKey;
  if (options.authToken !== undefined) headers['x-service-auth-token'] = options.authToken;
  if (options.workspaceId !== undefined) headers['x-service-workspace-id'] = options.workspaceId;
  if (options.workspaceAuthToken !== undefined) headers['x-service-workspace-auth-token'] = options.workspaceAuthToken;
  const fetchImpl = options.fetch ?? fetch;
  const raw = initClient(contract, {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    baseHeaders: headers,
    api: async ({ path, method, headers: h, body }) => {
      const response = await fetchImpl(path, { method, headers: h, body: body as string | undefined });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        // A non-JSON body (e.g. a proxy's error page) is reported below.
      }
      return { status: response.status, body: parsed, headers: response.headers };
    },
  });
  return wrap(raw as unknown as Record<string, unknown>) as Client;
}

function wrap(node: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => {
      if (typeof value !== 'function') return [key, wrap(value as Record<string, unknown>)];
      const method = value as RawMethod;
      return [
        key,
        async (data: unknown = {}) => {
          const { status, body } = await method({ body: { data } });
          if (status === 200) return (body as { result: unknown }).result;
          throw toError(status, body);
        },
      ];
    }),
  );
}

function toError(httpStatus: number, body: unknown): CollabError {
  const error = (body as { error?: { status?: ErrorStatus; message?: string; details?: unknown } } | undefined)?.error;
  if (error?.status && typeof error.message === 'string') return new CollabError(error.status, error.message, httpStatus, error.details);
  return new CollabError(httpStatus >= 500 ? 'UNAVAILABLE' : 'INTERNAL', `unexpected HTTP ${httpStatus} response`, httpStatus, body);
}

/** The WebSocket document name of an editor (`<organizationId>/<documentId>/<editorId>`, parts percent-encoded), for the Hocuspocus provider's `name`. */
export { documentNameOf as crdtDocumentName } from '../contract/crdt/document-name.js';
