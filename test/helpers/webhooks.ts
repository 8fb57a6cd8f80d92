import { Webhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import type { Client } from '../../sdk/index.js';
import type { Db } from '../../server/db/client.js';
import type { Received } from './receiver.js';

/** What tests pass to Create Advanced Webhook Endpoint. */
export type EndpointInput = Parameters<Client['webhooks']['createWebhookEndpoint']>[0];

/** Turns advanced webhooks on for the client's application. */
export async function enableWebhooks(client: Client): Promise<void> {
  await client.webhooks.updateAdvancedWebhookConfig({ isEnabled: true });
}

/** Creates an endpoint and reads its signing secret. */
export async function createEndpoint(client: Client, input: EndpointInput): Promise<{ id: string; secret: string }> {
  const endpoint = (await client.webhooks.createWebhookEndpoint(input)).data;
  const { secret } = (await client.webhooks.getWebhookEndpointSecret({ endpointId: endpoint.id })).data;
  return { id: endpoint.id, secret };
}

/**
 * Verifies a received delivery with the standardwebhooks package and the svix
 * package (never our own code), over the exact bytes received; returns the payload.
 */
export function verifyDelivery(secret: string, delivery: Received): Record<string, any> {
  const headers = delivery.headers as Record<string, string>;
  const payload = new Webhook(secret).verify(delivery.raw, headers) as Record<string, any>;
  new SvixWebhook(secret).verify(delivery.raw, headers);
  return payload;
}

/** The webhook-id of a received delivery. */
export const idOf = (delivery: Received) => delivery.headers['webhook-id'] as string;

/** `n` comment threads on one document in one call: one `comment_annotation.add` event each. */
export async function addThreads(client: Client, organizationId: string, documentId: string, n: number, prefix = 'ann'): Promise<void> {
  for (let start = 0; start < n; start += 100) {
    const count = Math.min(100, n - start);
    await client.comments.addCommentAnnotations({
      organizationId,
      documentId,
      commentAnnotations: Array.from({ length: count }, (_, i) => ({
        annotationId: `${prefix}-${start + i}`,
        from: { userId: 'author' },
        commentData: [{ commentText: `comment ${start + i}` }],
      })),
    });
  }
}

/** The deliveries of one endpoint as stored, oldest first. */
export function deliveriesOf(db: Db, endpointId: string) {
  return db.webhookDelivery.findMany({ where: { endpointId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

/** The attempts of one delivery as stored, in the order they were made. */
export function attemptsOf(db: Db, deliveryId: string) {
  return db.webhookAttempt.findMany({ where: { deliveryId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}
