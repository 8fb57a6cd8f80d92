// Create, Get, Update and Delete Advanced Webhook Endpoint: the record, its
// validation, the uid per application, paging, and the address guard.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testClock } from '../../server/lib/clock.js';
import type { Client } from '../../sdk/index.js';
import { expectCollabError, expectCredentialChecks } from '../helpers/credentials.js';
import { eventually } from '../helpers/eventually.js';
import { startReceiver } from '../helpers/receiver.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';
import { expectError, paths } from './webhook-workspace.js';
import { enableWebhooks } from '../helpers/webhooks.js';
import { startWebhookServer, type WebhookTestServer } from '../helpers/webhook-server.js';

const clock = testClock(Date.UTC(2026, 3, 1, 12));
const URL_A = 'http://127.0.0.1:1/a';
const URL_B = 'https://127.0.0.1:2/b?x=1#frag';

let server: WebhookTestServer;
beforeAll(async () => {
  server = await startWebhookServer({}, { overrides: { clock } });
});
afterAll(() => server?.close());

const iso = () => new Date(clock.nowMs()).toISOString();

/** Request fields every endpoint operation checks the same way, on create and update. */
const INVALID_FIELDS: Array<[string, Record<string, unknown>, RegExp]> = [
  ['not a URL', { url: 'not a url' }, /data\.url: must be a valid http\(s\) URL/],
  ['a relative URL', { url: '/hook' }, /data\.url/],
  ['no host', { url: 'http://' }, /data\.url/],
  ['ftp scheme', { url: 'ftp://files.example.com/x' }, /data\.url/],
  ['javascript scheme', { url: 'javascript:alert(1)' }, /data\.url/],
  ['file scheme', { url: 'file:///etc/passwd' }, /data\.url/],
  ['credentials in the URL', { url: 'http://user:pass@127.0.0.1:1/' }, /credentials/],
  ['a URL over 2048 characters', { url: `http://127.0.0.1:1/${'a'.repeat(2048)}` }, /data\.url/],
  ['a non-string URL', { url: 42 }, /data\.url must be string/],
  ['empty filterTypes', { filterTypes: [] }, /data\.filterTypes/],
  ['an empty filter type', { filterTypes: [''] }, /data\.filterTypes\[0\]/],
  ['101 filterTypes', { filterTypes: Array.from({ length: 101 }, (_, i) => `t${i}`) }, /data\.filterTypes/],
  ['empty channels', { channels: [] }, /data\.channels/],
  ['a non-string channel', { channels: [7] }, /data\.channels\[0\]/],
  ['rateLimit 0', { rateLimit: 0 }, /data\.rateLimit/],
  ['a negative rateLimit', { rateLimit: -1 }, /data\.rateLimit/],
  ['a non-integer rateLimit', { rateLimit: 1.5 }, /data\.rateLimit/],
  ['a rateLimit too big', { rateLimit: 100_001 }, /data\.rateLimit/],
  ['a string rateLimit', { rateLimit: '5' }, /data\.rateLimit must be number/],
  ['an empty uid', { uid: '' }, /data\.uid/],
  ['a uid with a space', { uid: 'my hook' }, /data\.uid: may contain only/],
  ['a uid with a slash', { uid: 'a/b' }, /data\.uid/],
  ['a uid over 256 characters', { uid: 'u'.repeat(257) }, /data\.uid/],
  ['uid "__proto__"', { uid: '__proto__' }, /data\.uid: .*must not be "__proto__"/],
  ['a number metadata value', { metadata: { team: 1 } }, /data\.metadata\.team must be string/],
  ['a null metadata value', { metadata: { team: null } }, /data\.metadata\.team/],
  ['an object metadata value', { metadata: { team: { name: 'x' } } }, /data\.metadata\.team/],
  ['metadata that is a list', { metadata: ['x'] }, /data\.metadata/],
  ['51 metadata keys', { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }, /data\.metadata: at most 50 keys/],
  ['a metadata key over 256 characters', { metadata: { ['k'.repeat(257)]: 'v' } }, /data\.metadata/],
  ['a metadata value over 1024 characters', { metadata: { k: 'v'.repeat(1025) } }, /data\.metadata\.k/],
  ['a description over 1024 characters', { description: 'd'.repeat(1025) }, /data\.description/],
  ['a non-boolean disabled', { disabled: 'no' }, /data\.disabled must be boolean/],
  ['an unknown field', { secret: 'whsec_mine' }, /unknown field\(s\) data\.secret/],
];

