// Tries are recorded in batches (server/domains/webhooks/recorder.ts): the
// tries that finish in one turn of the event loop share one transaction, and
// each row's write is still conditioned on the lease it was tried under. On a
// server that delivers nothing itself (WEBHOOK_CONCURRENCY=0), the test leases
// deliveries and hands finished tries to a recorder of its own.
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { UnitOfWork } from '../../server/db/unit-of-work.js';
import { createIds } from '../../server/lib/ids.js';
import { systemClock } from '../../server/lib/clock.js';
import type { Claimed } from '../../server/domains/webhooks/delivery.js';
import { createTryRecorder, type FinishedTry } from '../../server/domains/webhooks/recorder.js';
import { createDeliveryQueueRepo } from '../../server/domains/webhooks/repos/delivery-queue.js';
import { startWebhookServer, type WebhookTestServer } from '../helpers/webhook-server.js';

let server: WebhookTestServer;
beforeAll(async () => {
  server = await startWebhookServer({ WEBHOOK_CONCURRENCY: '0' });
});
afterAll(() => server?.close());

const log = pino({ level: 'silent' });

/** A unit of work that counts its transactions and can fail the next `failing` of them. */
function countingUow(inner: UnitOfWork, failing = 0): UnitOfWork & { transactions: number[] } {
  const transactions: number[] = [];
  let toFail = failing;
  return {
    transactions,
    active: () => inner.active(),
    afterCommit: (effect) => inner.afterCommit(effect),
    scope: () => inner.scope(),
    async run(work) {
      return inner.run(async () => {
        transactions.push(transactions.length);
        const result = await work();
        if (toFail > 0) {
          toFail -= 1;
          throw new Error('this transaction fails');
        }
        return result;
      });
    },
  };
}

/** `count` test messages to one endpoint (which this server never sends), leased as a dispatcher would lease them. */
async function leased(count: number): Promise<{ claimed: Claimed[]; endpointId: string; apiKeyId: string; resend(messageId: string): Promise<void> }> {
  const { client } = await server.webhookApp();
  const { id: endpointId } = (await client.webhooks.createWebhookEndpoint({ url: 'http://127.0.0.1:9/hook' })).data;
  for (let i = 0; i < count; i++) await client.webhooks.sendWebhookTestEvent({ endpointId, data: { i } });
  const { db } = server.running.database;
  const rows = await db.webhookDelivery.findMany({ where: { endpointId }, orderBy: { createdAt: 'asc' } });
  const repo = createDeliveryQueueRepo(db);
  const now = Date.now();
  const got = await repo.leaseDue(
    rows.map((row) => row.id),
    'test-owner',
    now,
    now + 60_000,
  );
  expect(got).toHaveLength(count);
  return {
    claimed: rows.map((row) => ({ ...got.find((g) => g.id === row.id)!, claimedAt: now })),
    endpointId,
    apiKeyId: rows[0]!.apiKeyId,
    resend: async (messageId) => void (await client.webhooks.resendWebhookMessage({ endpointId, messageId })),
  };
}

function finished(row: Claimed, apiKeyId: string, outcome: 'success' | 'failure', nextAttemptAt: number | null = null): FinishedTry {
  return {
    row,
    message: { body: '{}', eventType: 'test', apiKeyId, organizationId: null, documentId: null, createdAt: Date.now() },
    outcome: outcome === 'success' ? { kind: 'success', status: 204, response: '' } : { kind: 'failure', status: 500, response: 'no', retryAfterMs: null, gone: false },
    durationMs: 3,
    at: Date.now(),
    state: outcome === 'success' ? 'succeeded' : 'pending',
    nextAttemptAt,
    exhausted: false,
    tries: 1,
  };
}

