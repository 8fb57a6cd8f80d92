// Two server processes on one PostgreSQL (TEST_DATABASE_URL) share the
// deliveries: both send, no message is ever being sent by both at once, every
// message arrives, and each gets exactly one successful try recorded.
// (On one SQLite file several processes would work too, but scale-out runs on
// PostgreSQL; SQLite runs the single-process tests.)
import { afterAll, describe, expect, it } from 'vitest';
import { createClient } from '../../sdk/index.js';
import { usingPostgres } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { closeReceivers, startReceiver, type Received } from '../helpers/receiver.js';
import { killServer, processFixture, spawnServer, type ProcessFixture, type ServerProcess } from '../helpers/server-process.js';
import { canMapSockets, watchSocketOwners } from '../helpers/socket-owners.js';
import { idOf, verifyDelivery } from '../helpers/webhooks.js';

if (!usingPostgres) console.log('skipping the two-process webhook delivery test: it needs TEST_DATABASE_URL (PostgreSQL)');

const ENDPOINTS = 3;
const PER_ENDPOINT = 200;

let fixture: ProcessFixture | undefined;
const processes: ServerProcess[] = [];
afterAll(async () => {
  for (const p of processes) await killServer(p);
  await closeReceivers();
  await fixture?.close();
});

describe.skipIf(!usingPostgres)('two server processes on one PostgreSQL', () => {
  it(`share ${ENDPOINTS * PER_ENDPOINT} deliveries without sending one message twice at the same time`, async () => {
    fixture = await processFixture({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_POLL_INTERVAL_MS: '20', WEBHOOK_ENDPOINT_CONCURRENCY: '4' });
    const { services, apiKeyId, database } = fixture;
    const inFlight = new Set<string>();
    const overlaps: string[] = [];
    const receivers: { received: Received[] }[] = [];
    await services.webhookSettings.setEnabled(apiKeyId, true);
    const endpoints = [];
    for (let e = 0; e < ENDPOINTS; e++) {
      // The receiver tracks which messages it is answering right now: a second request for one of them is an overlap.
      const receiver = await startReceiver((req, res) => {
        const id = idOf(req);
        if (inFlight.has(id)) overlaps.push(id);
        inFlight.add(id);
        res.on('close', () => inFlight.delete(id));
        setTimeout(() => res.writeHead(204).end(), 1 + Math.floor(Math.random() * 10));
      });
      receivers.push(receiver);
      const endpoint = await services.webhookEndpoints.create(apiKeyId, { url: receiver.url });
      const { secret } = await services.webhookEndpoints.secret(apiKeyId, endpoint.id);
      endpoints.push({ ...endpoint, secret, receiver });
    }
    // All pending before either process starts, so both race for the same rows from their first claim.
    for (let i = 0; i < PER_ENDPOINT; i++) {
      for (const endpoint of endpoints) await services.webhookEndpoints.sendTest(apiKeyId, { endpointId: endpoint.id, data: { i } });
    }

    const pair = await Promise.all([spawnServer(fixture.env), spawnServer(fixture.env)]);
    processes.push(...pair);
    const watch = canMapSockets ? watchSocketOwners(pair.map((p) => p.pid)) : undefined;
    const total = ENDPOINTS * PER_ENDPOINT;
    const received = () => receivers.flatMap((r) => r.received);
    await eventually(() => new Set(received().map(idOf)).size === total, 'every message', 60_000);
    await eventually(async () => (await database.db.webhookDelivery.count({ where: { apiKeyId, state: 'succeeded' } })) === total, 'every delivery recorded');
    watch?.stop();

    expect(overlaps).toEqual([]);
    // Nothing failed or timed out, so nothing was sent twice at all.
    expect(received()).toHaveLength(total);
    for (const endpoint of endpoints) for (const r of endpoint.receiver.received) verifyDelivery(endpoint.secret, r);
    const succeeded = await database.db.webhookAttempt.groupBy({ by: ['messageId'], where: { apiKeyId, status: 'succeeded' }, _count: true });
    expect(succeeded).toHaveLength(total);
    expect(succeeded.every((row) => row._count === 1)).toBe(true);
    expect(await database.db.webhookAttempt.count({ where: { apiKeyId } })).toBe(total);

    // Either process answers for the shared state.
    for (const p of pair) {
      const client = createClient({ baseUrl: p.url, apiKey: fixture.workspace.apiKey, authToken: fixture.workspace.authToken });
      expect((await client.webhooks.getWebhookMessages({ endpointId: endpoints[0]!.id, status: 'pending' })).data).toEqual([]);
    }

    if (watch) {
      const byProcess = new Map<number, number>();
      for (const r of received()) {
        const pid = watch.owners.get(r.remotePort!);
        if (pid !== undefined) byProcess.set(pid, (byProcess.get(pid) ?? 0) + 1);
      }
      console.log(`two processes: ${[...byProcess].map(([pid, n]) => `pid ${pid} sent ${n}`).join(', ')} (of ${total}; the rest on connections not sampled)`);
      // Both processes did part of the work.
      for (const p of pair) expect(byProcess.get(p.pid) ?? 0, `deliveries sent by pid ${p.pid}`).toBeGreaterThan(0);
    } else {
      console.log('two processes: /proc is not available here, so which process sent what is not checked');
    }
  }, 120_000);
});