describe('Create Advanced Webhook Endpoint', () => {
  let ws: WorkspaceCredentials;
  let client: Client;
  beforeAll(async () => ({ ws, client } = await server.webhookApp()));

  it('returns the record with its defaults', async () => {
    clock.advance(1000);
    const res = await server.post(paths.createWebhookEndpoint, { data: { url: URL_A } }, appHeaders(ws));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      result: {
        status: 'success',
        message: expect.any(String),
        data: {
          id: expect.stringMatching(/^ep_[0-9A-Z]{26}$/),
          url: URL_A,
          description: '',
          filterTypes: null,
          channels: null,
          disabled: false,
          rateLimit: null,
          uid: null,
          metadata: {},
          createdAt: iso(),
          updatedAt: iso(),
        },
      },
    });
    // The signing secret is never part of the record.
    expect(JSON.stringify(res.body)).not.toMatch(/whsec_|secret/i);
  });

  it('keeps every field given; repeated filter types and channels are listed once', async () => {
    const { data } = await client.webhooks.createWebhookEndpoint({
      url: URL_B,
      description: 'Billing',
      filterTypes: ['comment.add', 'comment_annotation.add', 'comment.add', 'my.custom.event'],
      channels: ['org:o1', 'doc:o1/d1', 'org:o1'],
      disabled: true,
      rateLimit: 100_000,
      uid: 'billing-hook_v1.2',
      metadata: { team: 'billing', constructor: 'c', empty: '' },
    });
    expect(data).toMatchObject({
      url: URL_B,
      description: 'Billing',
      filterTypes: ['comment.add', 'comment_annotation.add', 'my.custom.event'],
      channels: ['org:o1', 'doc:o1/d1'],
      disabled: true,
      rateLimit: 100_000,
      uid: 'billing-hook_v1.2',
      metadata: { team: 'billing', constructor: 'c', empty: '' },
    });
    expect((await client.webhooks.getWebhookEndpoints({ endpointId: data.id })).data).toEqual([data]);
  });

  it.each(INVALID_FIELDS)('refuses %s as INVALID_ARGUMENT, creating nothing', async (_name, fields, message) => {
    const { ws: fresh, client: freshClient } = await server.webhookApp();
    await expectError(server, fresh, paths.createWebhookEndpoint, { url: URL_A, ...fields }, 'INVALID_ARGUMENT', message);
    expect((await freshClient.webhooks.getWebhookEndpoints({})).data).toEqual([]);
  });

  it('requires url, and the data envelope', async () => {
    await expectError(server, ws, paths.createWebhookEndpoint, {}, 'INVALID_ARGUMENT', /data\.url is required/);
    await expectError(server, ws, paths.createWebhookEndpoint, { description: 'x' }, 'INVALID_ARGUMENT', /data\.url is required/);
    const bare = await server.post(paths.createWebhookEndpoint, { url: URL_A }, appHeaders(ws));
    expect([bare.status, bare.body.error.status]).toEqual([400, 'INVALID_ARGUMENT']);
    expect(bare.body.error.message).toMatch(/data/);
  });

  it('is FAILED_PRECONDITION while advanced webhooks are disabled (never enabled, or turned off)', async () => {
    const fresh = await server.workspace();
    const freshClient = server.client(fresh);
    await expectCollabError(freshClient.webhooks.createWebhookEndpoint({ url: URL_A }), 'FAILED_PRECONDITION', /Update Advanced Webhook Config/);
    await freshClient.webhooks.updateAdvancedWebhookConfig({ isEnabled: true });
    await freshClient.webhooks.updateAdvancedWebhookConfig({ isEnabled: false });
    await expectCollabError(freshClient.webhooks.createWebhookEndpoint({ url: URL_A, uid: 'x' }), 'FAILED_PRECONDITION');
    expect((await freshClient.webhooks.getWebhookEndpoints({})).data).toEqual([]);
  });

  it('is ALREADY_EXISTS for a uid the application already uses; another application may use it', async () => {
    const { client: own } = await server.webhookApp();
    const first = (await own.webhooks.createWebhookEndpoint({ url: URL_A, uid: 'orders' })).data;
    await expectCollabError(own.webhooks.createWebhookEndpoint({ url: URL_B, uid: 'orders' }), 'ALREADY_EXISTS', /uid "orders"/);
    // Endpoints without a uid never collide.
    await own.webhooks.createWebhookEndpoint({ url: URL_A });
    await own.webhooks.createWebhookEndpoint({ url: URL_A });
    expect((await own.webhooks.getWebhookEndpoints({})).data.map((e) => e.uid)).toEqual(['orders', null, null]);
    expect((await own.webhooks.getWebhookEndpoints({})).data[0]).toEqual(first);
    const { client: other } = await server.webhookApp();
    expect((await other.webhooks.createWebhookEndpoint({ url: URL_A, uid: 'orders' })).data.uid).toBe('orders');
  });

  it('needs the application credentials', async () => {
    const { ws: fresh, client: freshClient } = await server.webhookApp();
    await expectCredentialChecks(server, fresh, paths.createWebhookEndpoint, { url: URL_A });
    expect((await freshClient.webhooks.getWebhookEndpoints({})).data).toEqual([]);
  });
});

