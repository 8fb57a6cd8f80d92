import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract } from '../../contract/index.js';
import { createSettingsRepo } from '../../server/domains/workspace/repo.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';

/**
 * Workspace B, with its own valid credentials, asks every read operation for
 * workspace A's data. Nothing of A may come back. A marker string is seeded
 * into A's data and must not appear in any of B's responses.
 */
const MARKER = 'tenant-a-marker-7f3c';

interface ReadCase {
  name: string;
  path: string;
  headers(b: WorkspaceCredentials): Record<string, string>;
  data(a: WorkspaceCredentials): unknown;
}

const workspaceHeaders = (c: WorkspaceCredentials) => ({ 'x-service-workspace-id': c.workspaceId, 'x-service-workspace-auth-token': c.workspaceAuthToken });

const READS: ReadCase[] = [
  { name: 'getActivityConfig', path: '/v2/workspace/activityconfig/get', headers: appHeaders, data: () => ({}) },
  { name: 'getPermissionProviderConfig', path: '/v2/workspace/permissionproviderconfig/get', headers: appHeaders, data: () => ({}) },
  { name: 'getEmailConfig', path: '/v2/workspace/emailconfig/get', headers: appHeaders, data: () => ({}) },
  { name: 'getAuthTokens', path: '/v2/workspace/authtokens/get', headers: workspaceHeaders, data: (a) => ({ apiKey: a.apiKey }) },
  // Public; asking about A's email reveals only a boolean, never A's data.
  { name: 'getEmailVerificationStatus', path: '/v2/workspace/email/status', headers: () => ({}), data: () => ({ ownerEmail: `${MARKER}@example.com` }) },
];

let server: TestServer;
let a: WorkspaceCredentials;
let b: WorkspaceCredentials;

beforeAll(async () => {
  server = await startTestServer();
  a = await server.workspace(`${MARKER}@example.com`);
  b = await server.workspace();
  const settings = createSettingsRepo(server.running.database.db);
  const appA = (await server.cli<{ apiKey: { id: string } }>('workspace', 'get', '--api-key', a.apiKey)).apiKey.id;
  await settings.put(appA, 'activity', { isEnabled: true, triggers: { [MARKER]: { added: true } } });
  await settings.put(appA, 'permissionProvider', { usePermissionProvider: true, permissionProviderUrl: `https://${MARKER}.example.com`, authTokenSealed: '' });
  await settings.put(appA, 'email', { useEmailService: true, type: 'custom', apiKeySealed: '', fromEmail: `${MARKER}@example.com`, fromCompany: MARKER, triggers: {} });
});
afterAll(() => server?.close());

describe('another workspace sees nothing of workspace A', () => {
  it('covers every read operation of the contract', () => {
    const reads = Object.values(contract)
      .flatMap((group) => Object.keys(group))
      .filter((name) => name.startsWith('get'));
    expect(READS.map((r) => r.name).sort()).toEqual(reads.sort());
  });

  for (const read of READS) {
    it(read.name, async () => {
      const own = await server.post(read.path, { data: read.data(a) }, read.headers(a));
      expect(own.status).toBe(200);
      const res = await server.post(read.path, { data: read.data(a) }, read.headers(b));
      expect(JSON.stringify(res.body)).not.toContain(MARKER);
      expect(JSON.stringify(res.body)).not.toContain(a.apiKey);
      expect(JSON.stringify(res.body)).not.toContain(a.authToken);
      if (read.name === 'getAuthTokens') expect(res.body.error.status).toBe('NOT_FOUND');
    });
  }
});
