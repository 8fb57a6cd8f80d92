// Messages for one slow endpoint never delay another endpoint's: with 50
// messages queued for a slow endpoint first, a fast endpoint's messages all
// arrive while most of the slow one's backlog has not had its first try.
// Asserted on order of completion, not on timings: the slow endpoint's tries
// are bounded by its answers (held until the fast endpoint is done) or by the
// timeout, and the fast messages are sent at once, so a loaded machine that
// takes longer to send and deliver them does not give the slow endpoint more
// tries in between.
import type { ServerResponse } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { closeReceivers, startReceiver, type Received } from '../helpers/receiver.js';
import type { TestServer } from '../helpers/server.js';
import { createEndpoint } from '../helpers/webhooks.js';
import { startWebhookServer } from '../helpers/webhook-server.js';

const servers: TestServer[] = [];
afterAll(async () => {
  await closeReceivers();
  for (const server of servers) await server.close();
});

async function slowThenFast(env: NodeJS.ProcessEnv, slowAnswer: (req: Received, res: ServerResponse, fastDone: Promise<void>) => void) {
  const server = await startWebhookServer({ WEBHOOK_POLL_INTERVAL_MS: '50', ...env });
  servers.push(server);
  const db = server.running.database.db;
  const { client } = await server.webhookApp();
  let allFastReceived!: () => void;
  const fastDone = new Promise<void>((resolve) => (allFastReceived = resolve));
  const slow = await startReceiver((req, res) => slowAnswer(req, res, fastDone));
  const fast = await startReceiver((_req, res) => {
    res.writeHead(204).end();
    if (fast.received.length >= 20) allFastReceived();
  });
  const slowEndpoint = await createEndpoint(client, { url: slow.url });
  const fastEndpoint = await createEndpoint(client, { url: fast.url });

  // The slow endpoint's 50 messages are older: a first-come-first-served dispatcher would send them first.
  for (let i = 0; i < 50; i++) await client.webhooks.sendWebhookTestEvent({ endpointId: slowEndpoint.id, data: { i } });
  await eventually(() => slow.received.length > 0, 'the slow endpoint to be busy');
  await Promise.all(Array.from({ length: 20 }, (_, i) => client.webhooks.sendWebhookTestEvent({ endpointId: fastEndpoint.id, data: { i } })));

  let slowUntriedWhenFastDone = -1;
  await eventually(async () => {
    const fastSucceeded = await db.webhookDelivery.count({ where: { endpointId: fastEndpoint.id, state: 'succeeded' } });
    if (fastSucceeded < 20) return false;
    slowUntriedWhenFastDone = await db.webhookDelivery.count({ where: { endpointId: slowEndpoint.id, state: 'pending', attempts: 0 } });
    return true;
  }, 'every fast delivery to succeed');
  expect(fast.received).toHaveLength(20);
  // The fast endpoint's later messages overtook the slow one's backlog: most of it has not even had its first try.
  expect(slowUntriedWhenFastDone).toBeGreaterThan(25);
}

describe('a slow endpoint does not delay another', () => {
  it('one that answers after 2 s, and not before the fast endpoint is done (default concurrency)', async () => {
    await slowThenFast({}, (_req, res, fastDone) => {
      void Promise.all([fastDone, new Promise((resolve) => setTimeout(resolve, 2_000))]).then(() => res.writeHead(204).end());
    });
  });

  it('one that never answers (timeout 1 s), with a global cap of 5 tries at a time and 4 per endpoint', async () => {
    // 4 of the 5 slots are the slow endpoint's all along: the fast one must get the fifth every time.
    await slowThenFast({ WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_CONCURRENCY: '5', WEBHOOK_ENDPOINT_CONCURRENCY: '4' }, () => undefined);
  });
});
