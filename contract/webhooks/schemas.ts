import { z } from 'zod';
import { ZId } from '../access/schemas.js';
import { named } from '../common/named.js';

/** Shapes of advanced webhooks: endpoints, the messages sent to them and each delivery attempt. */

export const MAX_ENDPOINT_URL_LENGTH = 2048;
export const MAX_FILTER_TYPES = 100;
export const MAX_CHANNELS = 100;
export const MAX_ENDPOINT_METADATA_KEYS = 50;
export const MAX_ENDPOINT_METADATA_KEY_LENGTH = 256;
export const MAX_ENDPOINT_METADATA_VALUE_LENGTH = 1024;
/** Deliveries per second an endpoint may ask to be limited to (the spec: a positive integer). */
export const MAX_ENDPOINT_RATE_LIMIT = 100_000;
/** How much of a receiver's answer an attempt keeps. */
export const RESPONSE_EXCERPT_CHARS = 1000;

// Service-assigned, but sent back by callers like any ID: `__proto__` is refused as in every ID field.
export const ZEndpointId = ZId.describe('The endpoint ID the service assigned (`ep_…`).');
export const ZMessageId = ZId.describe('The message ID (`msg_…`); it is the `webhook-id` header of every delivery of the message.');

export const ZEndpointUrl = z
  .string()
  .max(MAX_ENDPOINT_URL_LENGTH)
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'must be a valid http(s) URL')
  .describe('Where events are POSTed: an http(s) URL. Unless the server runs with WEBHOOK_ALLOW_PRIVATE_URLS=true, its host must resolve to public addresses only (checked here and again on every delivery).');

const ZEventTypeName = z.string().min(1).max(256);
export const ZFilterTypes = z
  .array(ZEventTypeName)
  .min(1)
  .max(MAX_FILTER_TYPES)
  .describe('Event types delivered to the endpoint (any string, custom types included); non-empty when given; absent or null means every type.');
export const ZChannels = z
  .array(z.string().min(1).max(256))
  .min(1)
  .max(MAX_CHANNELS)
  .describe('Channels delivered to the endpoint; non-empty when given; absent or null means every channel. An event on a document is on the channels `org:<organizationId>` and `doc:<organizationId>/<documentId>`; an organization-level event on `org:<organizationId>` only.');
export const ZRateLimit = z
  .number()
  .int()
  .min(1)
  .max(MAX_ENDPOINT_RATE_LIMIT)
  .describe('At most this many deliveries per second to the endpoint, across all server processes.');
export const ZEndpointUid = z
  .string()
  .min(1)
  .max(256)
  // One pattern (OpenAPI keeps only one): the characters, and not `__proto__`, refused in every ID field.
  .regex(/^(?!__proto__$)[A-Za-z0-9._-]+$/, 'may contain only letters, digits, ".", "_" and "-", and must not be "__proto__"')
  .describe('Your own identifier for the endpoint, unique per application (ALREADY_EXISTS otherwise).');
export const ZEndpointMetadata = z
  .record(z.string().max(MAX_ENDPOINT_METADATA_KEY_LENGTH), z.string().max(MAX_ENDPOINT_METADATA_VALUE_LENGTH))
  .refine((value) => Object.keys(value).length <= MAX_ENDPOINT_METADATA_KEYS, `at most ${MAX_ENDPOINT_METADATA_KEYS} keys`)
  .describe(
    `Your string key/value pairs, returned as given: at most ${MAX_ENDPOINT_METADATA_KEYS} keys of at most ${MAX_ENDPOINT_METADATA_KEY_LENGTH} characters, values of at most ${MAX_ENDPOINT_METADATA_VALUE_LENGTH}.`,
  );

export const ZWebhookEndpoint = named('WebhookEndpoint', z.object({
  id: z.string(),
  url: z.string(),
  description: z.string(),
  filterTypes: z.array(z.string()).nullable(),
  channels: z.array(z.string()).nullable(),
  disabled: z.boolean().describe('A disabled endpoint receives nothing. The service disables an endpoint that answers 410 Gone.'),
  rateLimit: z.number().int().nullable(),
  uid: z.string().nullable(),
  metadata: z.record(z.string()),
  createdAt: z.string().describe('ISO 8601.'),
  updatedAt: z.string().describe('ISO 8601.'),
}));
export type TWebhookEndpoint = z.infer<typeof ZWebhookEndpoint>;

export const ZAdvancedWebhookConfig = named('AdvancedWebhookConfig', z.object({
  isEnabled: z.boolean().describe('Whether events are delivered to the endpoints; endpoints can be created only while enabled.'),
}));

export const ZDeliveryStatus = named(
  'WebhookDeliveryStatus',
  z.enum(['pending', 'succeeded', 'failed', 'canceled']).describe('`pending`: waiting for its next try; `succeeded`: a 2xx answer; `failed`: every try failed, or the endpoint answered 410; `canceled`: the endpoint was disabled before the message got through.'),
);

/** A message as one endpoint sees it: what was sent and how its delivery stands. */
export const ZWebhookMessage = named('WebhookMessage', z.object({
  messageId: z.string(),
  endpointId: z.string(),
  eventType: z.string(),
  status: ZDeliveryStatus,
  attempts: z.number().int().describe('Tries so far (a resend starts counting again).'),
  nextAttemptAt: z.string().nullable().describe('ISO 8601; null unless pending.'),
  createdAt: z.string().describe('ISO 8601: when the event happened.'),
  payload: z.record(z.unknown()).describe('The JSON body every delivery of this message sends (docs/webhooks.md in the repository shows its shape).'),
}));

export const ZWebhookAttempt = named('WebhookAttempt', z.object({
  attemptId: z.string(),
  messageId: z.string(),
  endpointId: z.string(),
  status: z.enum(['succeeded', 'failed']),
  responseStatusCode: z.number().int().nullable().describe('null when no answer came (timeout, connection error, refused address).'),
  response: z.string().describe(`The first ${RESPONSE_EXCERPT_CHARS} characters of the answer's body, or what went wrong when there was none.`),
  durationMs: z.number().int(),
  trigger: z.enum(['scheduled', 'manual']).describe('`manual`: the first try after a resend.'),
  nextAttemptAt: z.string().nullable().describe('ISO 8601: when the delivery is tried again after this failure; null after a success or the last try.'),
  createdAt: z.string().describe('ISO 8601.'),
}));
