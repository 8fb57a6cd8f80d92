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
  await putRawSetting(server, appA, 'permissionProvider', { usePermissionProvider: true, permissionProviderUrl: 'https://perm.example.com/check', authTokenSealed: '' });
});
afterAll(() => server?.close());

describe('Get Permission Provider Config', () => {
  const path = '/v2/workspace/permissionproviderconfig/get';
  it('returns the stored config', async () => {
    expect((await server.client(a).workspace.getPermissionProviderConfig()).data).toEqual({
      usePermissionProvider: true,
      permissionProviderConfig: { permissionProviderUrl: 'https://perm.example.com/check', authToken: '' },
    });
  });
  it('reads empty strings and false when unset, and never shows another workspace\'s config', async () => {
    expect((await server.client(b).workspace.getPermissionProviderConfig()).data).toEqual({
      usePermissionProvider: false,
      permissionProviderConfig: { permissionProviderUrl: '', authToken: '' },
    });
  });
  it('rejects unknown fields', async () => {
    await expectCollabError(server.client(a).workspace.getPermissionProviderConfig({ x: 1 } as never), 'INVALID_ARGUMENT');
  });
  it('checks credentials', () => expectCredentialChecks(server, a, path, {}));
});
