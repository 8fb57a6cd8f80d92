// Update Activity: the fields given, and the domain errors.
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

describe('Update Activity', () => {
  it('changes the given fields only and keeps the timestamp and document', async () => {
    const [added] = (await client.activities.addActivities({ organizationId: ORG, activities: [record()] })).data;
    const { data } = await client.activities.updateActivity({
      organizationId: ORG,
      activityId: added!.id,
      displayMessageTemplate: '{{actionUser.name}} rejected {{invoice}}',
      actionUser: { userId: 'bob' },
    });
    expect(data).toEqual({ ...added, displayMessageTemplate: '{{actionUser.name}} rejected {{invoice}}', actionUser: { userId: 'bob' } });
    // The acting user is what the userId filter reads.
    expect((await client.activities.getActivityLogs({ organizationId: ORG, userId: 'bob' })).data).toEqual([data]);
    expect((await client.activities.getActivityLogs({ organizationId: ORG, userId: 'ada' })).data).toEqual([]);
    const again = await client.activities.updateActivity({ organizationId: ORG, activityId: added!.id, displayMessageTemplateData: { invoice: 'Invoice 8' }, featureType: 'crdt', actionType: 'crdt.x', targetEntityId: 'other' });
    expect(again.data).toMatchObject({ displayMessageTemplateData: { invoice: 'Invoice 8' }, featureType: 'crdt', actionType: 'crdt.x', targetEntityId: 'other', timestamp: added!.timestamp });
  });

  it('needs a field to change, and is NOT_FOUND for a record the organization does not have', async () => {
    const [added] = (await client.activities.addActivities({ organizationId: ORG, activities: [record()] })).data;
    await expectCollabError(client.activities.updateActivity({ organizationId: ORG, activityId: added!.id }), 'INVALID_ARGUMENT', /at least one field/);
    await expectCollabError(client.activities.updateActivity({ organizationId: ORG, activityId: 'act_nope', actionType: 'x' }), 'NOT_FOUND', /act_nope/);
    await client.organizations.addOrganization({ organizationId: 'other-org' });
    await expectCollabError(client.activities.updateActivity({ organizationId: 'other-org', activityId: added!.id, actionType: 'x' }), 'NOT_FOUND', /other-org/);
  });
});
