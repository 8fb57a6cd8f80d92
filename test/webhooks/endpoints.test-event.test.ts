// Send Test Event: one message to one endpoint, whatever its filters, signed
// and recorded like any other; and the exact shape of every payload.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import type { Client } from '../../sdk/index.js';
import { expectCollabError, expectCredentialChecks } from '../helpers/credentials.js';
import { eventually } from '../helpers/eventually.js';
import type { Received } from '../helpers/receiver.js';
import type { WorkspaceCredentials } from '../helpers/server.js';
import { expectError, paths } from './webhook-workspace.js';
import { noContent, receiverEndpoint, startWebhookServer, type WebhookTestServer } from '../helpers/webhook-server.js';

let server: WebhookTestServer;
beforeAll(async () => {
  server = await startWebhookServer();
});
afterAll(() => server?.close());

const PAYLOAD_KEYS = ['actionType', 'data', 'event', 'metadata', 'source', 'timestamp', 'webhookId'];

/** The verified payload of the only delivery a receiver got. */
async function onlyDelivery(received: Received[], secret: string): Promise<Record<string, any>> {
  await eventually(() => received.length >= 1, 'the delivery');
  expect(received).toHaveLength(1);
  return new Webhook(secret).verify(received[0]!.body, received[0]!.headers as Record<string, string>) as Record<string, any>;
}

describe('Send Test Event', () => {
  let ws: WorkspaceCredentials;
  let client: Client;
  beforeAll(async () => ({ ws, client } = await server.webhookApp()));

  it('delivers webhook.test with empty data to that endpoint only, whatever its filterTypes and channels', async () => {
    const target = await receiverEndpoint(client, noContent, { filterTypes: ['comment.add'], channels: ['org:nowhere'] });
    const bystander = await receiverEndpoint(client);
    const before = Date.now();
    const res = await client.webhooks.sendWebhookTestEvent({ endpointId: target.id });
    const after = Date.now();
    expect(res.data).toEqual({ messageId: expect.stringMatching(/^msg_/), endpointId: target.id });
    const payload = await onlyDelivery(target.received, target.secret);
    expect(Object.keys(payload).sort()).toEqual(PAYLOAD_KEYS);
    expect(payload).toEqual({
      event: 'webhook.test',
      actionType: 'test',
      source: 'webhook',
      data: {},
      webhookId: res.data.messageId,
      timestamp: expect.any(Number),
      metadata: { apiKey: ws.apiKey, organizationId: null, documentId: null },
    });
    expect(payload.timestamp).toBeGreaterThanOrEqual(before);
    expect(payload.timestamp).toBeLessThanOrEqual(after);
    expect(target.received[0]!.headers['webhook-id']).toBe(res.data.messageId);

    // Recorded like any message: listed for the target, never for the other endpoint (deliveries are written with the message).
    await eventually(async () => (await client.webhooks.getWebhookMessages({ endpointId: target.id, status: 'succeeded' })).data.length === 1, 'the success');
    const [message] = (await client.webhooks.getWebhookMessages({ endpointId: target.id })).data;
    expect(message).toMatchObject({ messageId: res.data.messageId, eventType: 'webhook.test', status: 'succeeded', attempts: 1, payload });
    expect((await client.webhooks.getWebhookMessages({ endpointId: bystander.id })).data).toEqual([]);
    expect(bystander.received).toEqual([]);
  });

  it('sends a custom event type and data as given', async () => {
    const target = await receiverEndpoint(client);
    const data = { invoice: { id: 'inv_1', lines: [{ amount: 12.5, paid: true }, null] }, constructor: 'ordinary', note: 'naïve ✓' };
    const { messageId } = (await client.webhooks.sendWebhookTestEvent({ endpointId: target.id, eventType: 'invoice.line.paid', data })).data;
    const payload = await onlyDelivery(target.received, target.secret);
    expect(payload).toEqual({
      event: 'invoice.line.paid',
      actionType: 'paid',
      source: 'invoice',
      data,
      webhookId: messageId,
      timestamp: expect.any(Number),
      metadata: { apiKey: ws.apiKey, organizationId: null, documentId: null },
    });
    // A type without a dot is its own source and action.
    const plain = await receiverEndpoint(client);
    await client.webhooks.sendWebhookTestEvent({ endpointId: plain.id, eventType: 'ping' });
    expect(await onlyDelivery(plain.received, plain.secret)).toMatchObject({ event: 'ping', source: 'ping', actionType: 'ping', data: {} });
  });

  it('is FAILED_PRECONDITION for a disabled endpoint and while advanced webhooks are disabled, sending nothing', async () => {
    const { client: own } = await server.webhookApp();
    const target = await receiverEndpoint(own, noContent, { disabled: true });
    await expectCollabError(own.webhooks.sendWebhookTestEvent({ endpointId: target.id }), 'FAILED_PRECONDITION', /disabled/);
    await own.webhooks.updateWebhookEndpoint({ endpointId: target.id, disabled: false });
    await own.webhooks.updateAdvancedWebhookConfig({ isEnabled: false });
    await expectCollabError(own.webhooks.sendWebhookTestEvent({ endpointId: target.id }), 'FAILED_PRECONDITION', /advanced webhooks are disabled/);
    expect((await own.webhooks.getWebhookMessages({ endpointId: target.id })).data).toEqual([]);
    await own.webhooks.updateAdvancedWebhookConfig({ isEnabled: true });
    await own.webhooks.sendWebhookTestEvent({ endpointId: target.id });
    await onlyDelivery(target.received, target.secret);
  });

  it('is NOT_FOUND for an unknown endpoint', async () => {
    await expectCollabError(client.webhooks.sendWebhookTestEvent({ endpointId: 'ep_unknown' }), 'NOT_FOUND', /ep_unknown/);
  });

  it('refuses bad event types and data', async () => {
    const endpointId = (await client.webhooks.createWebhookEndpoint({ url: 'http://127.0.0.1:1/' })).data.id;
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{}, /data\.endpointId is required/],
      [{ endpointId: '__proto__' }, /data\.endpointId/],
      [{ endpointId, eventType: '' }, /data\.eventType/],
      [{ endpointId, eventType: 'e'.repeat(257) }, /data\.eventType/],
      [{ endpointId, eventType: 5 }, /data\.eventType must be string/],
      [{ endpointId, data: 'text' }, /data\.data/],
      [{ endpointId, data: [1, 2] }, /data\.data/],
      [{ endpointId, data: null }, /data\.data/],
      [{ endpointId, data: { big: 'x'.repeat(65_536) } }, /data\.data: must be at most 65536 bytes/],
      [{ endpointId, data: { a: { b: { c: { d: { e: { f: { g: { h: { i: 1 } } } } } } } } } }, /data\.data\..*8 levels/],
      [{ endpointId, channels: ['org:o'] }, /unknown field\(s\) data\.channels/],
    ];
    for (const [data, message] of bad) await expectError(server, ws, paths.sendWebhookTestEvent, data, 'INVALID_ARGUMENT', message);
    expect((await client.webhooks.getWebhookMessages({ endpointId })).data).toEqual([]);
  });

  it('needs the application credentials', async () => {
    const endpointId = (await client.webhooks.createWebhookEndpoint({ url: 'http://127.0.0.1:1/' })).data.id;
    await expectCredentialChecks(server, ws, paths.sendWebhookTestEvent, { endpointId });
    expect((await client.webhooks.getWebhookMessages({ endpointId })).data).toEqual([]);
  });
});

