// Get Advanced Webhook Messages, Get Advanced Webhook Delivery Attempts and
// Resend Advanced Webhook Message: what was sent to an endpoint, each try,
// newest first, filtered and paged; sending a message again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testClock } from '../../server/lib/clock.js';
import type { Client } from '../../sdk/index.js';
import { expectCollabError, expectCredentialChecks } from '../helpers/credentials.js';
import { eventually } from '../helpers/eventually.js';
import { startReceiver } from '../helpers/receiver.js';
import { expectError, paths } from './webhook-workspace.js';
import type { WorkspaceCredentials } from '../helpers/server.js';
import { startWebhookServer, type WebhookTestServer } from '../helpers/webhook-server.js';

// The clock moves only when told, so a delivery waiting for its next try stays pending;
// a retry scale of 0 makes every retry due at once, so a failing message fails for good right away.
const clock = testClock(Date.UTC(2026, 4, 1, 8));
let server: WebhookTestServer;
beforeAll(async () => {
  server = await startWebhookServer({ WEBHOOK_RETRY_SCALE: '0' }, { overrides: { clock } });
});
afterAll(() => server?.close());

type Mode = 'ok' | 'later' | 'fail';
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A receiver that answers as the test event's `data.mode` says (or `answer.mode` when set):
 * ok 200 "fine"; later 503 with Retry-After: 3600 (pending for an hour); fail 500 "boom".
 */
async function modalReceiver() {
  const answer: { mode?: Mode } = {};
  const receiver = await startReceiver((req, res) => {
    const mode = answer.mode ?? (JSON.parse(req.body) as { data: { mode: Mode } }).data.mode;
    if (mode === 'ok') res.writeHead(200).end('fine');
    else if (mode === 'later') res.writeHead(503, { 'retry-after': '3600' }).end('busy');
    else res.writeHead(500).end('boom');
  });
  return { ...receiver, answer };
}

async function endpointAndReceiver(client: Client) {
  const receiver = await modalReceiver();
  const endpoint = (await client.webhooks.createWebhookEndpoint({ url: receiver.url })).data;
  return { receiver, endpointId: endpoint.id };
}

const messages = async (client: Client, endpointId: string, status?: 'pending' | 'succeeded' | 'failed' | 'canceled') =>
  (await client.webhooks.getWebhookMessages({ endpointId, ...(status ? { status } : {}) })).data;
const attempts = async (client: Client, endpointId: string, messageId?: string) =>
  (await client.webhooks.getWebhookAttempts({ endpointId, ...(messageId ? { messageId } : {}) })).data;
const statusOf = async (client: Client, endpointId: string, messageId: string) =>
  (await messages(client, endpointId)).find((m) => m.messageId === messageId)?.status;

async function send(client: Client, endpointId: string, mode: Mode) {
  clock.advance(1000);
  return (await client.webhooks.sendWebhookTestEvent({ endpointId, data: { mode } })).data.messageId;
}

async function pagesOf<T>(fetch: (pageToken?: string) => Promise<{ data: T[]; pageToken: string | null }>): Promise<T[][]> {
  const pages: T[][] = [];
  let token: string | undefined;
  do {
    const page = await fetch(token);
    pages.push(page.data);
    token = page.pageToken ?? undefined;
  } while (token);
  return pages;
}

