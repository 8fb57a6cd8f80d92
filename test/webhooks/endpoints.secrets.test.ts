// Get and Rotate Advanced Webhook Endpoint Secret: a Standard Webhooks secret,
// and a rotation that keeps the old secret signing for 24 hours, checked with
// both verifier packages on real deliveries.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { testClock } from '../../server/lib/clock.js';
import type { Client } from '../../sdk/index.js';
import { expectCollabError, expectCredentialChecks } from '../helpers/credentials.js';
import { eventually } from '../helpers/eventually.js';
import type { Received } from '../helpers/receiver.js';
import { expectError, paths } from './webhook-workspace.js';
import { receiverEndpoint, startWebhookServer, type WebhookTestServer } from '../helpers/webhook-server.js';

const HOUR = 3_600_000;
// Verifiers accept a signature timestamp within 5 minutes of their own (real) time, and
// deliveries are timestamped by the server's clock: it is set to real time before each send.
const clock = testClock(Date.now());
let server: WebhookTestServer;
beforeAll(async () => {
  server = await startWebhookServer({}, { overrides: { clock } });
});
afterAll(() => server?.close());

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const keyBytes = (secret: string) => Buffer.from(secret.slice('whsec_'.length), 'base64').length;

/** Sends a test event at real time and returns the delivery as received. */
async function deliver(client: Client, endpointId: string, received: Received[]): Promise<Received> {
  clock.set(Date.now());
  const before = received.length;
  const { messageId } = (await client.webhooks.sendWebhookTestEvent({ endpointId })).data;
  await eventually(() => received.length > before, 'the delivery');
  const delivery = received[before]!;
  expect(delivery.headers['webhook-id']).toBe(messageId);
  return delivery;
}

const signatures = (delivery: Received) => String(delivery.headers['webhook-signature']).split(' ');
const headersOf = (delivery: Received) => delivery.headers as Record<string, string>;

/** Both verifier packages accept the delivery with this secret. */
function expectVerifies(secret: string, delivery: Received) {
  const payload = new Webhook(secret).verify(delivery.body, headersOf(delivery)) as { webhookId: string };
  expect(payload.webhookId).toBe(delivery.headers['webhook-id']);
  expect(new SvixWebhook(secret).verify(delivery.body, headersOf(delivery))).toEqual(payload);
}

/** Both verifier packages refuse the delivery with this secret. */
function expectRefused(secret: string, delivery: Received) {
  expect(() => new Webhook(secret).verify(delivery.body, headersOf(delivery))).toThrow(/No matching signature/);
  expect(() => new SvixWebhook(secret).verify(delivery.body, headersOf(delivery))).toThrow(/No matching signature/);
}

const stranger = `whsec_${randomBytes(32).toString('base64')}`;

describe('Get Advanced Webhook Endpoint Secret', () => {
  it('is whsec_ + base64 of 32 bytes, its own per endpoint, the same on every read, and signs the deliveries', async () => {
    const { client } = await server.webhookApp();
    const endpoint = await receiverEndpoint(client);
    const res = await client.webhooks.getWebhookEndpointSecret({ endpointId: endpoint.id });
    expect(res.data).toEqual({ endpointId: endpoint.id, secret: expect.stringMatching(SECRET) });
    const { secret } = res.data;
    expect(keyBytes(secret)).toBe(32);
    expect((await client.webhooks.getWebhookEndpointSecret({ endpointId: endpoint.id })).data.secret).toBe(secret);
    const other = (await client.webhooks.createWebhookEndpoint({ url: endpoint.url })).data;
    expect((await client.webhooks.getWebhookEndpointSecret({ endpointId: other.id })).data.secret).not.toBe(secret);

    const delivery = await deliver(client, endpoint.id, endpoint.received);
    expect(signatures(delivery)).toEqual([expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/)]);
    expectVerifies(secret, delivery);
    expectRefused(stranger, delivery);
  });

  it('is NOT_FOUND for an unknown endpoint, and refuses bad requests', async () => {
    const { ws, client } = await server.webhookApp();
    await expectCollabError(client.webhooks.getWebhookEndpointSecret({ endpointId: 'ep_unknown' }), 'NOT_FOUND', /ep_unknown/);
    await expectError(server, ws, paths.getWebhookEndpointSecret, {}, 'INVALID_ARGUMENT', /data\.endpointId is required/);
    await expectError(server, ws, paths.getWebhookEndpointSecret, { endpointId: '__proto__' }, 'INVALID_ARGUMENT', /data\.endpointId/);
    await expectError(server, ws, paths.getWebhookEndpointSecret, { endpointId: 'ep_x', secret: 'whsec_x' }, 'INVALID_ARGUMENT', /data\.secret/);
  });

  it('needs the application credentials', async () => {
    const { ws, client } = await server.webhookApp();
    const endpoint = (await client.webhooks.createWebhookEndpoint({ url: 'http://127.0.0.1:1/' })).data;
    await expectCredentialChecks(server, ws, paths.getWebhookEndpointSecret, { endpointId: endpoint.id });
  });
});

