// WEBHOOK_RETRY_SCALE multiplies the schedule: on a test clock the recorded
// next tries are the schedule × 0.01; on the real clock, with a tiny scale,
// all eight tries run out by themselves in about a second.
import { afterAll, expect, it } from 'vitest';
import { testClock } from '../../server/lib/clock.js';
import { eventually } from '../helpers/eventually.js';
import { closeReceivers, startReceiver } from '../helpers/receiver.js';
import type { TestServer } from '../helpers/server.js';
import { attemptsOf, createEndpoint, deliveriesOf, idOf } from '../helpers/webhooks.js';
import { startWebhookServer } from '../helpers/webhook-server.js';

const SCHEDULE = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

const servers: TestServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
  await closeReceivers();
});

it('WEBHOOK_RETRY_SCALE=0.01 makes every wait of the schedule a hundredth', async () => {
  const clock = testClock(Date.UTC(2026, 0, 1));
  const server = await startWebhookServer({ WEBHOOK_POLL_INTERVAL_MS: '0', WEBHOOK_RETRY_SCALE: '0.01' }, { overrides: { clock } });
  servers.push(server);
  const db = server.running.database.db;
  const { client } = await server.webhookApp();
  const receiver = await startReceiver((_req, res) => res.writeHead(500).end());
  const endpoint = await createEndpoint(client, { url: receiver.url });
  await client.webhooks.sendWebhookTestEvent({ endpointId: endpoint.id });
  await server.running.services.webhookDispatcher.runDue();
  const [delivery] = await deliveriesOf(db, endpoint.id);
  for (let i = 0; i < 7; i++) {
    const attempts = await attemptsOf(db, delivery!.id);
    expect(attempts).toHaveLength(i + 1);
    const last = attempts[i]!;
    expect(Number(last.nextAttemptAt) - Number(last.createdAt)).toBe(SCHEDULE[i]! / 100);
    clock.set(Number(last.nextAttemptAt));
    await server.running.services.webhookDispatcher.runDue();
  }
  const attempts = await attemptsOf(db, delivery!.id);
  expect(attempts).toHaveLength(8);
  expect(attempts[7]!.nextAttemptAt).toBeNull();
  expect((await deliveriesOf(db, endpoint.id))[0]!.state).toBe('failed');
});

it('with a tiny scale the whole schedule runs by itself on the real clock: eight tries, then failed', async () => {
  const server = await startWebhookServer({ WEBHOOK_RETRY_SCALE: '0.00001' });
  servers.push(server);
  const db = server.running.database.db;
  const { client } = await server.webhookApp();
  const receiver = await startReceiver((_req, res) => res.writeHead(502).end());
  const endpoint = await createEndpoint(client, { url: receiver.url });
  await client.webhooks.sendWebhookTestEvent({ endpointId: endpoint.id });
  await eventually(async () => (await deliveriesOf(db, endpoint.id))[0]?.state === 'failed', 'the delivery to fail after its last try');
  expect(receiver.received).toHaveLength(8);
  expect(new Set(receiver.received.map(idOf)).size).toBe(1);
  const attempts = await attemptsOf(db, (await deliveriesOf(db, endpoint.id))[0]!.id);
  expect(attempts.map((a) => a.responseStatusCode)).toEqual(Array(8).fill(502));
});
