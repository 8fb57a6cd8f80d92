// Get/Set Notification Config: effective values (document level, else the
// organization default, else the service default), partial merges, per-user
// result entries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { usingPostgres } from '../../helpers/database.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

const ORG = 'org';
let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;

beforeAll(async () => {
  server = await startTestServer();
  ws = await server.workspace();
  client = server.client(ws);
  for (const documentId of ['d1', 'd2', 'd3']) await client.organizations.addDocument({ organizationId: ORG, documentId });
});
afterAll(() => server?.close());

async function configs(userId: string, documentIds: string[]) {
  const { data } = await client.notifications.getNotificationConfig({ organizationId: ORG, documentIds, userId });
  return Object.fromEntries(data.map((entry) => [entry.metadata.documentId, entry.config]));
}

describe(`Get Notification Config, Get Notification Config (alias) and Set Notification Config (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('is the service default until set: inbox MINE, email MINE, slack NONE; one entry per document with its metadata, at /v1 and /v2', async () => {
    const v1 = await client.notifications.getNotificationConfig({ organizationId: ORG, documentIds: ['d1', 'd2'], userId: 'u1' });
    expect(v1.data).toEqual([
      { config: { inbox: 'MINE', email: 'MINE', slack: 'NONE' }, metadata: { organizationId: ORG, apiKey: ws.apiKey, documentId: 'd1', userId: 'u1' } },
      { config: { inbox: 'MINE', email: 'MINE', slack: 'NONE' }, metadata: { organizationId: ORG, apiKey: ws.apiKey, documentId: 'd2', userId: 'u1' } },
    ]);
    const v2 = await client.notifications.getNotificationConfigV2({ organizationId: ORG, documentIds: ['d1', 'd2'], userId: 'u1' });
    expect(v2.data).toEqual(v1.data);
  });

  it('applies an organization-level set to every document; a document-level value overrides it there only; partial sets merge', async () => {
    const set = await client.notifications.setNotificationConfig({ organizationId: ORG, userIds: ['u1', 'u2'], config: { inbox: 'ALL' } });
    expect(set.data).toEqual({
      u1: { success: true, userId: 'u1', message: 'Notification config set as the organization default.' },
      u2: { success: true, userId: 'u2', message: 'Notification config set as the organization default.' },
    });
    expect(await configs('u1', ['d1', 'd2'])).toEqual({ d1: { inbox: 'ALL', email: 'MINE', slack: 'NONE' }, d2: { inbox: 'ALL', email: 'MINE', slack: 'NONE' } });

    const doc = await client.notifications.setNotificationConfig({ organizationId: ORG, documentIds: ['d1'], userIds: ['u1'], config: { email: 'NONE' } });
    expect(doc.data).toEqual({ u1: { success: true, userId: 'u1', documentId: 'd1', message: 'Notification config set for the document.' } });
    expect(await configs('u1', ['d1', 'd2'])).toEqual({ d1: { inbox: 'ALL', email: 'NONE', slack: 'NONE' }, d2: { inbox: 'ALL', email: 'MINE', slack: 'NONE' } });

    await client.notifications.setNotificationConfig({ organizationId: ORG, documentIds: ['d1'], userIds: ['u1'], config: { inbox: 'NONE', slack: 'ALL' } });
    await client.notifications.setNotificationConfig({ organizationId: ORG, userIds: ['u1'], config: { email: 'ALL' } });
    // d1: inbox and slack from its own config, email from its own config too; d2 follows the organization default.
    expect(await configs('u1', ['d1', 'd2'])).toEqual({ d1: { inbox: 'NONE', email: 'NONE', slack: 'ALL' }, d2: { inbox: 'ALL', email: 'ALL', slack: 'NONE' } });
    // u2 only has the organization default; u3 nothing.
    expect(await configs('u2', ['d1'])).toEqual({ d1: { inbox: 'ALL', email: 'MINE', slack: 'NONE' } });
    expect(await configs('u3', ['d1'])).toEqual({ d1: { inbox: 'MINE', email: 'MINE', slack: 'NONE' } });
  });

  it('sets several documents at once, each user once however often listed', async () => {
    const set = await client.notifications.setNotificationConfig({ organizationId: ORG, documentIds: ['d2', 'd3', 'd2'], userIds: ['u4', 'u4', 'constructor'], config: { inbox: 'NONE' } });
    expect(Object.keys(set.data).sort()).toEqual(['constructor', 'u4']);
    expect(set.data.u4).toEqual({ success: true, userId: 'u4', message: 'Notification config set for 2 documents.' });
    expect(await configs('constructor', ['d1', 'd2', 'd3'])).toEqual({
      d1: { inbox: 'MINE', email: 'MINE', slack: 'NONE' },
      d2: { inbox: 'NONE', email: 'MINE', slack: 'NONE' },
      d3: { inbox: 'NONE', email: 'MINE', slack: 'NONE' },
    });
  });

  it('reports a missing organization or document per user and stores nothing', async () => {
    const org = await client.notifications.setNotificationConfig({ organizationId: 'nope', userIds: ['u1'], config: { inbox: 'ALL' } });
    expect(org.data).toEqual({ u1: { success: false, userId: 'u1', message: 'organization nope does not exist' } });
    const doc = await client.notifications.setNotificationConfig({ organizationId: ORG, documentIds: ['d3', 'ghost'], userIds: ['u5', 'u6'], config: { inbox: 'ALL' } });
    expect(doc.data).toEqual({
      u5: { success: false, userId: 'u5', documentId: 'ghost', message: `document ghost does not exist in organization ${ORG}` },
      u6: { success: false, userId: 'u6', documentId: 'ghost', message: `document ghost does not exist in organization ${ORG}` },
    });
    expect(await configs('u5', ['d3'])).toEqual({ d3: { inbox: 'MINE', email: 'MINE', slack: 'NONE' } });
  });

  it('Get is NOT_FOUND for an unknown organization or document', async () => {
    await expectCollabError(client.notifications.getNotificationConfig({ organizationId: 'nope', documentIds: ['d1'], userId: 'u1' }), 'NOT_FOUND', /organization nope/);
    await expectCollabError(client.notifications.getNotificationConfig({ organizationId: ORG, documentIds: ['d1', 'ghost'], userId: 'u1' }), 'NOT_FOUND', /document ghost/);
  });

  it('refuses malformed requests', async () => {
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `d${i}`);
    const cases: [string, unknown][] = [
      ['/v1/notifications/config/get', { organizationId: ORG, documentIds: ids(31), userId: 'u1' }],
      ['/v2/notifications/config/get', { organizationId: ORG, documentIds: [], userId: 'u1' }],
      ['/v1/notifications/config/get', { organizationId: ORG, documentIds: ['d1'] }],
      ['/v2/notifications/config/set', { organizationId: ORG, userIds: ['u1'], config: {} }],
      ['/v2/notifications/config/set', { organizationId: ORG, userIds: ['u1'], config: { inbox: 'SOME' } }],
      ['/v2/notifications/config/set', { organizationId: ORG, userIds: ['u1'], config: { inbox: 'ALL', push: 'ALL' } }],
      ['/v2/notifications/config/set', { organizationId: ORG, userIds: [], config: { inbox: 'ALL' } }],
      ['/v2/notifications/config/set', { organizationId: ORG, userIds: ['__proto__'], config: { inbox: 'ALL' } }],
      ['/v2/notifications/config/set', { organizationId: ORG, documentIds: ids(31), userIds: ['u1'], config: { inbox: 'ALL' } }],
    ];
    for (const [path, data] of cases) {
      const res = await server.post(path, { data }, appHeaders(ws));
      expect([path, res.status, res.body.error?.status]).toEqual([path, 400, 'INVALID_ARGUMENT']);
    }
  });
});