describe('Get Advanced Webhook Endpoints', () => {
  it('lists oldest first; with endpointId, that endpoint as a one-item list', async () => {
    const { client } = await server.webhookApp();
    expect(await client.webhooks.getWebhookEndpoints({})).toEqual({ status: 'success', message: expect.any(String), data: [], pageToken: null });
    const made = [];
    for (const url of [URL_A, URL_B, URL_A]) {
      clock.advance(10);
      made.push((await client.webhooks.createWebhookEndpoint({ url })).data);
    }
    // Two in the same millisecond: creation order still holds.
    made.push((await client.webhooks.createWebhookEndpoint({ url: URL_B, description: 'same ms' })).data);
    expect(await client.webhooks.getWebhookEndpoints({})).toMatchObject({ data: made, pageToken: null });
    expect(await client.webhooks.getWebhookEndpoints({ endpointId: made[1]!.id })).toMatchObject({ data: [made[1]], pageToken: null });
  });

  it('pages with pageSize, without gaps or repeats; a token of another query, forged or combined with endpointId is refused', async () => {
    const { ws, client } = await server.webhookApp();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await client.webhooks.createWebhookEndpoint({ url: URL_A, uid: `p${i}` })).data.id);
    const first = await client.webhooks.getWebhookEndpoints({ pageSize: 1 });
    expect(first.data.map((e) => e.id)).toEqual([ids[0]]);
    expect(first.pageToken).toEqual(expect.any(String));
    const second = await client.webhooks.getWebhookEndpoints({ pageSize: 1, pageToken: first.pageToken! });
    expect(second.data.map((e) => e.id)).toEqual([ids[1]]);
    const third = await client.webhooks.getWebhookEndpoints({ pageSize: 1, pageToken: second.pageToken! });
    expect([third.data.map((e) => e.id), third.pageToken]).toEqual([[ids[2]], null]);
    expect((await client.webhooks.getWebhookEndpoints({ pageSize: 2, pageToken: first.pageToken! })).data.map((e) => e.id)).toEqual([ids[1], ids[2]]);

    // Another application's token, a token of the messages list, a forged one, and any token with endpointId.
    const { client: other } = await server.webhookApp();
    for (let i = 0; i < 2; i++) await other.webhooks.createWebhookEndpoint({ url: URL_A });
    const othersToken = (await other.webhooks.getWebhookEndpoints({ pageSize: 1 })).pageToken!;
    for (let i = 0; i < 2; i++) await client.webhooks.sendWebhookTestEvent({ endpointId: ids[0]! });
    const messagesToken = (await client.webhooks.getWebhookMessages({ endpointId: ids[0]!, pageSize: 1 })).pageToken!;
    expect(messagesToken).toEqual(expect.any(String));
    const [body, tag] = first.pageToken!.split('.');
    const forged = `${Buffer.from(JSON.stringify([0, ''])).toString('base64url')}.${tag}`;
    for (const pageToken of [othersToken, messagesToken, forged, `${body}.x`, 'garbage']) {
      await expectError(server, ws, paths.getWebhookEndpoints, { pageSize: 1, pageToken }, 'INVALID_ARGUMENT', /pageToken/);
    }
    await expectError(server, ws, paths.getWebhookEndpoints, { endpointId: ids[1], pageToken: first.pageToken }, 'INVALID_ARGUMENT', /pageToken/);
  });

  it('refuses bad paging and IDs', async () => {
    const { ws } = await server.webhookApp();
    await expectError(server, ws, paths.getWebhookEndpoints, { pageSize: 0 }, 'INVALID_ARGUMENT', /data\.pageSize/);
    await expectError(server, ws, paths.getWebhookEndpoints, { pageSize: 1001 }, 'INVALID_ARGUMENT', /data\.pageSize/);
    await expectError(server, ws, paths.getWebhookEndpoints, { pageSize: 1.5 }, 'INVALID_ARGUMENT', /data\.pageSize/);
    await expectError(server, ws, paths.getWebhookEndpoints, { pageToken: '' }, 'INVALID_ARGUMENT', /data\.pageToken/);
    await expectError(server, ws, paths.getWebhookEndpoints, { endpointId: '' }, 'INVALID_ARGUMENT', /data\.endpointId/);
    await expectError(server, ws, paths.getWebhookEndpoints, { endpointId: 7 }, 'INVALID_ARGUMENT', /data\.endpointId/);
    await expectError(server, ws, paths.getWebhookEndpoints, { endpointId: '__proto__' }, 'INVALID_ARGUMENT', /data\.endpointId: must not be "__proto__"/);
    await expectError(server, ws, paths.getWebhookEndpoints, { url: URL_A }, 'INVALID_ARGUMENT', /unknown field\(s\) data\.url/);
  });

  it('is NOT_FOUND for an unknown endpointId', async () => {
    const { ws } = await server.webhookApp();
    await expectError(server, ws, paths.getWebhookEndpoints, { endpointId: 'ep_00000000000000000000000000' }, 'NOT_FOUND', /ep_0{26}/);
  });

  it('works while advanced webhooks are disabled', async () => {
    const { client } = await server.webhookApp();
    const endpoint = (await client.webhooks.createWebhookEndpoint({ url: URL_A })).data;
    await client.webhooks.updateAdvancedWebhookConfig({ isEnabled: false });
    expect((await client.webhooks.getWebhookEndpoints({})).data).toEqual([endpoint]);
  });

  it('needs the application credentials', async () => {
    await expectCredentialChecks(server, await server.workspace(), paths.getWebhookEndpoints, {});
  });
});

