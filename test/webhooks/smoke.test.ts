// End to end: a comment becomes a signed delivery to a real local receiver.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { eventually } from '../helpers/eventually.js';
import { startReceiver } from '../helpers/receiver.js';
import { startWebhookServer, type WebhookTestServer } from '../helpers/webhook-server.js';

let server: WebhookTestServer;
beforeAll(async () => {
  server = await startWebhookServer({ WEBHOOK_POLL_INTERVAL_MS: '50' });
});
afterAll(() => server?.close());

it('delivers a comment event, signed so both verifiers accept it', async () => {
  const receiver = await startReceiver((_req, res) => res.writeHead(204).end());
  const { ws, client } = await server.webhookApp();
  const endpoint = (await client.webhooks.createWebhookEndpoint({ url: receiver.url })).data;
  const { secret } = (await client.webhooks.getWebhookEndpointSecret({ endpointId: endpoint.id })).data;
  await client.comments.addCommentAnnotations({
    organizationId: 'org',
    documentId: 'doc',
    commentAnnotations: [{ annotationId: 'a1', from: { userId: 'ann' }, commentData: [{ commentText: 'hello' }] }],
  });
  await eventually(() => receiver.received.length >= 1);
  const delivery = receiver.received[0]!;
  const headers = delivery.headers as Record<string, string>;
  const payload = new Webhook(secret).verify(delivery.body, headers) as Record<string, any>;
  new SvixWebhook(secret).verify(delivery.body, headers);
  expect(payload.event).toBe('comment_annotation.add');
  expect(payload.webhookId).toBe(headers['webhook-id']);
  expect(payload.metadata).toEqual({ apiKey: ws.apiKey, organizationId: 'org', documentId: 'doc' });
  await eventually(async () => (await client.webhooks.getWebhookAttempts({ endpointId: endpoint.id })).data.length === 1);
  const messages = (await client.webhooks.getWebhookMessages({ endpointId: endpoint.id })).data;
  expect(messages[0]).toMatchObject({ status: 'succeeded', attempts: 1, eventType: 'comment_annotation.add' });
});
