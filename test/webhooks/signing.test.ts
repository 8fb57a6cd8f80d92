// Signing (Standard Webhooks): the bytes received are the bytes signed, both
// the standardwebhooks and the svix verifier accept them, and after a secret
// rotation each of the two secrets verifies on its own.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { withApiKey } from '../../server/domains/webhooks/messages.js';
import { newSigningSecret, signatureHeader } from '../../server/domains/webhooks/secrets.js';
import { eventually } from '../helpers/eventually.js';
import { startReceiver } from '../helpers/receiver.js';
import { addThreads, createEndpoint, idOf, verifyDelivery } from '../helpers/webhooks.js';
import { startWebhookServer, type WebhookTestServer } from '../helpers/webhook-server.js';

let server: WebhookTestServer;
beforeAll(async () => {
  server = await startWebhookServer({ WEBHOOK_POLL_INTERVAL_MS: '50' });
});
afterAll(() => server?.close());

const db = () => server.running.database.db;

it('sends exactly the stored bytes, signed over those bytes; both verifiers accept them and refuse a changed byte', async () => {
  const receiver = await startReceiver((_req, res) => res.writeHead(200).end('ok'));
  const { ws, client } = await server.webhookApp();
  const endpoint = await createEndpoint(client, { url: receiver.url });
  // Multi-byte UTF-8, a line separator, escapes: any re-encoding between signing and sending would show.
  const text = 'héllo — 🎉 "quoted" \\ back\u2028slash \u00a0 ünïcödé';
  const { messageId } = (await client.webhooks.sendWebhookTestEvent({ endpointId: endpoint.id, data: { text, nested: { n: 1.5, list: [null, true] } } })).data;
  await eventually(() => receiver.received.length === 1, 'the test event');
  const delivery = receiver.received[0]!;

  // Stored without the API key (a credential); sent with it, byte for byte the stored body otherwise.
  const stored = await db().webhookMessage.findUniqueOrThrow({ where: { id: messageId } });
  expect(stored.body).not.toContain(ws.apiKey);
  expect(delivery.raw.equals(Buffer.from(withApiKey(stored.body, ws.apiKey), 'utf8'))).toBe(true);
  expect(delivery.headers['content-length']).toBe(String(delivery.raw.length));
  expect(delivery.headers['content-type']).toBe('application/json');
  expect(delivery.method).toBe('POST');

  const headers = delivery.headers as Record<string, string>;
  expect(headers['webhook-id']).toBe(messageId);
  expect(headers['webhook-timestamp']).toMatch(/^\d+$/);
  expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  // The raw bytes (a Buffer, as express.raw() gives them) and the same bytes as text both verify.
  const payload = new Webhook(endpoint.secret).verify(delivery.raw, headers) as Record<string, any>;
  new Webhook(endpoint.secret).verify(delivery.body, headers);
  new SvixWebhook(endpoint.secret).verify(delivery.raw, headers);
  expect(payload).toEqual({
    event: 'webhook.test',
    actionType: 'test',
    source: 'webhook',
    data: { text, nested: { n: 1.5, list: [null, true] } },
    webhookId: messageId,
    timestamp: Number(stored.createdAt),
    metadata: { apiKey: ws.apiKey, organizationId: null, documentId: null },
  });

  // One changed byte, another secret, or a signature for another id: refused by both.
  const changed = Buffer.from(delivery.raw);
  changed[changed.length - 2] = changed[changed.length - 2]! ^ 1;
  expect(() => new Webhook(endpoint.secret).verify(changed, headers)).toThrow();
  expect(() => new SvixWebhook(endpoint.secret).verify(changed, headers)).toThrow();
  const other = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  expect(() => new Webhook(other).verify(delivery.raw, headers)).toThrow();
  expect(() => new SvixWebhook(other).verify(delivery.raw, headers)).toThrow();
  expect(() => new Webhook(endpoint.secret).verify(delivery.raw, { ...headers, 'webhook-id': 'msg_other' })).toThrow();
});

it('signs with both secrets after a rotation: two v1 signatures, and the old and the new secret each verify', async () => {
  const receiver = await startReceiver((_req, res) => res.writeHead(204).end());
  const { ws, client } = await server.webhookApp();
  const endpoint = await createEndpoint(client, { url: receiver.url });

  await addThreads(client, 'org-s', 'doc-s', 1, 'before');
  await eventually(() => receiver.received.length === 1, 'the delivery before the rotation');
  const before = receiver.received[0]!;
  expect((before.headers['webhook-signature'] as string).split(' ')).toHaveLength(1);
  verifyDelivery(endpoint.secret, before);

  const rotated = (await client.webhooks.rotateWebhookEndpointSecret({ endpointId: endpoint.id })).data;
  expect(rotated.secret).not.toBe(endpoint.secret);
  expect((await client.webhooks.getWebhookEndpointSecret({ endpointId: endpoint.id })).data.secret).toBe(rotated.secret);

  await addThreads(client, 'org-s', 'doc-s', 1, 'after');
  await eventually(() => receiver.received.length === 2, 'the delivery after the rotation');
  const after = receiver.received[1]!;
  const signatures = (after.headers['webhook-signature'] as string).split(' ');
  expect(signatures).toHaveLength(2);
  for (const signature of signatures) expect(signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  const fromOld = verifyDelivery(endpoint.secret, after);
  const fromNew = verifyDelivery(rotated.secret, after);
  expect(fromOld).toEqual(fromNew);
  expect(fromNew.data.annotation.annotationId).toBe('after-0');
  // Each signature belongs to one secret: keeping only the new one still verifies with the new secret only.
  const onlyNew = { ...(after.headers as Record<string, string>), 'webhook-signature': signatures[0]! };
  new Webhook(rotated.secret).verify(after.raw, onlyNew);
  expect(() => new Webhook(endpoint.secret).verify(after.raw, onlyNew)).toThrow();
  expect(idOf(after)).not.toBe(idOf(before));
});

it('signs as the standardwebhooks package does, for every secret given and any body', () => {
  const secrets = [newSigningSecret(), newSigningSecret()];
  const at = new Date(1_767_225_600_123);
  for (const body of ['{}', '{"text":"héllo – ✓ 𝄞"}', 'x'.repeat(70_000)]) {
    expect(signatureHeader(secrets, 'msg_sign', at, body)).toBe(secrets.map((secret) => new Webhook(secret).sign('msg_sign', at, body)).join(' '));
  }
});