describe('Update Advanced Webhook Endpoint', () => {
  it('changes the fields sent and keeps the others; null clears filterTypes, channels, rateLimit and uid; metadata is replaced', async () => {
    const { client } = await server.webhookApp();
    clock.advance(1000);
    const created = (
      await client.webhooks.createWebhookEndpoint({
        url: URL_A,
        description: 'first',
        filterTypes: ['comment.add'],
        channels: ['org:o'],
        rateLimit: 5,
        uid: 'mine',
        metadata: { a: '1', b: '2' },
      })
    ).data;
    clock.advance(1000);
    const described = (await client.webhooks.updateWebhookEndpoint({ endpointId: created.id, description: 'second' })).data;
    expect(described).toEqual({ ...created, description: 'second', updatedAt: iso() });
    expect(described.createdAt).toBe(created.createdAt);

    clock.advance(1000);
    const changed = (
      await client.webhooks.updateWebhookEndpoint({
        endpointId: created.id,
        url: URL_B,
        filterTypes: ['comment_annotation.add', 'comment_annotation.add'],
        channels: ['doc:o/d'],
        rateLimit: 7,
        uid: 'renamed',
        disabled: true,
        metadata: { c: '3' },
      })
    ).data;
    expect(changed).toEqual({
      ...created,
      url: URL_B,
      description: 'second',
      filterTypes: ['comment_annotation.add'],
      channels: ['doc:o/d'],
      rateLimit: 7,
      uid: 'renamed',
      disabled: true,
      metadata: { c: '3' },
      updatedAt: iso(),
    });

    const cleared = (
      await client.webhooks.updateWebhookEndpoint({ endpointId: created.id, filterTypes: null, channels: null, rateLimit: null, uid: null, disabled: false, metadata: {} })
    ).data;
    expect(cleared).toMatchObject({ filterTypes: null, channels: null, rateLimit: null, uid: null, disabled: false, metadata: {}, url: URL_B, description: 'second' });
    expect((await client.webhooks.getWebhookEndpoints({ endpointId: created.id })).data).toEqual([cleared]);
    // The cleared uid is free again.
    expect((await client.webhooks.createWebhookEndpoint({ url: URL_A, uid: 'mine' })).data.uid).toBe('mine');
  });

  it('keeps the signing secret', async () => {
    const { client } = await server.webhookApp();
    const endpoint = (await client.webhooks.createWebhookEndpoint({ url: URL_A })).data;
    const before = (await client.webhooks.getWebhookEndpointSecret({ endpointId: endpoint.id })).data.secret;
    await client.webhooks.updateWebhookEndpoint({ endpointId: endpoint.id, url: URL_B, uid: 'x' });
    expect((await client.webhooks.getWebhookEndpointSecret({ endpointId: endpoint.id })).data.secret).toBe(before);
  });

  it('is ALREADY_EXISTS for a uid another endpoint of the application has; its own uid is fine', async () => {
    const { client } = await server.webhookApp();
    const a = (await client.webhooks.createWebhookEndpoint({ url: URL_A, uid: 'a' })).data;
    const b = (await client.webhooks.createWebhookEndpoint({ url: URL_A, uid: 'b' })).data;
    await expectCollabError(client.webhooks.updateWebhookEndpoint({ endpointId: b.id, uid: 'a', description: 'not applied' }), 'ALREADY_EXISTS', /uid "a"/);
    expect((await client.webhooks.getWebhookEndpoints({ endpointId: b.id })).data).toEqual([b]);
    expect((await client.webhooks.updateWebhookEndpoint({ endpointId: a.id, uid: 'a' })).data.uid).toBe('a');
    const { client: other } = await server.webhookApp();
    const c = (await other.webhooks.createWebhookEndpoint({ url: URL_A })).data;
    expect((await other.webhooks.updateWebhookEndpoint({ endpointId: c.id, uid: 'a' })).data.uid).toBe('a');
  });

  it.each(INVALID_FIELDS.filter(([name]) => !name.startsWith('an unknown')))('refuses %s as INVALID_ARGUMENT, changing nothing', async (_name, fields, message) => {
    const { ws, client } = await server.webhookApp();
    const endpoint = (await client.webhooks.createWebhookEndpoint({ url: URL_A })).data;
    await expectError(server, ws, paths.updateWebhookEndpoint, { endpointId: endpoint.id, ...fields }, 'INVALID_ARGUMENT', message);
    expect((await client.webhooks.getWebhookEndpoints({})).data).toEqual([endpoint]);
  });

  it('refuses an update without a field to change, null where a value is needed, unknown fields, and bad IDs', async () => {
    const { ws, client } = await server.webhookApp();
    const endpoint = (await client.webhooks.createWebhookEndpoint({ url: URL_A })).data;
    await expectError(server, ws, paths.updateWebhookEndpoint, { endpointId: endpoint.id }, 'INVALID_ARGUMENT', /give at least one field to change/);
    for (const field of ['url', 'description', 'disabled', 'metadata']) {
      await expectError(server, ws, paths.updateWebhookEndpoint, { endpointId: endpoint.id, [field]: null }, 'INVALID_ARGUMENT', new RegExp(`data\\.${field}`));
    }
    await expectError(server, ws, paths.updateWebhookEndpoint, { endpointId: endpoint.id, id: 'ep_x' }, 'INVALID_ARGUMENT', /unknown field\(s\) data\.id/);
    await expectError(server, ws, paths.updateWebhookEndpoint, { description: 'x' }, 'INVALID_ARGUMENT', /data\.endpointId is required/);
    await expectError(server, ws, paths.updateWebhookEndpoint, { endpointId: '__proto__', description: 'x' }, 'INVALID_ARGUMENT', /data\.endpointId/);
    const bare = await server.post(paths.updateWebhookEndpoint, { endpointId: endpoint.id, description: 'x' }, appHeaders(ws));
    expect([bare.status, bare.body.error.status]).toEqual([400, 'INVALID_ARGUMENT']);
    expect((await client.webhooks.getWebhookEndpoints({})).data).toEqual([endpoint]);
  });

  it('is NOT_FOUND for an unknown endpoint', async () => {
    const { client } = await server.webhookApp();
    await expectCollabError(client.webhooks.updateWebhookEndpoint({ endpointId: 'ep_unknown', description: 'x' }), 'NOT_FOUND', /ep_unknown/);
  });

  it('works while advanced webhooks are disabled', async () => {
    const { client } = await server.webhookApp();
    const endpoint = (await client.webhooks.createWebhookEndpoint({ url: URL_A })).data;
    await client.webhooks.updateAdvancedWebhookConfig({ isEnabled: false });
    expect((await client.webhooks.updateWebhookEndpoint({ endpointId: endpoint.id, url: URL_B })).data.url).toBe(URL_B);
  });

  it('needs the application credentials', async () => {
    const { ws, client } = await server.webhookApp();
    const endpoint = (await client.webhooks.createWebhookEndpoint({ url: URL_A })).data;
    await expectCredentialChecks(server, ws, paths.updateWebhookEndpoint, { endpointId: endpoint.id, description: 'x' });
    expect((await client.webhooks.getWebhookEndpoints({})).data).toEqual([endpoint]);
  });
});

