// Delete Activities: per-ID answers.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventFromRow } from '../../../server/platform/events.js';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { startTestServer, type TestServer, type WorkspaceCredentials, putRawSetting } from '../../helpers/server.js';

const ORG = 'w-org';
let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;
let appId: string;

const record = (overrides: Record<string, unknown> = {}) => ({
  documentId: 'doc-1',
  featureType: 'custom' as const,
  actionType: 'custom.approved',
  actionUser: { userId: 'ada', name: 'Ada', email: 'ada@example.com' },
  targetEntityId: 'invoice-7',
  displayMessageTemplate: '{{actionUser.name}} approved {{invoice}}',
  displayMessageTemplateData: { actionUser: { name: 'Ada' }, invoice: 'Invoice 7' },
  ...overrides,
});

async function activityEvents() {
  const rows = await server.running.database.db.domainEvent.findMany({ where: { apiKeyId: appId, type: 'activity.add' }, orderBy: [{ occurredAt: 'asc' }, { id: 'asc' }] });
  return rows.map(eventFromRow);
}

beforeAll(async () => {
  server = await startTestServer();
  ws = await server.workspace();
  client = server.client(ws);
  appId = (await server.cli<{ apiKey: { id: string } }>('workspace', 'get', '--api-key', ws.apiKey)).apiKey.id;
  await client.organizations.addOrganization({ organizationId: ORG });
  await client.organizations.addDocument({ organizationId: ORG, documentId: 'doc-1' });
});
afterAll(() => server?.close());
beforeEach(async () => {
  await server.running.database.db.activity.deleteMany({});
  await server.running.database.db.domainEvent.deleteMany({});
  await putRawSetting(server, appId, 'activity', { isEnabled: false });
});

describe('Delete Activities', () => {
  it('deletes by ID and answers per ID', async () => {
    const added = (await client.activities.addActivities({ organizationId: ORG, activities: [record(), record(), record()] })).data;
    const { data } = await client.activities.deleteActivities({ organizationId: ORG, activityIds: [added[0]!.id, added[2]!.id, 'act_nope'] });
    expect(data).toEqual({
      [added[0]!.id]: { success: true, message: 'Activity deleted.' },
      [added[2]!.id]: { success: true, message: 'Activity deleted.' },
      act_nope: { success: false, message: expect.stringMatching(/does not exist/) },
    });
    expect((await client.activities.getActivityLogs({ organizationId: ORG })).data.map((a) => a.id)).toEqual([added[1]!.id]);
    await expectCollabError(client.activities.deleteActivities({ organizationId: ORG, activityIds: [] }), 'INVALID_ARGUMENT', /activityIds/);
    await expectCollabError(
      client.activities.deleteActivities({ organizationId: ORG, activityIds: Array.from({ length: 31 }, (_, i) => `a${i}`) }),
      'INVALID_ARGUMENT',
      /activityIds/,
    );
  });
});