describe('the payload of an event', () => {
  it('has exactly event, actionType, source, data, webhookId, timestamp and metadata {apiKey, organizationId, documentId}', async () => {
    const { ws, client } = await server.webhookApp();
    await client.organizations.addOrganization({ organizationId: 'org' });
    await client.organizations.addDocument({ organizationId: 'org', documentId: 'doc' });
    const target = await receiverEndpoint(client, noContent, { filterTypes: ['comment_annotation.status_change'], channels: ['doc:org/doc'] });
    await client.comments.addCommentAnnotations({
      organizationId: 'org',
      documentId: 'doc',
      commentAnnotations: [{ annotationId: 'a1', from: { userId: 'ann' }, commentData: [{ commentText: 'hello' }] }],
    });
    const before = Date.now();
    await client.comments.updateCommentAnnotations({
      organizationId: 'org',
      documentId: 'doc',
      annotationIds: ['a1'],
      actionUser: { userId: 'bob' },
      updatedData: { status: 'resolved' },
    });
    const payload = await onlyDelivery(target.received, target.secret);
    expect(Object.keys(payload).sort()).toEqual(PAYLOAD_KEYS);
    expect(payload).toMatchObject({
      event: 'comment_annotation.status_change',
      actionType: 'status_change',
      source: 'comment_annotation',
      webhookId: target.received[0]!.headers['webhook-id'],
      metadata: { apiKey: ws.apiKey, organizationId: 'org', documentId: 'doc' },
    });
    expect(Object.keys(payload.metadata).sort()).toEqual(['apiKey', 'documentId', 'organizationId']);
    expect(payload.data.actionUser).toMatchObject({ userId: 'bob' });
    expect(payload.timestamp).toBeGreaterThanOrEqual(before);
  });
});
