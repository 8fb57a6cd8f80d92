// Update Activity Config: a partial, deep merge over the stored config, read
// back by Get Activity Config; concurrent updates both take effect.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { startTestServer, type TestServer, type WorkspaceCredentials, putRawSetting } from '../../helpers/server.js';

let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;

beforeAll(async () => {
  server = await startTestServer();
  ws = await server.workspace();
  client = server.client(ws);
});
afterAll(() => server?.close());

const read = async () => (await client.workspace.getActivityConfig()).data.activityServiceConfig;

describe('Update Activity Config', () => {
  it('starts from {isEnabled: false} and merges each update over what is stored', async () => {
    expect(await read()).toEqual({ isEnabled: false });

    const first = await client.workspace.updateActivityConfig({ triggers: { comment: { added: true, deleted: false } } });
    expect(first.data.activityServiceConfig).toEqual({ isEnabled: false, triggers: { comment: { added: true, deleted: false } } });

    await client.workspace.updateActivityConfig({ isEnabled: true });
    expect(await read()).toEqual({ isEnabled: true, triggers: { comment: { added: true, deleted: false } } });

    // Deep: one action of one feature changes, the other actions and features stay.
    await client.workspace.updateActivityConfig({ triggers: { comment: { deleted: true, updated: false }, reaction: { added: false } } });
    expect(await read()).toEqual({ isEnabled: true, triggers: { comment: { added: true, deleted: true, updated: false }, reaction: { added: false } } });

    await client.workspace.updateActivityConfig({ immutable: true });
    const after = await client.workspace.updateActivityConfig({ isEnabled: false });
    expect(after.data.activityServiceConfig).toEqual({
      isEnabled: false,
      immutable: true,
      triggers: { comment: { added: true, deleted: true, updated: false }, reaction: { added: false } },
    });
    expect(await read()).toEqual(after.data.activityServiceConfig);
  });

  it('keeps both of two concurrent updates', async () => {
    const fresh = server.client(await server.workspace());
    await Promise.all(
      Array.from({ length: 8 }, (_, i) => fresh.workspace.updateActivityConfig({ triggers: { [`feature${i % 2}`]: { [`action${i}`]: i % 3 === 0 } } })),
    );
    const config = (await fresh.workspace.getActivityConfig()).data.activityServiceConfig;
    expect(config).toEqual({
      isEnabled: false,
      triggers: {
        feature0: { action0: true, action2: false, action4: false, action6: true },
        feature1: { action1: false, action3: true, action5: false, action7: false },
      },
    });
  });

  it('needs at least one field and validates the trigger map', async () => {
    await expectCollabError(client.workspace.updateActivityConfig({}), 'INVALID_ARGUMENT', /at least one of isEnabled, immutable, triggers/);
    await expectCollabError(client.workspace.updateActivityConfig({ isEnabled: 'yes' as unknown as boolean }), 'INVALID_ARGUMENT', /isEnabled/);
    await expectCollabError(client.workspace.updateActivityConfig({ triggers: { comment: true } as never }), 'INVALID_ARGUMENT', /triggers/);
    await expectCollabError(client.workspace.updateActivityConfig({ triggers: { comment: { added: 'on' } } as never }), 'INVALID_ARGUMENT', /triggers/);
    const tooMany = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`f${i}`, { a: true }]));
    await expectCollabError(client.workspace.updateActivityConfig({ triggers: tooMany }), 'INVALID_ARGUMENT', /at most 32 features/);
    const manyActions = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`a${i}`, true]));
    await expectCollabError(client.workspace.updateActivityConfig({ triggers: { comment: manyActions } }), 'INVALID_ARGUMENT', /at most 64 actions/);
    await expectCollabError(client.workspace.updateActivityConfig({ triggers: { ['x'.repeat(65)]: { a: true } } }), 'INVALID_ARGUMENT', /triggers/);
    const proto = await server.post(
      '/v2/workspace/activityconfig/update',
      '{"data":{"triggers":{"__proto__":{"added":true}}}}',
      { 'x-service-api-key': ws.apiKey, 'x-service-auth-token': ws.authToken },
    );
    expect([proto.status, proto.body.error?.status]).toEqual([400, 'INVALID_ARGUMENT']);
    const protoAction = await server.post(
      '/v2/workspace/activityconfig/update',
      '{"data":{"triggers":{"comment":{"__proto__":true}}}}',
      { 'x-service-api-key': ws.apiKey, 'x-service-auth-token': ws.authToken },
    );
    expect([protoAction.status, protoAction.body.error?.status]).toEqual([400, 'INVALID_ARGUMENT']);
  });

  it('keeps ordinary names that are Object.prototype members as plain keys', async () => {
    const fresh = server.client(await server.workspace());
    await fresh.workspace.updateActivityConfig({ triggers: { constructor: { toString: false }, comment: { hasOwnProperty: true } } });
    await fresh.workspace.updateActivityConfig({ triggers: { constructor: { valueOf: true } } });
    expect((await fresh.workspace.getActivityConfig()).data.activityServiceConfig.triggers).toEqual({
      constructor: { toString: false, valueOf: true },
      comment: { hasOwnProperty: true },
    });
  });

  it('reads a stored config through its schema: a row that does not fit is an error, not trusted', async () => {
    const fresh = await server.workspace();
    const appId = (await server.cli<{ apiKey: { id: string } }>('workspace', 'get', '--api-key', fresh.apiKey)).apiKey.id;
    await putRawSetting(server, appId, 'activity', { isEnabled: 'sometimes' });
    await expectCollabError(server.client(fresh).workspace.getActivityConfig(), 'INTERNAL');
  });
});
