// Retries on a test clock: what counts as a failure (non-2xx, timeout,
// connection error, redirect), the schedule (immediately, 5 s, 5 min, 30 min,
// 2 h, 5 h, 10 h, 10 h), Retry-After, 410 Gone, and message.attempt.exhausted.
// The clock moves only when the test moves it; runDue() runs what is due.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../sdk/index.js';
import { testClock } from '../../server/lib/clock.js';
import { startReceiver, type Received } from '../helpers/receiver.js';
import { addThreads, attemptsOf, createEndpoint, deliveriesOf, idOf } from '../helpers/webhooks.js';
import { startWebhookServer, type WebhookTestServer } from '../helpers/webhook-server.js';

/** The schedule of the issue, in ms after each failed try (1st … 7th); the 8th failure is final. */
const SCHEDULE = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

const clock = testClock(Date.UTC(2026, 0, 1));
let server: WebhookTestServer;
beforeAll(async () => {
  server = await startWebhookServer(
    { WEBHOOK_POLL_INTERVAL_MS: '0', WEBHOOK_TIMEOUT_MS: '300' },
    { overrides: { clock } },
  );
});
afterAll(() => server?.close());

const db = () => server.running.database.db;
const runDue = () => server.running.services.webhookDispatcher.runDue();

async function app(): Promise<Client> {
  return (await server.webhookApp()).client;
}

/** A receiver whose n-th request (0-based) is answered by answers[n], the last one repeating. */
function scripted(...answers: ((req: Received, res: ServerResponse) => void)[]) {
  let n = 0;
  return startReceiver((req, res) => answers[Math.min(n++, answers.length - 1)]!(req, res));
}
const status =
  (code: number, headers: Record<string, string> = {}, body = '') =>
  (_req: Received, res: ServerResponse) =>
    res.writeHead(code, headers).end(body);
const never = () => undefined; // holds the request open: the server's timeout ends it

async function onlyDelivery(endpointId: string) {
  const rows = await deliveriesOf(db(), endpointId);
  expect(rows).toHaveLength(1);
  return rows[0]!;
}

/** Moves the clock to just before `at` (nothing is tried), then to `at` (the next try runs). */
async function nextTryAt(deliveryId: string, at: number, triesBefore: number) {
  clock.set(at - 1);
  await runDue();
  expect(await attemptsOf(db(), deliveryId)).toHaveLength(triesBefore);
  clock.set(at);
  await runDue();
  expect(await attemptsOf(db(), deliveryId)).toHaveLength(triesBefore + 1);
}

describe('the schedule and exhaustion', () => {
  it('tries immediately, then after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; the 8th failure fails the delivery and reports it to the other endpoints', async () => {
    const client = await app();
    const failing = await startReceiver(status(500, {}, 'down for maintenance'));
    const healthy = await startReceiver(status(204));
    const bad = await createEndpoint(client, { url: failing.url });
    const good = await createEndpoint(client, { url: healthy.url });

    const createdAt = clock.nowMs();
    await addThreads(client, 'org-e', 'doc-e', 1, 'e');
    await runDue();
    const delivery = await onlyDelivery(bad.id);
    expect(Number(delivery.createdAt)).toBe(createdAt);

    for (let i = 0; i < 8; i++) {
      const attempts = await attemptsOf(db(), delivery.id);
      expect(attempts).toHaveLength(i + 1);
      const last = attempts[i]!;
      expect(last).toMatchObject({ status: 'failed', responseStatusCode: 500, response: 'down for maintenance', trigger: 'scheduled' });
      if (i === 0) expect(Number(last.createdAt)).toBe(createdAt); // the first try is immediate
      if (i < 7) {
        expect(Number(last.nextAttemptAt) - Number(last.createdAt)).toBe(SCHEDULE[i]);
        expect((await db().webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } })).state).toBe('pending');
        await nextTryAt(delivery.id, Number(last.nextAttemptAt), i + 1);
      } else {
        expect(last.nextAttemptAt).toBeNull();
      }
    }
    expect(await db().webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } })).toMatchObject({ state: 'failed', attempts: 8, nextAttemptAt: null });

    // The history as the API shows it: eight failed tries, the last with no next try.
    const listed = (await client.webhooks.getWebhookAttempts({ endpointId: bad.id, pageSize: 20 })).data;
    expect(listed).toHaveLength(8);
    expect(listed[0]).toMatchObject({ status: 'failed', responseStatusCode: 500, nextAttemptAt: null });
    expect(Date.parse(listed[1]!.nextAttemptAt!) - Date.parse(listed[1]!.createdAt)).toBe(SCHEDULE[6]);

    // Every try carried the same message: one webhook-id, identical bytes.
    expect(failing.received).toHaveLength(8);
    expect(new Set(failing.received.map(idOf))).toEqual(new Set([delivery.messageId]));
    for (const r of failing.received) expect(r.raw.equals(failing.received[0]!.raw)).toBe(true);

    // message.attempt.exhausted goes to the other endpoint, not to the one that failed.
    await runDue();
    const exhausted = healthy.received.map((r) => JSON.parse(r.body)).filter((p) => p.event === 'message.attempt.exhausted');
    expect(exhausted).toEqual([
      expect.objectContaining({
        event: 'message.attempt.exhausted',
        source: 'message',
        actionType: 'exhausted',
        data: { endpointId: bad.id, messageId: delivery.messageId, eventType: 'comment_annotation.add', attempts: 8, lastResponseStatusCode: 500 },
        metadata: expect.objectContaining({ organizationId: 'org-e', documentId: 'doc-e' }),
      }),
    ]);
    expect(healthy.received.map((r) => JSON.parse(r.body).event)).toEqual(['comment_annotation.add', 'message.attempt.exhausted']);
    expect(await deliveriesOf(db(), bad.id)).toHaveLength(1);
    expect(await deliveriesOf(db(), good.id)).toHaveLength(2);

    // Nothing more, however long we wait.
    clock.advance(7 * 24 * 3_600_000);
    await runDue();
    expect(failing.received).toHaveLength(8);
    expect(healthy.received).toHaveLength(2);
  });
});

