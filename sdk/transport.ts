import { ERROR_STATUS_HTTP, ZErrorEnvelope } from '../contract/common/errors.js';
import { CollabError, CollabNetworkError, CollabResponseError, CollabTimeoutError, type CallInfo } from './errors.js';

/** When and how a failed attempt is tried again (see `retryDelay`). */
export interface RetryOptions {
  /** Attempts after the first; 0 turns retries off. Default 2. */
  maxRetries?: number;
  /** The first backoff's upper bound; each retry doubles it (full jitter: a random wait up to the bound). Default 500 ms. */
  baseDelayMs?: number;
  /** No wait is longer: the backoff stops doubling here, and a `Retry-After` beyond it is not waited for (the error is thrown). Default 30,000 ms. */
  maxDelayMs?: number;
  /** Waits between attempts; rejects with `signal.reason` when the call's signal aborts. For tests. */
  sleep?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
  /** The current time in ms, to turn a `Retry-After` HTTP date into a wait. For tests. Default `Date.now`. */
  now?: () => number;
  /** A number in [0, 1) drawing the jitter. For tests. Default `Math.random`. */
  random?: () => number;
}

/** Per call: the second argument of every method. */
export interface RequestOptions {
  /** Aborts the call, its retries and the waits between them; the call rejects with `signal.reason`. */
  signal?: AbortSignal;
  /** Per attempt, in ms: overrides the client's `timeout`. */
  timeout?: number;
  /** Overrides the client's `retry.maxRetries` for this call. */
  maxRetries?: number;
  /** Extra headers for this call (e.g. its own `x-request-id`). */
  headers?: Record<string, string>;
}

export interface TransportOptions {
  baseUrl: string;
  headers: Record<string, string>;
  fetch: typeof fetch | undefined;
  timeout: number | undefined;
  retry: RetryOptions | undefined;
}

/** The route of an operation as the transport needs it. */
export interface Route {
  method: string;
  path: string;
}

export type Call = (operation: string, route: Route, data: unknown, options: RequestOptions | undefined) => Promise<unknown>;

/**
 * What a call sends instead of `{data}` for an operation whose body is the
 * caller's own JSON (Inbound Workflow Trigger): the path with its parameters
 * and query filled in, and the body's exact text (a signature covers it).
 */
export class RawRequest {
  constructor(
    readonly path: string,
    readonly text: string,
  ) {}
}

const MAX_BODY_IN_ERROR = 2000;

/**
 * Codes of a connection that was never made (Node.js / undici). Only these
 * network failures are retried: every operation is a POST and most write, and
 * a failure after the request may have reached the server (a reset, a
 * timeout) cannot tell whether it was carried out.
 */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * HTTP statuses of a response that is not the API's envelope yet means "try
 * again": the contract's codes of UNAVAILABLE and RESOURCE_EXHAUSTED (from a
 * proxy in front of the server), and a gateway's 502 and 504.
 */
const UNAVAILABLE_HTTP = new Set<number>([ERROR_STATUS_HTTP.UNAVAILABLE, 502, 504]);
const EXHAUSTED_HTTP = ERROR_STATUS_HTTP.RESOURCE_EXHAUSTED;

/** Refuses a URL option that would put a secret into request lines and logs, without repeating it; strips trailing slashes. */
export function checkedUrl(value: string, option: 'baseUrl' | 'jwksUrl'): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`${option} is not an absolute URL (e.g. https://collab.example.com)`);
  }
  if (url.username !== '' || url.password !== '') throw new TypeError(`${option} must not contain credentials`);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`${option} must be an http: or https: URL`);
  return value.replace(/\/+$/, '');
}

/** `Retry-After` as a wait in ms: delta-seconds or an HTTP date; undefined when absent or unreadable. */
function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/**
 * The wait before retrying after `error` (the `attempt`-th try, from 0), or
 * undefined when it is not retried:
 * - UNAVAILABLE (and a proxy's 502/503/504), and a connection never made:
 *   exponential backoff with full jitter, or `Retry-After` when given;
 * - RESOURCE_EXHAUSTED only with a `Retry-After`: the server's rate limits
 *   always send one, while a quota (e.g. the number of judgments an
 *   application may hold) sends none and is not lifted by waiting;
 * - a `Retry-After` longer than `maxDelayMs` is not waited for.
 */