describe('Delete Advanced Webhook Endpoint', () => {
  it('deletes the endpoint with its deliveries and attempts; the endpoint is then NOT_FOUND everywhere', async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(204).end());
    const { ws, client } = await server.webhookApp();
    const endpoint = (await client.webhooks.createWebhookEndpoint({ url: receiver.url, uid: 'gone' })).data;
    const kept = (await client.webhooks.createWebhookEndpoint({ url: receiver.url })).data;
    const { messageId } = (await client.webhooks.sendWebhookTestEvent({ endpointId: endpoint.id })).data;
    await eventually(async () => (await client.webhooks.getWebhookAttempts({ endpointId: endpoint.id })).data.length === 1, 'the attempt');

    expect((await client.webhooks.deleteWebhookEndpoint({ endpointId: endpoint.id })).data).toEqual({ endpointId: endpoint.id });
    expect((await client.webhooks.getWebhookEndpoints({})).data).toEqual([kept]);
    const db = server.running.database.db;
    expect(await db.webhookDelivery.count({ where: { endpointId: endpoint.id } })).toBe(0);
    expect(await db.webhookAttempt.count({ where: { endpointId: endpoint.id } })).toBe(0);
    const gone = { endpointId: endpoint.id };
    for (const [path, data] of [
      [paths.getWebhookEndpoints, gone],
      [paths.updateWebhookEndpoint, { ...gone, description: 'x' }],
      [paths.deleteWebhookEndpoint, gone],
      [paths.getWebhookEndpointSecret, gone],
      [paths.rotateWebhookEndpointSecret, gone],
      [paths.sendWebhookTestEvent, gone],
      [paths.getWebhookMessages, gone],
      [paths.getWebhookAttempts, gone],
      [paths.resendWebhookMessage, { ...gone, messageId }],
    ] as const) {
      await expectError(server, ws, path, data, 'NOT_FOUND', new RegExp(endpoint.id));
    }
    // Its uid is free again.
    expect((await client.webhooks.createWebhookEndpoint({ url: receiver.url, uid: 'gone' })).data.uid).toBe('gone');
  });

  it('refuses bad IDs and unknown fields; NOT_FOUND for an unknown endpoint', async () => {
    const { ws } = await server.webhookApp();
    await expectError(server, ws, paths.deleteWebhookEndpoint, {}, 'INVALID_ARGUMENT', /data\.endpointId is required/);
    await expectError(server, ws, paths.deleteWebhookEndpoint, { endpointId: '' }, 'INVALID_ARGUMENT', /data\.endpointId/);
    await expectError(server, ws, paths.deleteWebhookEndpoint, { endpointId: 'ep_x', force: true }, 'INVALID_ARGUMENT', /data\.force/);
    await expectError(server, ws, paths.deleteWebhookEndpoint, { endpointId: 'ep_x' }, 'NOT_FOUND', /ep_x/);
  });

  it('needs the application credentials', async () => {
    const { ws, client } = await server.webhookApp();
    const endpoint = (await client.webhooks.createWebhookEndpoint({ url: URL_A })).data;
    await expectCredentialChecks(server, ws, paths.deleteWebhookEndpoint, { endpointId: endpoint.id });
    expect((await client.webhooks.getWebhookEndpoints({})).data).toEqual([endpoint]);
  });
});