describe('what counts as a failure', () => {
  it('retries a non-2xx answer with the same id and bytes, and records the answer', async () => {
    const client = await app();
    const receiver = await scripted(status(503, {}, 'x'.repeat(5000)), status(200, {}, 'thanks'));
    const endpoint = await createEndpoint(client, { url: receiver.url });
    await client.webhooks.sendWebhookTestEvent({ endpointId: endpoint.id });
    await runDue();
    const delivery = await onlyDelivery(endpoint.id);
    const [first] = await attemptsOf(db(), delivery.id);
    expect(first).toMatchObject({ status: 'failed', responseStatusCode: 503 });
    expect(first!.response).toBe('x'.repeat(1000)); // a short excerpt
    await nextTryAt(delivery.id, Number(first!.nextAttemptAt), 1);
    const attempts = await attemptsOf(db(), delivery.id);
    expect(attempts[1]).toMatchObject({ status: 'succeeded', responseStatusCode: 200, response: 'thanks', nextAttemptAt: null });
    expect((await onlyDelivery(endpoint.id)).state).toBe('succeeded');
    expect(receiver.received.map(idOf)).toEqual([delivery.messageId, delivery.messageId]);
    expect(receiver.received[1]!.raw.equals(receiver.received[0]!.raw)).toBe(true);
  });

  it('retries a timeout (WEBHOOK_TIMEOUT_MS=300, a receiver that never answers)', async () => {
    const client = await app();
    const receiver = await scripted(never, status(204));
    const endpoint = await createEndpoint(client, { url: receiver.url });
    await client.webhooks.sendWebhookTestEvent({ endpointId: endpoint.id });
    await runDue();
    const delivery = await onlyDelivery(endpoint.id);
    const [first] = await attemptsOf(db(), delivery.id);
    expect(first).toMatchObject({ status: 'failed', responseStatusCode: null, response: 'no complete answer within 300 ms' });
    expect(first!.durationMs).toBeGreaterThanOrEqual(299);
    expect(Number(first!.nextAttemptAt) - Number(first!.createdAt)).toBe(5_000);
    await nextTryAt(delivery.id, Number(first!.nextAttemptAt), 1);
    expect((await onlyDelivery(endpoint.id)).state).toBe('succeeded');
    expect(receiver.received).toHaveLength(2);
  });

  it('retries a connection error (nothing listening), and delivers once something listens', async () => {
    const client = await app();
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));

    const endpoint = await createEndpoint(client, { url: `http://127.0.0.1:${port}/hook` });
    await client.webhooks.sendWebhookTestEvent({ endpointId: endpoint.id });
    await runDue();
    const delivery = await onlyDelivery(endpoint.id);
    const [first] = await attemptsOf(db(), delivery.id);
    expect(first).toMatchObject({ status: 'failed', responseStatusCode: null, response: 'could not connect, or the connection broke' });
    expect(Number(first!.nextAttemptAt) - Number(first!.createdAt)).toBe(5_000);
    expect((await onlyDelivery(endpoint.id)).state).toBe('pending');

    const receiver = await startReceiver(status(204), '/hook', { port });
    await nextTryAt(delivery.id, Number(first!.nextAttemptAt), 1);
    expect((await onlyDelivery(endpoint.id)).state).toBe('succeeded');
    expect(receiver.received.map(idOf)).toEqual([delivery.messageId]);
  });

  it('treats a redirect as a failure: the target gets nothing, the delivery waits for its next try', async () => {
    const client = await app();
    const target = await startReceiver(status(204));
    const endpoints = [];
    for (const code of [301, 302, 303, 307, 308]) {
      const redirecting = await startReceiver(status(code, { location: target.url }));
      const endpoint = await createEndpoint(client, { url: redirecting.url });
      await client.webhooks.sendWebhookTestEvent({ endpointId: endpoint.id });
      endpoints.push({ code, endpoint, redirecting });
    }
    await runDue();
    for (const { code, endpoint, redirecting } of endpoints) {
      const delivery = await onlyDelivery(endpoint.id);
      expect(delivery.state).toBe('pending');
      const attempts = await attemptsOf(db(), delivery.id);
      expect(attempts).toEqual([expect.objectContaining({ status: 'failed', responseStatusCode: code })]);
      expect(Number(attempts[0]!.nextAttemptAt) - Number(attempts[0]!.createdAt)).toBe(5_000);
      expect(redirecting.received).toHaveLength(1);
    }
    clock.advance(5_000);
    await runDue();
    for (const { redirecting } of endpoints) expect(redirecting.received).toHaveLength(2);
    expect(target.received).toHaveLength(0);
  });
});

