import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCollabError, expectCredentialChecks } from '../../helpers/credentials.js';
import { startTestServer, type TestServer, type WorkspaceCredentials, putRawSetting } from '../../helpers/server.js';

let server: TestServer;
let a: WorkspaceCredentials;
let b: WorkspaceCredentials;

beforeAll(async () => {
  server = await startTestServer();
  [a, b] = await Promise.all([server.workspace(), server.workspace()]);
  // Until the update operations exist, configure workspace A through the repo.
  const appA = (await server.cli<{ apiKey: { id: string } }>('workspace', 'get', '--api-key', a.apiKey)).apiKey.id;
  await putRawSetting(server, appA, 'activity', { isEnabled: true, immutable: true, triggers: { comment: { added: true } } });
});
afterAll(() => server?.close());

describe('Get Activity Config', () => {
  const path = '/v2/workspace/activityconfig/get';
  it('returns the stored config', async () => {
    const result = await server.client(a).workspace.getActivityConfig({});
    expect(result).toEqual({
      status: 'success',
      message: 'Activity config retrieved successfully.',
      data: { activityServiceConfig: { isEnabled: true, immutable: true, triggers: { comment: { added: true } } } },
    });
  });
  it('reads {isEnabled:false} when never configured, and never shows another workspace\'s config', async () => {
    expect((await server.client(b).workspace.getActivityConfig()).data).toEqual({ activityServiceConfig: { isEnabled: false } });
  });
  it('rejects unknown fields', async () => {
    await expectCollabError(server.client(a).workspace.getActivityConfig({ unknown: 1 } as never), 'INVALID_ARGUMENT', /data\.unknown/);
  });
  it('checks credentials', () => expectCredentialChecks(server, a, path, {}));
});