function retryDelay(error: unknown, attempt: number, retry: Required<Pick<RetryOptions, 'baseDelayMs' | 'maxDelayMs' | 'random'>>): number | undefined {
  const retryAfterMs = error instanceof CollabError || error instanceof CollabResponseError ? error.retryAfterMs : undefined;
  const transient =
    (error instanceof CollabError && (error.status === 'UNAVAILABLE' || (error.status === 'RESOURCE_EXHAUSTED' && retryAfterMs !== undefined))) ||
    (error instanceof CollabResponseError && (UNAVAILABLE_HTTP.has(error.httpStatus) || (error.httpStatus === EXHAUSTED_HTTP && retryAfterMs !== undefined))) ||
    (error instanceof CollabNetworkError && error.beforeConnect);
  if (!transient) return undefined;
  if (retryAfterMs !== undefined) return retryAfterMs <= retry.maxDelayMs ? retryAfterMs : undefined;
  return Math.floor(retry.random() * Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** attempt));
}

/** setTimeout as a promise that an abort ends early. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Header names are case-insensitive: lower-cased, a caller's `X-Request-Id` replaces the default instead of doubling it. */
function lowerCased(headers: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
}

function systemCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return typeof cause?.code === 'string' ? cause.code : undefined;
}

/** One operation call: attempts, their timeouts, the waits between them, and the mapping of every outcome to a result or a typed error. */
export function createTransport(options: TransportOptions): Call {
  const retry = {
    maxRetries: options.retry?.maxRetries ?? 2,
    baseDelayMs: options.retry?.baseDelayMs ?? 500,
    maxDelayMs: options.retry?.maxDelayMs ?? 30_000,
    sleep: options.retry?.sleep ?? sleep,
    now: options.retry?.now ?? Date.now,
    random: options.retry?.random ?? Math.random,
  };

  async function attempt(operation: string, url: string, init: RequestInit & { headers: Record<string, string> }, timeout: number | undefined, callerSignal: AbortSignal | undefined): Promise<unknown> {
    const sentId = init.headers['x-request-id'];
    const timeoutSignal = timeout === undefined ? undefined : AbortSignal.timeout(timeout);
    const signals = [callerSignal, timeoutSignal].filter((s): s is AbortSignal => s !== undefined);
    const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];

    let response: Response | undefined;
    let text: string;
    try {
      response = await (options.fetch ?? fetch)(url, { ...init, signal });
      text = await response.text();
    } catch (error) {
      if (callerSignal?.aborted) throw callerSignal.reason;
      const info: CallInfo = { operation, requestId: response?.headers.get('x-request-id') ?? sentId };
      if (timeout !== undefined && timeoutSignal?.aborted) throw new CollabTimeoutError(timeout, info);
      const code = systemCode(error);
      throw new CollabNetworkError(code, response === undefined && code !== undefined && NOT_CONNECTED.has(code), info, error);
    }

    const info = {
      operation,
      requestId: response.headers.get('x-request-id') ?? sentId,
      retryAfterMs: parseRetryAfter(response.headers.get('retry-after'), retry.now()),
    };
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new CollabResponseError(response.status, text.slice(0, MAX_BODY_IN_ERROR), info);
    }
    if (response.status === 200 && typeof body === 'object' && body !== null && 'result' in body) return body.result;
    const envelope = response.status === 200 ? undefined : ZErrorEnvelope.safeParse(body);
    if (envelope?.success) {
      const { status, message, details } = envelope.data.error;
      throw new CollabError(status, message, response.status, details, info);
    }
    throw new CollabResponseError(response.status, text.slice(0, MAX_BODY_IN_ERROR), info);
  }

  return async (operation, route, data, call = {}) => {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
      ...lowerCased(options.headers),
      ...lowerCased(call.headers),
    };
    // One ID for every attempt of the call, so the server's log lines of a retried call can be found together.
    // (randomUUID is missing outside secure contexts in browsers: the server then makes one per attempt.)
    const id = headers['x-request-id'] ?? globalThis.crypto?.randomUUID?.();
    if (id !== undefined) headers['x-request-id'] = id;
    const raw = data instanceof RawRequest ? data : undefined;
    const url = `${options.baseUrl}${raw?.path ?? route.path}`;
    const init = { method: route.method, headers, body: raw?.text ?? JSON.stringify({ data: data ?? {} }) };
    const timeout = call.timeout ?? options.timeout;
    const maxRetries = call.maxRetries ?? retry.maxRetries;

    for (let attemptIndex = 0; ; attemptIndex++) {
      call.signal?.throwIfAborted();
      try {
        return await attempt(operation, url, init, timeout, call.signal);
      } catch (error) {
        if (call.signal?.aborted) throw call.signal.reason;
        const wait = attemptIndex < maxRetries ? retryDelay(error, attemptIndex, retry) : undefined;
        if (wait === undefined) throw error;
        await retry.sleep(wait, call.signal);
      }
    }
  };
}
