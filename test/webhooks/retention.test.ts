// WEBHOOK_RETENTION_DAYS: messages (with their deliveries and attempts) older
// than the retention are deleted; a message that still has a delivery pending
// is kept until that delivery ends. EVENT_RETENTION_DAYS: domain events (the
// outbox) older than theirs, set apart from the webhooks' here (3 and 5 days)
// so that either one following the other's setting fails.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testClock } from '../../server/lib/clock.js';
import { startReceiver } from '../helpers/receiver.js';
import { createEndpoint } from '../helpers/webhooks.js';
import { startWebhookServer, type WebhookTestServer } from '../helpers/webhook-server.js';

const DAY = 86_400_000;
const clock = testClock(Date.UTC(2026, 0, 1));
let server: WebhookTestServer;
beforeAll(async () => {
  server = await startWebhookServer(
    { WEBHOOK_POLL_INTERVAL_MS: '0', WEBHOOK_RETENTION_DAYS: '3', EVENT_RETENTION_DAYS: '5', WEBHOOK_RETRY_SCALE: '100' },
    { overrides: { clock } },
  );
});
afterAll(() => server?.close());

it('deletes messages older than WEBHOOK_RETENTION_DAYS, except those with a delivery still pending, and events older than EVENT_RETENTION_DAYS', async () => {
  const db = server.running.database.db;
  const dispatcher = server.running.services.webhookDispatcher;
  const outbox = server.running.services.eventRetention;
  const commentEvents = () => db.domainEvent.count({ where: { type: 'comment_annotation.add' } });
  const { client } = await server.webhookApp();
  const ok = await startReceiver((_req, res) => res.writeHead(204).end());
  const down = await startReceiver((_req, res) => res.writeHead(500).end());
  const delivered = await createEndpoint(client, { url: ok.url });
  const failing = await createEndpoint(client, { url: down.url, filterTypes: ['webhook.test'] });

  const old = (await client.webhooks.sendWebhookTestEvent({ endpointId: delivered.id })).data.messageId;
  // Scale 100: the failing one's next try is 500 s × 100 ≈ 6 days away, so it is still pending at day 4.
  const waiting = (await client.webhooks.sendWebhookTestEvent({ endpointId: failing.id })).data.messageId;
  await client.comments.addCommentAnnotations({
    organizationId: 'org-ret',
    documentId: 'doc-ret',
    commentAnnotations: [{ annotationId: 'ret-1', from: { userId: 'u' }, commentData: [{ commentText: 'old' }] }],
  });
  await dispatcher.runDue();
  expect(await db.webhookAttempt.count({ where: { messageId: old } })).toBe(1);

  clock.advance(2 * DAY);
  expect(await dispatcher.prune()).toBe(0); // within the retention: nothing goes
  expect(await outbox.prune()).toBe(0);

  clock.advance(2 * DAY); // 4 days: past the 3-day retention
  const recent = (await client.webhooks.sendWebhookTestEvent({ endpointId: delivered.id })).data.messageId;
  await dispatcher.runDue();
  expect(await dispatcher.prune()).toBeGreaterThan(0);

  const left = (await db.webhookMessage.findMany({ select: { id: true } })).map((m) => m.id);
  expect(left).toContain(waiting);
  expect(left).toContain(recent);
  expect(left).not.toContain(old);
  expect(await db.webhookDelivery.count({ where: { messageId: old } })).toBe(0);
  expect(await db.webhookAttempt.count({ where: { messageId: old } })).toBe(0);
  expect((await client.webhooks.getWebhookMessages({ endpointId: delivered.id })).data.map((m) => m.messageId)).toEqual([recent]);

  // The comment event (outbox row) of day 0 outlives the 3 webhook days: the outbox keeps 5.
  expect(await commentEvents()).toBe(1);
  expect(await outbox.prune()).toBe(0);
  expect(await commentEvents()).toBe(1);

  clock.advance(2 * DAY); // 6 days: past the outbox's 5
  expect(await outbox.prune()).toBeGreaterThan(0);
  expect(await commentEvents()).toBe(0);
  // The outbox's pruning leaves webhook messages alone.
  expect((await db.webhookMessage.findMany({ select: { id: true } })).map((m) => m.id)).toEqual(expect.arrayContaining([waiting, recent]));
});
