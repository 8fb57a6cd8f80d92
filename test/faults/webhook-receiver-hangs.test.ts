// Webhook receivers that hang: one accepts the TCP connection and never
// answers, one sends its headers and then stalls the body. Each try times out
// (WEBHOOK_TIMEOUT_MS), is recorded as a failure and retried on the schedule;
// a healthy endpoint's deliveries go through meanwhile; and stopping the
// server is held up by a hung try for at most its timeout. Real sockets only.
import { createServer as createHttpServer, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../sdk/index.js';
import { eventually } from '../helpers/eventually.js';
import { startReceiver } from '../helpers/receiver.js';
import { attemptsOf, createEndpoint, deliveriesOf, idOf } from '../helpers/webhooks.js';
import { startWebhookServer, type WebhookTestServer } from '../helpers/webhook-server.js';

const TIMEOUT_MS = 1000;
const sockets = new Set<Socket>();
const closers: (() => Promise<void>)[] = [];

/** Accepts connections, reads what comes, never writes a byte. */
async function silentTcp(): Promise<{ url: string; accepted: () => number }> {
  let accepted = 0;
  const server = createTcpServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, accepted: () => accepted };
}

/** Answers 200 with headers promising 1 KB, sends 10 bytes, then nothing. */
async function stallingBody(): Promise<{ url: string; stalled: () => number }> {
  const held: ServerResponse[] = [];
  const server = createHttpServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '1024' });
    res.write('0123456789');
    held.push(res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, stalled: () => held.length };
}

describe('webhook receivers that hang', () => {
  let server: WebhookTestServer;
  let client: Client;

  beforeAll(async () => {
    server = await startWebhookServer({
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      WEBHOOK_POLL_INTERVAL_MS: '50',
      // The schedule at 1/1000: the first retry after 5 ms, the second after 300 ms.
      WEBHOOK_RETRY_SCALE: '0.001',
    });
    ({ client } = await server.webhookApp());
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await server?.close();
    for (const close of closers.splice(0)) await close();
  });

  it('times each try out, records it as failed, retries it, and does not hold up another endpoint or the shutdown', async () => {
    const silent = await silentTcp();
    const stalling = await stallingBody();
    const healthy = await startReceiver((_req, res) => res.writeHead(204).end());
    const silentEndpoint = await createEndpoint(client, { url: silent.url });
    const stallingEndpoint = await createEndpoint(client, { url: stalling.url });
    const healthyEndpoint = await createEndpoint(client, { url: healthy.url });

    // The hanging endpoints' messages first: a dispatcher that waited on them would hold the healthy ones back.
    for (let i = 0; i < 3; i++) {
      await client.webhooks.sendWebhookTestEvent({ endpointId: silentEndpoint.id, data: { i } });
      await client.webhooks.sendWebhookTestEvent({ endpointId: stallingEndpoint.id, data: { i } });
    }
    await eventually(() => silent.accepted() > 0 && stalling.stalled() > 0, 'both hanging receivers to hold a try');
    for (let i = 0; i < 10; i++) await client.webhooks.sendWebhookTestEvent({ endpointId: healthyEndpoint.id, data: { i } });

    const db = server.running.database.db;
    // A loaded machine may time a healthy try out too and send it again: count messages, not requests.
    await eventually(async () => {
      const deliveries = await deliveriesOf(db, healthyEndpoint.id);
      return deliveries.length === 10 && deliveries.every((d) => d.state === 'succeeded');
    }, 'every healthy delivery to succeed');
    expect(new Set(healthy.received.map(idOf)).size).toBe(10);

    // Every hanging delivery gets its second try: the first was recorded as a timeout and rescheduled.
    for (const endpoint of [silentEndpoint, stallingEndpoint]) {
      await eventually(async () => (await deliveriesOf(db, endpoint.id)).every((d) => d.attempts >= 2), `each delivery to ${endpoint.id} to be retried`);
      for (const delivery of await deliveriesOf(db, endpoint.id)) {
        expect(delivery.state).toBe('pending');
        const [first] = await attemptsOf(db, delivery.id);
        expect(first).toMatchObject({ status: 'failed', responseStatusCode: null, response: `no complete answer within ${TIMEOUT_MS} ms`, trigger: 'scheduled' });
        expect(first!.nextAttemptAt).not.toBeNull();
      }
    }

    // Hung tries are in flight right now; the receivers will never finish them. Stopping waits at most for their timeout.
    expect(silent.accepted() + stalling.stalled()).toBeGreaterThan(0);
    await server.running.close();
  }, 60_000);
});