describe('Get Advanced Webhook Messages and Get Advanced Webhook Delivery Attempts', () => {
  let client: Client;
  let ws: WorkspaceCredentials;
  let endpointId: string;
  const ids = { canceled: '', succeeded: '', pending: '', failed: '' };
  const sentAt = { canceled: 0, succeeded: 0, pending: 0, failed: 0 };

  beforeAll(async () => {
    ({ ws, client } = await server.webhookApp());
    ({ endpointId } = await endpointAndReceiver(client));
    // Canceled: pending when the endpoint is disabled, then due.
    ids.canceled = await send(client, endpointId, 'later');
    sentAt.canceled = clock.nowMs();
    await eventually(async () => (await attempts(client, endpointId, ids.canceled)).length === 1, 'the first try');
    await client.webhooks.updateWebhookEndpoint({ endpointId, disabled: true });
    clock.advance(HOUR + 1000);
    await eventually(async () => (await statusOf(client, endpointId, ids.canceled)) === 'canceled', 'the cancellation');
    await client.webhooks.updateWebhookEndpoint({ endpointId, disabled: false });

    ids.succeeded = await send(client, endpointId, 'ok');
    sentAt.succeeded = clock.nowMs();
    await eventually(async () => (await statusOf(client, endpointId, ids.succeeded)) === 'succeeded', 'the success');
    ids.pending = await send(client, endpointId, 'later');
    sentAt.pending = clock.nowMs();
    await eventually(async () => (await attempts(client, endpointId, ids.pending)).length === 1, 'the first try');
    ids.failed = await send(client, endpointId, 'fail');
    sentAt.failed = clock.nowMs();
    await eventually(async () => (await statusOf(client, endpointId, ids.failed)) === 'failed', 'the last try');
  });

  it('lists the messages newest first, each with its status, tries, next try and payload', async () => {
    const listed = await messages(client, endpointId);
    expect(listed.map((m) => [m.messageId, m.status, m.attempts])).toEqual([
      [ids.failed, 'failed', 8],
      [ids.pending, 'pending', 1],
      [ids.succeeded, 'succeeded', 1],
      [ids.canceled, 'canceled', 1],
    ]);
    expect(listed[1]).toEqual({
      messageId: ids.pending,
      endpointId,
      eventType: 'webhook.test',
      status: 'pending',
      attempts: 1,
      nextAttemptAt: iso(sentAt.pending + HOUR),
      createdAt: iso(sentAt.pending),
      payload: {
        event: 'webhook.test',
        actionType: 'test',
        source: 'webhook',
        data: { mode: 'later' },
        webhookId: ids.pending,
        timestamp: sentAt.pending,
        metadata: { apiKey: ws.apiKey, organizationId: null, documentId: null },
      },
    });
    for (const message of [listed[0]!, listed[2]!, listed[3]!]) expect(message.nextAttemptAt).toBeNull();
  });

  it('filters by status', async () => {
    for (const status of ['pending', 'succeeded', 'failed', 'canceled'] as const) {
      expect({ status, ids: (await messages(client, endpointId, status)).map((m) => m.messageId) }).toEqual({ status, ids: [ids[status]] });
    }
  });

  it('pages messages without gaps or repeats; a token of another query is refused', async () => {
    const pages = await pagesOf((pageToken) => client.webhooks.getWebhookMessages({ endpointId, pageSize: 1, ...(pageToken ? { pageToken } : {}) }));
    expect(pages.map((page) => page.map((m) => m.messageId))).toEqual([[ids.failed], [ids.pending], [ids.succeeded], [ids.canceled]]);
    const token = (await client.webhooks.getWebhookMessages({ endpointId, pageSize: 1 })).pageToken!;
    const filtered = (await client.webhooks.getWebhookMessages({ endpointId, pageSize: 1, status: 'failed' })).pageToken;
    expect(filtered).toBeNull();
    const { endpointId: other } = await endpointAndReceiver(client);
    for (const data of [
      { endpointId, pageToken: token, status: 'pending' },
      { endpointId: other, pageToken: token },
      { endpointId, pageToken: (await client.webhooks.getWebhookAttempts({ endpointId, pageSize: 1 })).pageToken },
    ]) {
      await expectError(server, ws, paths.getWebhookMessages, data, 'INVALID_ARGUMENT', /pageToken/);
    }
  });

  it('lists every try newest first, with its answer, and filters by messageId', async () => {
    const all = await attempts(client, endpointId);
    expect(all).toHaveLength(11);
    expect(all.map((a) => a.messageId)).toEqual([...Array(8).fill(ids.failed), ids.pending, ids.succeeded, ids.canceled]);
    const times = all.map((a) => Date.parse(a.createdAt));
    expect([...times].sort((x, y) => y - x)).toEqual(times);
    expect(new Set(all.map((a) => a.attemptId)).size).toBe(11);

    const failed = await attempts(client, endpointId, ids.failed);
    expect(failed).toEqual(all.slice(0, 8));
    for (const attempt of failed) {
      expect(attempt).toMatchObject({ endpointId, status: 'failed', responseStatusCode: 500, response: 'boom', trigger: 'scheduled' });
    }
    expect(failed[0]!.nextAttemptAt).toBeNull(); // the last try
    expect(await attempts(client, endpointId, ids.pending)).toEqual([
      {
        attemptId: expect.stringMatching(/^atmpt_/),
        messageId: ids.pending,
        endpointId,
        status: 'failed',
        responseStatusCode: 503,
        response: 'busy',
        durationMs: expect.any(Number),
        trigger: 'scheduled',
        nextAttemptAt: iso(sentAt.pending + HOUR),
        createdAt: iso(sentAt.pending),
      },
    ]);
    expect(await attempts(client, endpointId, ids.succeeded)).toEqual([
      expect.objectContaining({ status: 'succeeded', responseStatusCode: 200, response: 'fine', nextAttemptAt: null, trigger: 'scheduled' }),
    ]);
    // A message never sent to this endpoint has no attempts here.
    expect(await attempts(client, endpointId, 'msg_unknown')).toEqual([]);
  });

  it('pages attempts without gaps or repeats; a token of another query is refused', async () => {
    const all = await attempts(client, endpointId);
    const pages = await pagesOf((pageToken) => client.webhooks.getWebhookAttempts({ endpointId, pageSize: 3, ...(pageToken ? { pageToken } : {}) }));
    expect(pages.map((page) => page.length)).toEqual([3, 3, 3, 2]);
    expect(pages.flat()).toEqual(all);
    const byMessage = await pagesOf((pageToken) => client.webhooks.getWebhookAttempts({ endpointId, messageId: ids.failed, pageSize: 5, ...(pageToken ? { pageToken } : {}) }));
    expect(byMessage.flat()).toEqual(all.slice(0, 8));
    const token = (await client.webhooks.getWebhookAttempts({ endpointId, messageId: ids.failed, pageSize: 1 })).pageToken!;
    await expectError(server, ws, paths.getWebhookAttempts, { endpointId, pageToken: token }, 'INVALID_ARGUMENT', /pageToken/);
    await expectError(server, ws, paths.getWebhookAttempts, { endpointId, messageId: ids.pending, pageToken: token }, 'INVALID_ARGUMENT', /pageToken/);
  });

  it('refuses bad filters and paging; NOT_FOUND for an unknown endpoint', async () => {
    for (const path of [paths.getWebhookMessages, paths.getWebhookAttempts]) {
      await expectError(server, ws, path, {}, 'INVALID_ARGUMENT', /data\.endpointId is required/);
      await expectError(server, ws, path, { endpointId: '__proto__' }, 'INVALID_ARGUMENT', /data\.endpointId/);
      await expectError(server, ws, path, { endpointId, pageSize: 0 }, 'INVALID_ARGUMENT', /data\.pageSize/);
      await expectError(server, ws, path, { endpointId, pageToken: 'forged' }, 'INVALID_ARGUMENT', /pageToken/);
      await expectError(server, ws, path, { endpointId, eventType: 'x' }, 'INVALID_ARGUMENT', /unknown field\(s\) data\.eventType/);
      await expectError(server, ws, path, { endpointId: 'ep_unknown' }, 'NOT_FOUND', /ep_unknown/);
    }
    await expectError(server, ws, paths.getWebhookMessages, { endpointId, status: 'done' }, 'INVALID_ARGUMENT', /data\.status/);
    await expectError(server, ws, paths.getWebhookAttempts, { endpointId, status: 'failed' }, 'INVALID_ARGUMENT', /data\.status/);
    await expectError(server, ws, paths.getWebhookAttempts, { endpointId, messageId: '' }, 'INVALID_ARGUMENT', /data\.messageId/);
  });

  it('needs the application credentials', async () => {
    await expectCredentialChecks(server, ws, paths.getWebhookMessages, { endpointId });
    await expectCredentialChecks(server, ws, paths.getWebhookAttempts, { endpointId });
  });
});