it('records the tries of one turn in one transaction; one resent meanwhile keeps the resend, the others their outcome', async () => {
  const { db, uow: inner } = server.running.database;
  const { claimed, apiKeyId, resend } = await leased(3);
  const [resent, succeeded, failed] = claimed as [Claimed, Claimed, Claimed];
  // The resend comes while the three tries run: its generation moves, it is due now and manual.
  await resend(resent.messageId);
  const resendRow = await db.webhookDelivery.findUniqueOrThrow({ where: { id: resent.id } });
  expect(resendRow.generation).toBe(1);

  const uow = countingUow(inner);
  const recorder = createTryRecorder({ repo: createDeliveryQueueRepo(db), uow, ids: createIds(systemClock), log, reportExhausted: async () => undefined });
  const retryAt = Date.now() + 5_000;
  await Promise.all([
    recorder.record(finished(resent, apiKeyId, 'failure', Date.now() + 5_000)),
    recorder.record(finished(succeeded, apiKeyId, 'success')),
    recorder.record(finished(failed, apiKeyId, 'failure', retryAt)),
  ]);
  expect(uow.transactions).toHaveLength(1);

  const after = new Map((await db.webhookDelivery.findMany({ where: { id: { in: claimed.map((row) => row.id) } } })).map((row) => [row.id, row]));
  // The resend's schedule stands (due when it was resent, manual, its new generation); only the lease went.
  expect(after.get(resent.id)).toMatchObject({ state: 'pending', generation: 1, manual: true, leaseOwner: null, nextAttemptAt: resendRow.nextAttemptAt });
  expect(after.get(succeeded.id)).toMatchObject({ state: 'succeeded', leaseOwner: null, nextAttemptAt: null });
  expect(after.get(failed.id)).toMatchObject({ state: 'pending', leaseOwner: null, nextAttemptAt: BigInt(retryAt) });
  const attempts = await db.webhookAttempt.findMany({ where: { deliveryId: { in: claimed.map((row) => row.id) } } });
  const attemptOf = (id: string) => attempts.filter((a) => a.deliveryId === id);
  // Every try has its attempt; the resent one's names no next try of its own (the resend's stands).
  expect(attemptOf(resent.id)).toMatchObject([{ status: 'failed', nextAttemptAt: null }]);
  expect(attemptOf(succeeded.id)).toMatchObject([{ status: 'succeeded', responseStatusCode: 204 }]);
  expect(attemptOf(failed.id)).toMatchObject([{ status: 'failed', nextAttemptAt: BigInt(retryAt) }]);
});

it('a batch whose transaction fails is written again one try per transaction', async () => {
  const { db, uow: inner } = server.running.database;
  const { claimed, apiKeyId } = await leased(2);
  const uow = countingUow(inner, 1);
  const recorder = createTryRecorder({ repo: createDeliveryQueueRepo(db), uow, ids: createIds(systemClock), log, reportExhausted: async () => undefined });
  await Promise.all(claimed.map((row) => recorder.record(finished(row, apiKeyId, 'success'))));
  // The batch (rolled back), then each try alone.
  expect(uow.transactions).toHaveLength(3);
  const rows = await db.webhookDelivery.findMany({ where: { id: { in: claimed.map((row) => row.id) } } });
  expect(rows.map((row) => row.state)).toEqual(['succeeded', 'succeeded']);
  expect(await db.webhookAttempt.count({ where: { deliveryId: { in: claimed.map((row) => row.id) } } })).toBe(2);
});

it('a try whose lease went to another claim records its attempt, never the state', async () => {
  const { db, uow } = server.running.database;
  const { claimed, apiKeyId } = await leased(1);
  const [row] = claimed as [Claimed];
  // Its lease ran out and another process claimed it: the other owner's lease and schedule stand.
  await db.webhookDelivery.update({ where: { id: row.id }, data: { leaseOwner: 'other-owner' } });
  const recorder = createTryRecorder({ repo: createDeliveryQueueRepo(db), uow, ids: createIds(systemClock), log, reportExhausted: async () => undefined });
  await recorder.record(finished(row, apiKeyId, 'success'));
  expect(await db.webhookDelivery.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({ state: 'pending', leaseOwner: 'other-owner' });
  expect(await db.webhookAttempt.findMany({ where: { deliveryId: row.id } })).toMatchObject([{ status: 'succeeded', nextAttemptAt: null }]);
});

it('WEBHOOK_CONCURRENCY=0: the process sends nothing', async () => {
  const { client } = await server.webhookApp();
  const { id: endpointId } = (await client.webhooks.createWebhookEndpoint({ url: 'http://127.0.0.1:9/hook' })).data;
  await client.webhooks.sendWebhookTestEvent({ endpointId });
  expect(await server.running.services.webhookDispatcher.runDue()).toBe(0);
  const [row] = await server.running.database.db.webhookDelivery.findMany({ where: { endpointId } });
  expect(row).toMatchObject({ state: 'pending', attempts: 0, leaseOwner: null });
});
