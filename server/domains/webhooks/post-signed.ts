import type { Logger } from 'pino';
import { RESPONSE_EXCERPT_CHARS } from '../../../contract/webhooks/schemas.js';
import type { Clock } from '../../lib/clock.js';
import { OutboundError, postBytes, type PostBytesResult } from '../../lib/outbound-http.js';
import type { ConnectionPools } from './connection-pools.js';
import { standardWebhookHeaders } from './secrets.js';

/** A Retry-After longer than this is treated as this. */
const MAX_RETRY_AFTER_MS = 24 * 3_600_000;
/** Bytes of a receiver's answer read; the rest is dropped. */
const RESPONSE_READ_BYTES = 4096;
const USER_AGENT = 'Collab-Backend-Webhooks/1.0';

/** How a receiver answered one try. */
export type Outcome =
  | { kind: 'success'; status: number; response: string }
  | { kind: 'failure'; status: number | null; response: string; retryAfterMs: number | null; gone: boolean };

/** Retry-After as milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterMs(value: string | string[] | undefined, nowMs: number): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined || raw.trim() === '') return null;
  const text = raw.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(at - nowMs, 0), MAX_RETRY_AFTER_MS);
}

export interface SignedRequest {
  endpointId: string;
  url: string;
  /** Signing secrets, current first. */
  secrets: readonly string[];
  /** The `webhook-id`. */
  messageId: string;
  body: string;
  /** Unix ms: the `webhook-timestamp`. */
  startAt: number;
}

/**
 * One try: the body signed (Standard Webhooks) and POSTed, exactly those
 * bytes, through the address-guarded outbound helper on the endpoint's own
 * connections; the answer read as an outcome. Never throws for what the
 * receiver or the network did: that is a failed try.
 */
export function createSignedPoster(deps: { pools: ConnectionPools; clock: Clock; log: Logger; timeoutMs: number; allowPrivateUrls: boolean }) {
  return async function postSigned(request: SignedRequest): Promise<{ outcome: Outcome; durationMs: number }> {
    const { endpointId, messageId, body } = request;
    const at = new Date(request.startAt);
    const headers = { 'user-agent': USER_AGENT, ...standardWebhookHeaders(request.secrets, messageId, at, body) };
    const started = performance.now();
    let result: PostBytesResult;
    try {
      result = await deps.pools.use(endpointId, (agents) =>
        postBytes(request.url, Buffer.from(body, 'utf8'), {
          headers,
          timeoutMs: deps.timeoutMs,
          allowPrivate: deps.allowPrivateUrls,
          maxResponseBytes: RESPONSE_READ_BYTES,
          truncateResponse: true,
          agents,
        }),
      );
    } catch (error) {
      const durationMs = Math.round(performance.now() - started);
      if (!(error instanceof OutboundError)) throw error;
      if (error.kind === 'blocked' || error.kind === 'network') deps.log.warn({ messageId, endpointId, ...error.detail }, `webhook delivery failed: ${error.message}`);
      return { outcome: { kind: 'failure', status: null, response: error.message, retryAfterMs: null, gone: false }, durationMs };
    }
    const durationMs = Math.round(performance.now() - started);
    // PostgreSQL text cannot hold NUL: an answer with one would make the try unrecordable (and repeated).
    const response = result.text.slice(0, RESPONSE_EXCERPT_CHARS).replaceAll('\u0000', '\uFFFD');
    // 2xx only: a redirect is a failure (following it would skip the address guard).
    if (result.status >= 200 && result.status < 300) return { outcome: { kind: 'success', status: result.status, response }, durationMs };
    return {
      outcome: {
        kind: 'failure',
        status: result.status,
        response,
        retryAfterMs: retryAfterMs(result.headers['retry-after'], deps.clock.nowMs()),
        gone: result.status === 410,
      },
      durationMs,
    };
  };
}

export type PostSigned = ReturnType<typeof createSignedPoster>;