describe('Retry-After', () => {
  it('waits as long as Retry-After says, in seconds or as an HTTP date; never less than the schedule; ignores a value it cannot read', async () => {
    const client = await app();
    const whole = Math.ceil(clock.nowMs() / 1000) * 1000;
    const dateAt = whole + 600_000;
    const cases = [
      { name: 'seconds', answer: status(429, { 'retry-after': '120' }), wait: 120_000 },
      { name: 'date', answer: status(503, { 'retry-after': new Date(dateAt).toUTCString() }), wait: undefined as number | undefined },
      { name: 'shorter than the schedule', answer: status(503, { 'retry-after': '1' }), wait: 5_000 },
      { name: 'a date in the past', answer: status(503, { 'retry-after': new Date(whole - 60_000).toUTCString() }), wait: 5_000 },
      { name: 'unreadable', answer: status(503, { 'retry-after': 'soon' }), wait: 5_000 },
    ];
    clock.set(whole);
    const setups = [];
    for (const c of cases) {
      const receiver = await scripted(c.answer, status(204));
      const endpoint = await createEndpoint(client, { url: receiver.url });
      await client.webhooks.sendWebhookTestEvent({ endpointId: endpoint.id });
      setups.push({ ...c, receiver, endpoint });
    }
    await runDue();
    for (const s of setups) {
      const delivery = await onlyDelivery(s.endpoint.id);
      const [first] = await attemptsOf(db(), delivery.id);
      expect(Number(first!.createdAt), s.name).toBe(whole);
      if (s.wait === undefined) expect(Number(first!.nextAttemptAt), s.name).toBe(dateAt);
      else expect(Number(first!.nextAttemptAt) - whole, s.name).toBe(s.wait);
    }
    // The 120 s one is not tried a millisecond early, and is tried at 120 s.
    const seconds = setups[0]!;
    const delivery = await onlyDelivery(seconds.endpoint.id);
    await nextTryAt(delivery.id, whole + 120_000, 1);
    expect(seconds.receiver.received).toHaveLength(2);
    expect(setups[1]!.receiver.received).toHaveLength(1); // the HTTP-date one still waits
    await nextTryAt((await onlyDelivery(setups[1]!.endpoint.id)).id, dateAt, 1);
    for (const s of setups) expect((await onlyDelivery(s.endpoint.id)).state, s.name).toBe('succeeded');
  });
});

describe('410 Gone', () => {
  it('disables the endpoint, cancels its pending deliveries at once, and reports the failed message to the others', async () => {
    const client = await app();
    const gone = await scripted(status(500), status(410, {}, 'gone'));
    const watcher = await startReceiver(status(204));
    const endpoint = await createEndpoint(client, { url: gone.url });
    await createEndpoint(client, { url: watcher.url, filterTypes: ['message.attempt.exhausted'] });

    // The first message fails (500) and waits 5 s for its next try…
    const first = (await client.webhooks.sendWebhookTestEvent({ endpointId: endpoint.id })).data.messageId;
    await runDue();
    // …the second gets 410.
    const second = (await client.webhooks.sendWebhookTestEvent({ endpointId: endpoint.id })).data.messageId;
    await runDue();
    expect(gone.received.map(idOf)).toEqual([first, second]);

    const states = Object.fromEntries((await deliveriesOf(db(), endpoint.id)).map((d) => [d.messageId, d.state]));
    expect(states).toEqual({ [first]: 'canceled', [second]: 'failed' });
    const attempts = (await client.webhooks.getWebhookAttempts({ endpointId: endpoint.id, messageId: second })).data;
    expect(attempts).toEqual([expect.objectContaining({ status: 'failed', responseStatusCode: 410, response: 'gone', nextAttemptAt: null })]);
    expect((await client.webhooks.getWebhookEndpoints({ endpointId: endpoint.id })).data[0]!.disabled).toBe(true);

    // The other endpoint hears that the message will not arrive.
    expect(watcher.received.map((r) => JSON.parse(r.body).data)).toEqual([
      { endpointId: endpoint.id, messageId: second, eventType: 'webhook.test', attempts: 1, lastResponseStatusCode: 410 },
    ]);

    // Nothing more reaches it: not the canceled retry, not new events.
    await addThreads(client, 'org-g', 'doc-g', 1, 'g');
    clock.advance(24 * 3_600_000);
    await runDue();
    expect(gone.received).toHaveLength(2);
    expect(await deliveriesOf(db(), endpoint.id)).toHaveLength(2);
  });
});
