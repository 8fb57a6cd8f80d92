// At least once, nothing lost: a server process killed with SIGKILL while
// 1,000 deliveries are pending and in flight is started again on the same
// database, and every message arrives; the ones sent again carry the same
// webhook-id and the same bytes. On SQLite always, on PostgreSQL with
// TEST_DATABASE_URL.
import { afterAll, expect, it } from 'vitest';
import { createClient } from '../../sdk/index.js';
import { usingPostgres } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { closeReceivers, startReceiver } from '../helpers/receiver.js';
import { killServer, processFixture, spawnServer, type ProcessFixture, type ServerProcess } from '../helpers/server-process.js';
import { idOf, verifyDelivery } from '../helpers/webhooks.js';

const MESSAGES = 1000;

let fixture: ProcessFixture | undefined;
const processes: ServerProcess[] = [];
afterAll(async () => {
  for (const p of processes) await killServer(p);
  await closeReceivers();
  await fixture?.close();
});

it(`delivers every one of ${MESSAGES} messages after a SIGKILL mid-delivery and a restart (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, async () => {
  fixture = await processFixture({
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    // Leases are 2 × timeout + 5 s: the tries the kill interrupted are claimed again 7 s after they started.
    WEBHOOK_TIMEOUT_MS: '1000',
    WEBHOOK_POLL_INTERVAL_MS: '100',
  });
  const { services, apiKeyId, database } = fixture;
  // Each answer takes a little while (a deliberately slow receiver), so the kill finds tries in flight.
  let answering = 0;
  const receiver = await startReceiver((_req, res) => {
    answering += 1;
    setTimeout(() => {
      res.writeHead(204).end();
      answering -= 1;
    }, 5);
  });

  // 1,000 messages pending before any server process runs (the services alone dispatch nothing).
  await services.webhookSettings.setEnabled(apiKeyId, true);
  const endpoint = await services.webhookEndpoints.create(apiKeyId, { url: receiver.url });
  const { secret } = await services.webhookEndpoints.secret(apiKeyId, endpoint.id);
  for (let i = 0; i < MESSAGES; i++) await services.webhookEndpoints.sendTest(apiKeyId, { endpointId: endpoint.id, data: { i } });
  const messageIds = (await database.db.webhookMessage.findMany({ where: { apiKeyId }, select: { id: true } })).map((m) => m.id);
  expect(messageIds).toHaveLength(MESSAGES);
  expect(await database.db.webhookDelivery.count({ where: { endpointId: endpoint.id, state: 'pending' } })).toBe(MESSAGES);

  const first = await spawnServer(fixture.env);
  processes.push(first);
  await eventually(() => receiver.received.length >= 300, 'a third of the messages to arrive', 60_000);
  first.child.kill('SIGKILL');
  await first.exited;
  const receivedBeforeKill = receiver.received.length;
  const recordedBeforeKill = await database.db.webhookDelivery.count({ where: { endpointId: endpoint.id, state: 'succeeded' } });
  const leasedAtKill = await database.db.webhookDelivery.count({ where: { endpointId: endpoint.id, state: 'pending', leaseOwner: { not: null } } });
  expect(recordedBeforeKill).toBeLessThan(MESSAGES);
  await eventually(() => answering === 0, "the receiver's answers to the killed process's tries");

  const restartedAt = Date.now();
  const second = await spawnServer(fixture.env);
  processes.push(second);
  const distinct = () => new Set(receiver.received.map(idOf)).size;
  await eventually(() => distinct() === MESSAGES, 'every message to arrive after the restart', 90_000);
  const recoveryMs = Date.now() - restartedAt;
  await eventually(
    async () => (await database.db.webhookDelivery.count({ where: { endpointId: endpoint.id, state: 'succeeded' } })) === MESSAGES,
    'every delivery recorded as succeeded',
  );

  // Exactly the messages written, each verified; a message seen twice is the same message: same id, same bytes.
  const byId = new Map<string, Buffer>();
  for (const delivery of receiver.received) {
    verifyDelivery(secret, delivery);
    const seen = byId.get(idOf(delivery));
    if (seen === undefined) byId.set(idOf(delivery), delivery.raw);
    else expect(delivery.raw.equals(seen)).toBe(true);
  }
  expect([...byId.keys()].sort()).toEqual([...messageIds].sort());
  // One successful try recorded per message: a message sent twice was the one whose first try the kill cut off.
  const succeeded = await database.db.webhookAttempt.groupBy({ by: ['messageId'], where: { endpointId: endpoint.id, status: 'succeeded' }, _count: true });
  expect(succeeded).toHaveLength(MESSAGES);
  expect(succeeded.every((row) => row._count === 1)).toBe(true);

  // As the API tells it: nothing pending, nothing failed.
  const client = createClient({ baseUrl: second.url, apiKey: fixture.workspace.apiKey, authToken: fixture.workspace.authToken });
  for (const status of ['pending', 'failed', 'canceled'] as const) {
    expect((await client.webhooks.getWebhookMessages({ endpointId: endpoint.id, status })).data, status).toEqual([]);
  }

  const duplicates = receiver.received.length - MESSAGES;
  console.log(
    `SIGKILL (${usingPostgres ? 'PostgreSQL' : 'SQLite'}): ${receivedBeforeKill} received and ${recordedBeforeKill} recorded before the kill, ` +
      `${leasedAtKill} leased at the kill; after the restart all ${MESSAGES} arrived in ${recoveryMs} ms (start-up included); ${duplicates} duplicates`,
  );
  // The tries cut off by the kill are all that was sent again.
  expect(duplicates).toBeLessThanOrEqual(receivedBeforeKill - recordedBeforeKill);
}, 180_000);
