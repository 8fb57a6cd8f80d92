// Get and Update Advanced Webhook Config: the application's switch, off until
// turned on; while off, no message is created and endpoints cannot be created.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCollabError, expectCredentialChecks } from '../helpers/credentials.js';
import { startReceiver } from '../helpers/receiver.js';
import { appHeaders } from '../helpers/server.js';
import { expectError, paths } from './webhook-workspace.js';
import { startWebhookServer, type WebhookTestServer } from '../helpers/webhook-server.js';

let server: WebhookTestServer;
beforeAll(async () => {
  server = await startWebhookServer();
});
afterAll(() => server?.close());

const thread = (annotationId: string) => ({
  organizationId: 'org',
  documentId: 'doc',
  commentAnnotations: [{ annotationId, from: { userId: 'ann' }, commentData: [{ commentText: 'hi' }] }],
});

describe('Get Advanced Webhook Config', () => {
  it('is off for an application that never configured it', async () => {
    const ws = await server.workspace();
    const res = await server.post(paths.getAdvancedWebhookConfig, { data: {} }, appHeaders(ws));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: { status: 'success', message: expect.any(String), data: { isEnabled: false } } });
    // `data` may be omitted from the SDK call, but the envelope itself is required.
    expect((await server.client(ws).webhooks.getAdvancedWebhookConfig()).data).toEqual({ isEnabled: false });
  });

  it('refuses unknown fields and a body without data', async () => {
    const ws = await server.workspace();
    await expectError(server, ws, paths.getAdvancedWebhookConfig, { isEnabled: true }, 'INVALID_ARGUMENT', /isEnabled/);
    const bare = await server.post(paths.getAdvancedWebhookConfig, {}, appHeaders(ws));
    expect([bare.status, bare.body.error.status, bare.body.error.message]).toEqual([400, 'INVALID_ARGUMENT', expect.stringMatching(/data is required/)]);
  });

  it('needs the application credentials', async () => {
    await expectCredentialChecks(server, await server.workspace(), paths.getAdvancedWebhookConfig, {});
  });
});

describe('Update Advanced Webhook Config', () => {
  it('turns advanced webhooks on and off, and Get reflects each write', async () => {
    const ws = await server.workspace();
    const client = server.client(ws);
    expect((await client.webhooks.updateAdvancedWebhookConfig({ isEnabled: true })).data).toEqual({ isEnabled: true });
    expect((await client.webhooks.getAdvancedWebhookConfig({})).data).toEqual({ isEnabled: true });
    expect((await client.webhooks.updateAdvancedWebhookConfig({ isEnabled: true })).data).toEqual({ isEnabled: true });
    expect((await client.webhooks.updateAdvancedWebhookConfig({ isEnabled: false })).data).toEqual({ isEnabled: false });
    expect((await client.webhooks.getAdvancedWebhookConfig({})).data).toEqual({ isEnabled: false });
  });

  it("is the calling application's own switch", async () => {
    const a = server.client(await server.workspace());
    const b = server.client(await server.workspace());
    await a.webhooks.updateAdvancedWebhookConfig({ isEnabled: true });
    expect((await b.webhooks.getAdvancedWebhookConfig({})).data).toEqual({ isEnabled: false });
    await expectCollabError(b.webhooks.createWebhookEndpoint({ url: 'http://127.0.0.1:1/hook' }), 'FAILED_PRECONDITION');
  });

  it('while off: no message for events and no endpoint creation; existing endpoints stay and can be changed', async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(204).end());
    const ws = await server.workspace();
    const client = server.client(ws);
    await client.organizations.addOrganization({ organizationId: 'org' });
    await client.organizations.addDocument({ organizationId: 'org', documentId: 'doc' });
    await client.webhooks.updateAdvancedWebhookConfig({ isEnabled: true });
    const endpoint = (await client.webhooks.createWebhookEndpoint({ url: receiver.url })).data;
    await client.comments.addCommentAnnotations(thread('on-1'));
    // Messages are written in the transaction of the change: listed as soon as the call returns.
    expect((await client.webhooks.getWebhookMessages({ endpointId: endpoint.id })).data.map((m) => m.eventType)).toEqual(['comment_annotation.add']);

    await client.webhooks.updateAdvancedWebhookConfig({ isEnabled: false });
    await client.comments.addCommentAnnotations(thread('off-1'));
    expect((await client.webhooks.getWebhookMessages({ endpointId: endpoint.id })).data).toHaveLength(1);
    await expectCollabError(client.webhooks.createWebhookEndpoint({ url: receiver.url }), 'FAILED_PRECONDITION', /disabled/);
    expect((await client.webhooks.getWebhookEndpoints({})).data.map((e) => e.id)).toEqual([endpoint.id]);
    expect((await client.webhooks.updateWebhookEndpoint({ endpointId: endpoint.id, description: 'kept' })).data.description).toBe('kept');

    await client.webhooks.updateAdvancedWebhookConfig({ isEnabled: true });
    await client.comments.addCommentAnnotations(thread('on-2'));
    const messages = (await client.webhooks.getWebhookMessages({ endpointId: endpoint.id })).data;
    expect(messages.map((m) => (m.payload as { data: { annotation: { annotationId: string } } }).data.annotation.annotationId)).toEqual(['on-2', 'on-1']);
  });

  it('requires a boolean isEnabled and nothing else', async () => {
    const ws = await server.workspace();
    await expectError(server, ws, paths.updateAdvancedWebhookConfig, {}, 'INVALID_ARGUMENT', /data\.isEnabled is required/);
    await expectError(server, ws, paths.updateAdvancedWebhookConfig, { isEnabled: 'true' }, 'INVALID_ARGUMENT', /data\.isEnabled must be boolean/);
    await expectError(server, ws, paths.updateAdvancedWebhookConfig, { isEnabled: null }, 'INVALID_ARGUMENT', /data\.isEnabled/);
    await expectError(server, ws, paths.updateAdvancedWebhookConfig, { isEnabled: true, triggers: {} }, 'INVALID_ARGUMENT', /triggers/);
    const bare = await server.post(paths.updateAdvancedWebhookConfig, { isEnabled: true }, appHeaders(ws));
    expect([bare.status, bare.body.error.status]).toEqual([400, 'INVALID_ARGUMENT']);
    expect((await server.client(ws).webhooks.getAdvancedWebhookConfig({})).data).toEqual({ isEnabled: false });
  });

  it('needs the application credentials', async () => {
    const ws = await server.workspace();
    await expectCredentialChecks(server, ws, paths.updateAdvancedWebhookConfig, { isEnabled: true });
    expect((await server.client(ws).webhooks.getAdvancedWebhookConfig({})).data).toEqual({ isEnabled: false });
  });
});