describe('Resend Advanced Webhook Message', () => {
  it('sends a failed message again now, as a manual try with the same webhook-id and body, counting tries afresh', async () => {
    const { client } = await server.webhookApp();
    const { receiver, endpointId } = await endpointAndReceiver(client);
    const messageId = await send(client, endpointId, 'fail');
    await eventually(async () => (await statusOf(client, endpointId, messageId)) === 'failed', 'the last try');
    expect(receiver.received).toHaveLength(8);

    receiver.answer.mode = 'ok';
    expect((await client.webhooks.resendWebhookMessage({ endpointId, messageId })).data).toEqual({ messageId, endpointId, status: 'pending' });
    await eventually(async () => (await statusOf(client, endpointId, messageId)) === 'succeeded', 'the resend');
    expect((await messages(client, endpointId))[0]).toMatchObject({ messageId, status: 'succeeded', attempts: 1, nextAttemptAt: null });
    const tries = await attempts(client, endpointId, messageId);
    expect(tries).toHaveLength(9);
    expect(tries[0]).toMatchObject({ status: 'succeeded', responseStatusCode: 200, trigger: 'manual' });
    expect(tries.slice(1).map((a) => a.trigger)).toEqual(Array(8).fill('scheduled'));
    expect(receiver.received).toHaveLength(9);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([messageId]));
    expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1);
  });

  it('tries a pending message now rather than at its next scheduled try', async () => {
    const { client } = await server.webhookApp();
    const { receiver, endpointId } = await endpointAndReceiver(client);
    const messageId = await send(client, endpointId, 'later');
    await eventually(async () => (await attempts(client, endpointId, messageId)).length === 1, 'the first try');
    receiver.answer.mode = 'ok';
    await client.webhooks.resendWebhookMessage({ endpointId, messageId });
    // The clock has not moved: only the resend makes this try due.
    await eventually(async () => (await statusOf(client, endpointId, messageId)) === 'succeeded', 'the resend');
    expect((await attempts(client, endpointId, messageId)).map((a) => [a.trigger, a.status])).toEqual([
      ['manual', 'succeeded'],
      ['scheduled', 'failed'],
    ]);
  });

  it('brings back a message canceled while the endpoint was disabled, also while advanced webhooks are off', async () => {
    const { client } = await server.webhookApp();
    const { receiver, endpointId } = await endpointAndReceiver(client);
    const messageId = await send(client, endpointId, 'later');
    await eventually(async () => (await attempts(client, endpointId, messageId)).length === 1, 'the first try');
    await client.webhooks.updateWebhookEndpoint({ endpointId, disabled: true });
    await expectCollabError(client.webhooks.resendWebhookMessage({ endpointId, messageId }), 'FAILED_PRECONDITION', /disabled/);
    clock.advance(HOUR + 1000);
    await eventually(async () => (await statusOf(client, endpointId, messageId)) === 'canceled', 'the cancellation');
    await client.webhooks.updateWebhookEndpoint({ endpointId, disabled: false });
    // Re-enabling alone does not send it.
    expect(await statusOf(client, endpointId, messageId)).toBe('canceled');
    await client.webhooks.updateAdvancedWebhookConfig({ isEnabled: false });
    receiver.answer.mode = 'ok';
    await client.webhooks.resendWebhookMessage({ endpointId, messageId });
    await eventually(async () => (await statusOf(client, endpointId, messageId)) === 'succeeded', 'the resend');
  });

  it('is NOT_FOUND for an unknown endpoint, an unknown message, or one never sent to this endpoint', async () => {
    const { ws, client } = await server.webhookApp();
    const { endpointId } = await endpointAndReceiver(client);
    const { endpointId: other } = await endpointAndReceiver(client);
    const messageId = await send(client, endpointId, 'ok');
    await expectError(server, ws, paths.resendWebhookMessage, { endpointId: 'ep_unknown', messageId }, 'NOT_FOUND', /ep_unknown/);
    await expectError(server, ws, paths.resendWebhookMessage, { endpointId, messageId: 'msg_unknown' }, 'NOT_FOUND', /msg_unknown/);
    await expectError(server, ws, paths.resendWebhookMessage, { endpointId: other, messageId }, 'NOT_FOUND', new RegExp(messageId));
    expect(await messages(client, other)).toEqual([]);
  });

  it('refuses bad requests', async () => {
    const { ws, client } = await server.webhookApp();
    const { endpointId } = await endpointAndReceiver(client);
    await expectError(server, ws, paths.resendWebhookMessage, { endpointId }, 'INVALID_ARGUMENT', /data\.messageId is required/);
    await expectError(server, ws, paths.resendWebhookMessage, { messageId: 'msg_x' }, 'INVALID_ARGUMENT', /data\.endpointId is required/);
    await expectError(server, ws, paths.resendWebhookMessage, { endpointId, messageId: '__proto__' }, 'INVALID_ARGUMENT', /data\.messageId/);
    await expectError(server, ws, paths.resendWebhookMessage, { endpointId, messageId: 'msg_x', at: 0 }, 'INVALID_ARGUMENT', /data\.at/);
  });

  it('needs the application credentials, and sends nothing without them', async () => {
    const { ws, client } = await server.webhookApp();
    const { endpointId } = await endpointAndReceiver(client);
    const messageId = await send(client, endpointId, 'fail');
    await eventually(async () => (await statusOf(client, endpointId, messageId)) === 'failed', 'the last try');
    await expectCredentialChecks(server, ws, paths.resendWebhookMessage, { endpointId, messageId });
    expect(await statusOf(client, endpointId, messageId)).toBe('failed');
  });
});
