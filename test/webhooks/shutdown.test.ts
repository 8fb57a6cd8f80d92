// SIGTERM with deliveries in flight: the process finishes them (or lets them
// time out), records each, and exits 0; nothing is lost and, the shutdown
// being graceful, nothing is sent twice after a restart.
import type { ServerResponse } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { createClient } from '../../sdk/index.js';
import { eventually, outcomeWithin } from '../helpers/eventually.js';
import { closeReceivers, startReceiver } from '../helpers/receiver.js';
import { killServer, processFixture, spawnServer, type ProcessFixture, type ServerProcess } from '../helpers/server-process.js';
import { idOf } from '../helpers/webhooks.js';

const MESSAGES = 40;
let fixture: ProcessFixture | undefined;
const processes: ServerProcess[] = [];
afterEach(async () => {
  for (const p of processes.splice(0)) await killServer(p);
  await closeReceivers();
  await fixture?.close();
  fixture = undefined;
});

async function pendingMessages(f: ProcessFixture, url: string) {
  await f.services.webhookSettings.setEnabled(f.apiKeyId, true);
  const endpoint = await f.services.webhookEndpoints.create(f.apiKeyId, { url });
  for (let i = 0; i < MESSAGES; i++) await f.services.webhookEndpoints.sendTest(f.apiKeyId, { endpointId: endpoint.id, data: { i } });
  return endpoint.id;
}

it('finishes the tries in flight before exiting, records them, and leaves the rest pending for the next process', async () => {
  fixture = await processFixture({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_TIMEOUT_MS: '5000', WEBHOOK_ENDPOINT_CONCURRENCY: '4' });
  const db = fixture.database.db;
  const held: ServerResponse[] = [];
  let holding = true;
  const receiver = await startReceiver((_req, res) => {
    if (holding) held.push(res);
    else res.writeHead(204).end();
  });
  const endpointId = await pendingMessages(fixture, receiver.url);

  const server = await spawnServer(fixture.env);
  processes.push(server);
  await eventually(() => held.length === 4, 'four tries held by the receiver');
  server.child.kill('SIGTERM');
  await eventually(() => server.output().includes('shutting down'), 'the process to start shutting down');
  // What must NOT happen: shutting down, it does not exit while it is owed answers (given 500 ms).
  expect(await outcomeWithin(server.exited, 500, 'still running'), server.output()).toBe('still running');
  holding = false;
  for (const res of held) res.writeHead(204).end();
  expect(await server.exited).toEqual({ code: 0, signal: null });

  const deliveries = await db.webhookDelivery.findMany({ where: { endpointId } });
  const received = new Set(receiver.received.map(idOf));
  // Whatever was sent was recorded, with its one successful try; the rest waits, untried and unleased.
  for (const d of deliveries) {
    if (received.has(d.messageId)) expect(d).toMatchObject({ state: 'succeeded', attempts: 1, leaseOwner: null });
    else expect(d).toMatchObject({ state: 'pending', attempts: 0, leaseOwner: null, leaseUntil: null });
  }
  expect(received.size).toBeGreaterThanOrEqual(4);
  expect(await db.webhookAttempt.count({ where: { endpointId } })).toBe(received.size);

  const next = await spawnServer(fixture.env);
  processes.push(next);
  await eventually(() => new Set(receiver.received.map(idOf)).size === MESSAGES, 'every message after the restart');
  // A graceful stop sends nothing twice.
  expect(receiver.received).toHaveLength(MESSAGES);
  const client = createClient({ baseUrl: next.url, apiKey: fixture.workspace.apiKey, authToken: fixture.workspace.authToken });
  await eventually(async () => (await client.webhooks.getWebhookMessages({ endpointId, status: 'succeeded', pageSize: 100 })).data.length === MESSAGES, 'all recorded');
});

it('lets tries whose receiver never answers time out, records them as failed with their next try, then exits', async () => {
  fixture = await processFixture({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_ENDPOINT_CONCURRENCY: '4' });
  const db = fixture.database.db;
  const receiver = await startReceiver(() => undefined);
  const endpointId = await pendingMessages(fixture, receiver.url);

  const server = await spawnServer(fixture.env);
  processes.push(server);
  await eventually(() => receiver.received.length === 4, 'four tries in flight');
  server.child.kill('SIGTERM');
  expect(await server.exited).toEqual({ code: 0, signal: null });

  const tried = await db.webhookDelivery.findMany({ where: { endpointId, attempts: { gt: 0 } } });
  expect(tried.map((d) => d.messageId).sort()).toEqual(receiver.received.map(idOf).sort());
  for (const d of tried) expect(d).toMatchObject({ state: 'pending', attempts: 1, leaseOwner: null });
  const attempts = await db.webhookAttempt.findMany({ where: { endpointId } });
  expect(attempts).toHaveLength(tried.length);
  for (const a of attempts) {
    expect(a).toMatchObject({ status: 'failed', responseStatusCode: null, response: 'no complete answer within 2000 ms' });
    expect(Number(a.nextAttemptAt) - Number(a.createdAt)).toBe(5_000);
  }
  expect(await db.webhookDelivery.count({ where: { endpointId, state: 'pending', attempts: 0, leaseOwner: null } })).toBe(MESSAGES - tried.length);
});
