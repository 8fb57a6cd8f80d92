import { Webhook } from 'standardwebhooks';
import type { TUserRef } from '../contract/common/content.js';
import type { EventPayload, EventType } from '../contract/events.js';
import { ZWebhookPayload, type TWebhookPayload } from '../contract/webhooks/payload.js';
import { WebhookVerificationError } from './errors.js';

export type { EventPayload, EventType } from '../contract/events.js';

/** A delivery's headers: a fetch `Headers`, or a plain object such as Node's `req.headers` (names in any case). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** A verified delivery's body. `data` is typed once narrowed by isWebhookEvent. */
export type WebhookEvent = TWebhookPayload;

/** A delivery of one event type of contract/events.ts: its payload, plus the acting user when there is one. */
export type WebhookEventOf<T extends EventType> = Omit<TWebhookPayload, 'event' | 'data'> & {
  event: T;
  data: EventPayload<T> & { actionUser?: TUserRef };
};

const SIGNED_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

function signedHeaders(headers: WebhookHeaders): Record<string, string> {
  const found: Record<string, string> = {};
  if (headers instanceof Headers) {
    for (const name of SIGNED_HEADERS) {
      const value = headers.get(name);
      if (value !== null) found[name] = value;
    }
    return found;
  }
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    // A repeated header (an array) is not a delivery of this server's: left out, so verification refuses it.
    if ((SIGNED_HEADERS as readonly string[]).includes(lower) && typeof value === 'string') found[lower] = value;
  }
  return found;
}

/**
 * Verifies a webhook delivery (Standard Webhooks: the `webhook-id`,
 * `webhook-timestamp` and `webhook-signature` headers, HMAC-SHA256 with the
 * endpoint's `whsec_` secret, a timestamp within 5 minutes) and returns its
 * parsed body. `payload` must be the raw body as received, not a re-serialized
 * object: the signature covers the exact bytes. Throws WebhookVerificationError.
 */
export function verifyWebhook(payload: string | Uint8Array, headers: WebhookHeaders, secret: string): WebhookEvent {
  let verifier: Webhook;
  try {
    verifier = new Webhook(secret);
  } catch {
    throw new TypeError("secret must be the endpoint's signing secret (whsec_...), as Get Advanced Webhook Endpoint Secret returns it");
  }
  let body: string;
  try {
    body = typeof payload === 'string' ? payload : new TextDecoder('utf-8', { fatal: true }).decode(payload);
  } catch (error) {
    throw new WebhookVerificationError('the body is not UTF-8', error);
  }
  try {
    verifier.verify(body, signedHeaders(headers), { jsonParse: false });
  } catch (error) {
    throw new WebhookVerificationError(`the delivery is not verified: ${(error as Error).message}`, error);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    throw new WebhookVerificationError('the body is signed but is not JSON', error);
  }
  // Checked, not parsed: zod would drop fields a newer server adds.
  const check = ZWebhookPayload.safeParse(parsed);
  if (!check.success) throw new WebhookVerificationError(`the body is signed but is not a webhook payload: ${check.error.issues[0]?.path.join('.')} ${check.error.issues[0]?.message}`);
  return parsed as WebhookEvent;
}

/** Narrows a delivery to one event type, typing its `data` from contract/events.ts. */
export function isWebhookEvent<T extends EventType>(event: WebhookEvent, type: T): event is WebhookEvent & WebhookEventOf<T> {
  return event.event === type;
}
