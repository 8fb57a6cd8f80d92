import { z } from 'zod';
import { named } from '../common/named.js';

/**
 * The JSON body of every webhook delivery. It is fixed when the message is
 * created: each retry and resend of a message sends the same bytes under the
 * same `webhook-id`.
 */
export const ZWebhookPayload = named('WebhookPayload', z.object({
  event: z.string().describe('The event type, e.g. `comment.add`.'),
  actionType: z.string().describe('What happened: the part of the event type after its last dot, e.g. `add`.'),
  source: z.string().describe('The feature the event belongs to: the part of the event type before its first dot, e.g. `comment`.'),
  data: z.record(z.unknown()).describe("The event's payload (see contract/events.ts), with `actionUser` (the user who acted) when there is one."),
  webhookId: z.string().describe('The message ID, equal to the `webhook-id` header.'),
  timestamp: z.number().int().describe('Unix milliseconds: when the event happened.'),
  metadata: z.object({
    apiKey: z.string().describe('The API key of the application the event belongs to.'),
    organizationId: z.string().nullable(),
    documentId: z.string().nullable(),
  }),
}));
export type TWebhookPayload = z.infer<typeof ZWebhookPayload>;

/** Event types the service itself emits about deliveries. */
export const EXHAUSTED_EVENT = 'message.attempt.exhausted';
/** The default type of Send Test Event. */
export const TEST_EVENT = 'webhook.test';

/** `comment_annotation.status_change` → source `comment_annotation`, actionType `status_change`. */
export function eventParts(type: string): { source: string; actionType: string } {
  const first = type.indexOf('.');
  const last = type.lastIndexOf('.');
  return {
    source: first < 0 ? type : type.slice(0, first),
    actionType: last < 0 ? type : type.slice(last + 1),
  };
}

/** The channels an event is on (see ZChannels): its organization and, when it has one, its document. */
export function eventChannels(organizationId: string | null, documentId: string | null): string[] {
  if (organizationId === null) return [];
  return documentId === null ? [`org:${organizationId}`] : [`org:${organizationId}`, `doc:${organizationId}/${documentId}`];
}