describe("another application's endpoints", () => {
  it('are never listed, and NOT_FOUND for every operation, which leaves them unchanged', async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(204).end());
    const a = await server.webhookApp();
    const endpoint = (await a.client.webhooks.createWebhookEndpoint({ url: receiver.url, uid: 'a-hook', metadata: { owner: 'a' } })).data;
    const secret = (await a.client.webhooks.getWebhookEndpointSecret({ endpointId: endpoint.id })).data.secret;
    const { messageId } = (await a.client.webhooks.sendWebhookTestEvent({ endpointId: endpoint.id })).data;
    await eventually(async () => (await a.client.webhooks.getWebhookAttempts({ endpointId: endpoint.id })).data.length === 1, 'the attempt');

    const b = await server.webhookApp();
    const own = (await b.client.webhooks.createWebhookEndpoint({ url: receiver.url })).data;
    expect((await b.client.webhooks.getWebhookEndpoints({})).data).toEqual([own]);
    const theirs = { endpointId: endpoint.id };
    for (const [path, data] of [
      [paths.getWebhookEndpoints, theirs],
      [paths.updateWebhookEndpoint, { ...theirs, url: 'http://127.0.0.1:1/stolen', disabled: true }],
      [paths.getWebhookEndpointSecret, theirs],
      [paths.rotateWebhookEndpointSecret, theirs],
      [paths.sendWebhookTestEvent, theirs],
      [paths.getWebhookMessages, theirs],
      [paths.getWebhookAttempts, { ...theirs, messageId }],
      [paths.resendWebhookMessage, { ...theirs, messageId }],
      [paths.deleteWebhookEndpoint, theirs],
    ] as const) {
      const message = await expectError(server, b.ws, path, data, 'NOT_FOUND');
      expect(message).not.toContain(secret);
    }
    // A's message, sent to B's own endpoint: never sent there.
    await expectError(server, b.ws, paths.resendWebhookMessage, { endpointId: own.id, messageId }, 'NOT_FOUND', new RegExp(messageId));
    expect((await b.client.webhooks.getWebhookAttempts({ endpointId: own.id, messageId })).data).toEqual([]);

    expect((await a.client.webhooks.getWebhookEndpoints({})).data).toEqual([endpoint]);
    expect((await a.client.webhooks.getWebhookEndpointSecret({ endpointId: endpoint.id })).data.secret).toBe(secret);
    expect((await a.client.webhooks.getWebhookMessages({ endpointId: endpoint.id })).data).toHaveLength(1);
    expect(receiver.received).toHaveLength(1);
  });
});

