// Rules for every write of activity records (Add, Update and Delete
// Activities): another application's records are out of reach, and an
// immutable log refuses them all.
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

describe('another application', () => {
  it('cannot update or delete these records, even with an organization of the same ID', async () => {
    const [added] = (await client.activities.addActivities({ organizationId: ORG, activities: [record()] })).data;
    const other = server.client(await server.workspace());
    await other.organizations.addOrganization({ organizationId: ORG });
    await expectCollabError(other.activities.updateActivity({ organizationId: ORG, activityId: added!.id, actionType: 'stolen' }), 'NOT_FOUND');
    expect((await other.activities.deleteActivities({ organizationId: ORG, activityIds: [added!.id] })).data[added!.id]!.success).toBe(false);
    expect((await other.activities.getActivityLogs({ organizationId: ORG })).data).toEqual([]);
    expect((await client.activities.getActivityLogs({ organizationId: ORG })).data).toEqual([added]);
  });
});

describe('an immutable activity log', () => {
  it('refuses Add, Update and Delete Activities with FAILED_PRECONDITION and changes nothing', async () => {
    const [added] = (await client.activities.addActivities({ organizationId: ORG, activities: [record()] })).data;
    await client.workspace.updateActivityConfig({ immutable: true });
    await expectCollabError(client.activities.addActivities({ organizationId: ORG, activities: [record()] }), 'FAILED_PRECONDITION', /immutable/);
    await expectCollabError(client.activities.updateActivity({ organizationId: ORG, activityId: added!.id, actionType: 'x' }), 'FAILED_PRECONDITION', /immutable/);
    await expectCollabError(client.activities.deleteActivities({ organizationId: ORG, activityIds: [added!.id] }), 'FAILED_PRECONDITION', /immutable/);
    expect((await client.activities.getActivityLogs({ organizationId: ORG })).data).toEqual([added]);
    expect(await activityEvents()).toHaveLength(1);

    // Turning immutability off again allows changes.
    await client.workspace.updateActivityConfig({ immutable: false });
    expect((await client.activities.deleteActivities({ organizationId: ORG, activityIds: [added!.id] })).data[added!.id]!.success).toBe(true);
  });
});
