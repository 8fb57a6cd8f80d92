// How tries are recorded: answers any database can store, bodies without
// credentials, and a resend during a try that keeps its fresh schedule.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { startReceiver } from '../helpers/receiver.js';
import { startWebhookServer, type WebhookTestServer } from '../helpers/webhook-server.js';

let server: WebhookTestServer;
beforeAll(async () => {
  server = await startWebhookServer();
});
afterAll(() => server?.close());

async function endpointFor(url: string) {
  const { ws, client } = await server.webhookApp();
  const endpoint = (await client.webhooks.createWebhookEndpoint({ url })).data;
  return { ws, client, endpoint };
}

it('records an answer with NUL bytes (PostgreSQL text cannot hold them) instead of trying again for ever', async () => {
  const receiver = await startReceiver((_req, res) => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.from([0x6f, 0x6b, 0x00, 0xff, 0x00])));
  const { client, endpoint } = await endpointFor(receiver.url);
  const { messageId } = (await client.webhooks.sendWebhookTestEvent({ endpointId: endpoint.id })).data;
  await eventually(async () => (await client.webhooks.getWebhookMessages({ endpointId: endpoint.id })).data[0]?.status === 'succeeded', 'a recorded success');
  const [attempt] = (await client.webhooks.getWebhookAttempts({ endpointId: endpoint.id, messageId })).data;
  expect(attempt).toMatchObject({ status: 'succeeded', responseStatusCode: 200 });
  expect(attempt!.response).not.toContain('\u0000');
  expect(receiver.received).toHaveLength(1);
});

it('keeps the API key out of stored bodies and puts it into what is sent and listed', async () => {
  const receiver = await startReceiver((_req, res) => res.writeHead(204).end());
  const { ws, client, endpoint } = await endpointFor(receiver.url);
  const { messageId } = (await client.webhooks.sendWebhookTestEvent({ endpointId: endpoint.id, data: { note: '"metadata":{"apiKey":""' } })).data;
  await eventually(() => receiver.received.length === 1, 'the delivery');
  const stored = await server.running.database.db.webhookMessage.findUniqueOrThrow({ where: { id: messageId } });
  expect(stored.body).not.toContain(ws.apiKey);
  const sent = JSON.parse(receiver.received[0]!.body);
  expect(sent.metadata.apiKey).toBe(ws.apiKey);
  expect(sent.data).toEqual({ note: '"metadata":{"apiKey":""' });
  const [listed] = (await client.webhooks.getWebhookMessages({ endpointId: endpoint.id })).data;
  expect(listed!.payload).toEqual(sent);
});

it('a resend during a try is not overwritten by that try: the message goes out again', async () => {
  let answer: (() => void) | undefined;
  const receiver = await startReceiver((_req, res) => {
    if (answer === undefined) answer = () => res.writeHead(500).end();
    else res.writeHead(204).end();
  });
  const { client, endpoint } = await endpointFor(receiver.url);
  const { messageId } = (await client.webhooks.sendWebhookTestEvent({ endpointId: endpoint.id })).data;
  await eventually(() => answer !== undefined, 'the first try to arrive');
  await client.webhooks.resendWebhookMessage({ endpointId: endpoint.id, messageId });
  answer!(); // the first try fails only now, after the resend
  await eventually(() => receiver.received.length === 2, 'the resend');
  await eventually(async () => (await client.webhooks.getWebhookMessages({ endpointId: endpoint.id })).data[0]?.status === 'succeeded', 'a recorded success');
  const attempts = (await client.webhooks.getWebhookAttempts({ endpointId: endpoint.id, messageId })).data;
  expect(attempts.map((a) => [a.status, a.trigger])).toEqual([
    ['succeeded', 'manual'],
    ['failed', 'scheduled'],
  ]);
  expect(receiver.received[1]!.headers['webhook-id']).toBe(messageId);
});

it('does not keep the API key in the excerpt of a receiver that echoes the body', async () => {
  const receiver = await startReceiver((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(req.body));
  const { ws, client, endpoint } = await endpointFor(receiver.url);
  const { messageId } = (await client.webhooks.sendWebhookTestEvent({ endpointId: endpoint.id })).data;
  await eventually(async () => (await client.webhooks.getWebhookAttempts({ endpointId: endpoint.id, messageId })).data.length === 1, 'the recorded try');
  const [attempt] = (await client.webhooks.getWebhookAttempts({ endpointId: endpoint.id, messageId })).data;
  expect(JSON.parse(receiver.received[0]!.body).metadata.apiKey).toBe(ws.apiKey);
  expect(attempt!.response).not.toContain(ws.apiKey);
  expect(attempt!.response).toContain('"apiKey":"[apiKey]"');
});
