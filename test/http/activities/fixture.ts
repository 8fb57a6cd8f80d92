import { afterAll, beforeAll, beforeEach } from 'vitest';
import { eventFromRow } from '../../../server/platform/events.js';
import type { Client } from '../../../sdk/index.js';
import { startTestServer, type TestServer, type WorkspaceCredentials, putRawSetting } from '../../helpers/server.js';

/** The server, workspace and records the activity-write tests share: one server per file, emptied of activities and events before each test. */
export const ORG = 'w-org';
export let server: TestServer;
export let ws: WorkspaceCredentials;
export let client: Client;
export let appId: string;

export const record = (overrides: Record<string, unknown> = {}) => ({
  documentId: 'doc-1',
  featureType: 'custom' as const,
  actionType: 'custom.approved',
  actionUser: { userId: 'ada', name: 'Ada', email: 'ada@example.com' },
  targetEntityId: 'invoice-7',
  displayMessageTemplate: '{{actionUser.name}} approved {{invoice}}',
  displayMessageTemplateData: { actionUser: { name: 'Ada' }, invoice: 'Invoice 7' },
  ...overrides,
});

export async function activityEvents() {
  const rows = await server.running.database.db.domainEvent.findMany({ where: { apiKeyId: appId, type: 'activity.add' }, orderBy: [{ occurredAt: 'asc' }, { id: 'asc' }] });
  return rows.map(eventFromRow);
}

/** Registers these hooks in the calling test file (each test file gets its own server). */
export function useActivitiesServer(): void {
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
}