describe('without WEBHOOK_ALLOW_PRIVATE_URLS', () => {
  let guarded: TestServer;
  beforeAll(async () => {
    guarded = await startTestServer();
  });
  afterAll(() => guarded?.close());

  const PRIVATE = [
    'http://127.0.0.1/hook',
    'http://127.0.0.1:8080/hook',
    'http://localhost:3000/hook',
    'http://LOCALHOST./hook',
    'http://10.0.0.5/hook',
    'http://172.16.0.1/hook',
    'http://192.168.1.1/hook',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[fd00::1]/hook',
    'http://0.0.0.0/hook',
    'http://2130706433/hook',
    'https://does-not-resolve.invalid/hook',
  ];
  const PUBLIC = 'https://93.184.215.14/hook';

  it.each(PRIVATE)('refuses %s on create and on update, naming the host but not its address', async (url) => {
    const ws = await guarded.workspace();
    const client = guarded.client(ws);
    await enableWebhooks(client);
    const message = await expectError(guarded, ws, paths.createWebhookEndpoint, { url }, 'INVALID_ARGUMENT', /not publicly routable|does not resolve/);
    if (url.includes('localhost') || url.includes('LOCALHOST')) expect(message).not.toContain('127.0.0.1');
    // A public address (an IP literal: nothing to resolve) is accepted, and cannot be changed to the private one.
    const endpoint = (await client.webhooks.createWebhookEndpoint({ url: PUBLIC })).data;
    await expectError(guarded, ws, paths.updateWebhookEndpoint, { endpointId: endpoint.id, url }, 'INVALID_ARGUMENT', /not publicly routable|does not resolve/);
    expect((await client.webhooks.getWebhookEndpoints({})).data).toEqual([endpoint]);
  });
});