describe('Rotate Advanced Webhook Endpoint Secret', () => {
  it('returns a new secret, which Get then returns; deliveries carry both signatures, and either secret verifies them', async () => {
    const { client } = await server.webhookApp();
    const endpoint = await receiverEndpoint(client);
    const old = (await client.webhooks.getWebhookEndpointSecret({ endpointId: endpoint.id })).data.secret;
    const rotated = await client.webhooks.rotateWebhookEndpointSecret({ endpointId: endpoint.id });
    expect(rotated.data).toEqual({ endpointId: endpoint.id, secret: expect.stringMatching(SECRET) });
    const fresh = rotated.data.secret;
    expect(fresh).not.toBe(old);
    expect(keyBytes(fresh)).toBe(32);
    expect((await client.webhooks.getWebhookEndpointSecret({ endpointId: endpoint.id })).data.secret).toBe(fresh);

    const delivery = await deliver(client, endpoint.id, endpoint.received);
    // `v1,<new> v1,<old>`, each as the standardwebhooks package signs.
    const id = String(delivery.headers['webhook-id']);
    const at = new Date(Number(delivery.headers['webhook-timestamp']) * 1000);
    expect(signatures(delivery)).toEqual([new Webhook(fresh).sign(id, at, delivery.body), new Webhook(old).sign(id, at, delivery.body)]);
    expectVerifies(fresh, delivery);
    expectVerifies(old, delivery);
    expectRefused(stranger, delivery);

    // Rotating again within the 24 hours drops the oldest secret.
    const third = (await client.webhooks.rotateWebhookEndpointSecret({ endpointId: endpoint.id })).data.secret;
    expect(new Set([old, fresh, third]).size).toBe(3);
    const next = await deliver(client, endpoint.id, endpoint.received);
    expect(signatures(next)).toHaveLength(2);
    expectVerifies(third, next);
    expectVerifies(fresh, next);
    expectRefused(old, next);
  });

  it('keeps the previous secret for 24 hours from the rotation, and only that long', async () => {
    const { client } = await server.webhookApp();
    const endpoint = await receiverEndpoint(client);
    const first = (await client.webhooks.getWebhookEndpointSecret({ endpointId: endpoint.id })).data.secret;

    // Rotated 24 h and a minute ago: the first secret no longer signs.
    clock.set(Date.now() - 24 * HOUR - 60_000);
    const second = (await client.webhooks.rotateWebhookEndpointSecret({ endpointId: endpoint.id })).data.secret;
    const late = await deliver(client, endpoint.id, endpoint.received);
    expect(signatures(late)).toHaveLength(1);
    expectVerifies(second, late);
    expectRefused(first, late);

    // Rotated a minute less than 24 h ago: the previous secret still signs.
    clock.set(Date.now() - 24 * HOUR + 60_000);
    const third = (await client.webhooks.rotateWebhookEndpointSecret({ endpointId: endpoint.id })).data.secret;
    const inside = await deliver(client, endpoint.id, endpoint.received);
    expect(signatures(inside)).toHaveLength(2);
    expectVerifies(third, inside);
    expectVerifies(second, inside);
    expectRefused(first, inside);
  });

  it('of two rotations at once, each secret verifies: the one Get returns signs with the other as the previous', async () => {
    const { client } = await server.webhookApp();
    const endpoint = await receiverEndpoint(client);
    const original = (await client.webhooks.getWebhookEndpointSecret({ endpointId: endpoint.id })).data.secret;
    const results = await Promise.all([0, 1].map(() => client.webhooks.rotateWebhookEndpointSecret({ endpointId: endpoint.id })));
    const [r1, r2] = results.map((r) => r.data.secret);
    expect(r1).not.toBe(r2);
    const current = (await client.webhooks.getWebhookEndpointSecret({ endpointId: endpoint.id })).data.secret;
    expect([r1, r2]).toContain(current);
    const delivery = await deliver(client, endpoint.id, endpoint.received);
    expectVerifies(r1!, delivery);
    expectVerifies(r2!, delivery);
    expectRefused(original, delivery);
  });

  it('is NOT_FOUND for an unknown endpoint, and refuses bad requests', async () => {
    const { ws, client } = await server.webhookApp();
    await expectCollabError(client.webhooks.rotateWebhookEndpointSecret({ endpointId: 'ep_unknown' }), 'NOT_FOUND', /ep_unknown/);
    await expectError(server, ws, paths.rotateWebhookEndpointSecret, {}, 'INVALID_ARGUMENT', /data\.endpointId is required/);
    await expectError(server, ws, paths.rotateWebhookEndpointSecret, { endpointId: '__proto__' }, 'INVALID_ARGUMENT', /data\.endpointId/);
    // The secret is generated by the service, never accepted.
    await expectError(server, ws, paths.rotateWebhookEndpointSecret, { endpointId: 'ep_x', secret: stranger }, 'INVALID_ARGUMENT', /data\.secret/);
  });

  it('needs the application credentials, and changes nothing without them', async () => {
    const { ws, client } = await server.webhookApp();
    const endpoint = (await client.webhooks.createWebhookEndpoint({ url: 'http://127.0.0.1:1/' })).data;
    const secret = (await client.webhooks.getWebhookEndpointSecret({ endpointId: endpoint.id })).data.secret;
    await expectCredentialChecks(server, ws, paths.rotateWebhookEndpointSecret, { endpointId: endpoint.id });
    expect((await client.webhooks.getWebhookEndpointSecret({ endpointId: endpoint.id })).data.secret).toBe(secret);
  });
});
