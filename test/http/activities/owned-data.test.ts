// Activity records and recordings in the owned-data registry: they follow a
// migrated document, go with a deleted document or organization, and with an
// erased user (also from an immutable log); recordings feed Get All User Data.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ZUserDataRecording } from '../../../contract/users/user-data-schemas.js';
import { testClock } from '../../../server/lib/clock.js';
import type { Client } from '../../../sdk/index.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

const clock = testClock(Date.UTC(2026, 6, 1));
let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;
let appId: string;

const activity = (documentId: string | undefined, userId: string) => ({
  ...(documentId ? { documentId } : {}),
  featureType: 'custom' as const,
  actionType: 'custom.x',
  actionUser: { userId, name: userId.toUpperCase() },
  targetEntityId: 't',
  displayMessageTemplate: '{{who}} did it',
  displayMessageTemplateData: { who: userId },
});
const recording = (organizationId: string, documentId: string, userId: string, annotationId: string) => ({
  organizationId,
  documentId,
  annotationId,
  recordingType: 'screen',
  mode: 'floating',
  recordedTime: { duration: 1000 },
  displayName: annotationId,
  attachments: [],
  from: { userId },
});

async function seed(org: string) {
  await client.organizations.addOrganization({ organizationId: org });
  for (const documentId of ['d1', 'd2']) await client.organizations.addDocument({ organizationId: org, documentId });
  await client.activities.addActivities({ organizationId: org, activities: [activity('d1', 'ada'), activity('d1', 'bob'), activity('d2', 'ada'), activity(undefined, 'bob')] });
  await client.recordings.addRecording(recording(org, 'd1', 'ada', `${org}-r1`));
  await client.recordings.addRecording(recording(org, 'd2', 'bob', `${org}-r2`));
}

const activityDocs = async (org: string) =>
  (await client.activities.getActivityLogs({ organizationId: org, order: 'asc' })).data.map((a) => `${a.metadata.documentId ?? '-'}:${a.actionUser.userId}`);
const recordingDocs = async (org: string) => (await client.recordings.getRecordings({ organizationId: org })).data.map((r) => `${r.metadata.documentId}:${r.annotationId}`);

beforeAll(async () => {
  server = await startTestServer({}, { overrides: { clock } });
  ws = await server.workspace();
  client = server.client(ws);
  appId = (await server.cli<{ apiKey: { id: string } }>('workspace', 'get', '--api-key', ws.apiKey)).apiKey.id;
});
afterAll(() => server?.close());
beforeEach(() => clock.advance(1000));

const run = <T>(work: () => Promise<T>) => server.running.database.uow.run(work);

describe('owned data: activities and recordings', () => {
  it('follow a document to its new ID', async () => {
    await seed('m-org');
    await run(() => server.running.services.owned.moveDocument({ apiKeyId: appId, organizationId: 'm-org', documentId: 'd1' }, 'd1-new'));
    expect(await activityDocs('m-org')).toEqual(['d1-new:ada', 'd1-new:bob', 'd2:ada', '-:bob']);
    expect(await recordingDocs('m-org')).toEqual(['d1-new:m-org-r1', 'd2:m-org-r2']);
    expect((await client.activities.getActivityLogs({ organizationId: 'm-org', documentId: 'd1' })).data).toEqual([]);
    expect((await client.recordings.getRecordings({ organizationId: 'm-org', documentId: 'd1' })).data).toEqual([]);
  });

  it('go with a deleted document, and the rest with a deleted organization', async () => {
    await seed('x-org');
    await seed('keep-org');
    await client.organizations.deleteDocument({ organizationId: 'x-org', documentId: 'd1' });
    expect(await activityDocs('x-org')).toEqual(['d2:ada', '-:bob']);
    expect(await recordingDocs('x-org')).toEqual(['d2:x-org-r2']);
    await client.organizations.deleteOrganization({ organizationId: 'x-org' });
    const { db } = server.running.database;
    expect(await db.activity.count({ where: { apiKeyId: appId, organizationId: 'x-org' } })).toBe(0);
    expect(await db.recording.count({ where: { apiKeyId: appId, organizationId: 'x-org' } })).toBe(0);
    expect(await activityDocs('keep-org')).toHaveLength(4);
    expect(await recordingDocs('keep-org')).toHaveLength(2);
  });

  it('erasing a user deletes the records they acted in and their recordings, even from an immutable log', async () => {
    await seed('e-org');
    await client.workspace.updateActivityConfig({ immutable: true });
    await run(() => server.running.services.owned.eraseUser({ apiKeyId: appId, userId: 'ada' }));
    expect(await activityDocs('e-org')).toEqual(['d1:bob', '-:bob']);
    expect(await recordingDocs('e-org')).toEqual(['d2:e-org-r2']);
    // Other organizations of the application too.
    expect((await client.activities.getActivityLogs({ organizationId: 'keep-org', userId: 'ada' })).data).toEqual([]);
    await client.workspace.updateActivityConfig({ immutable: false });
  });

  it('the recordings user-data source pages a user\'s recordings in a stable order', async () => {
    await client.organizations.addOrganization({ organizationId: 'u-org' });
    await client.organizations.addDocument({ organizationId: 'u-org', documentId: 'd1' });
    for (let i = 0; i < 5; i++) await client.recordings.addRecording(recording('u-org', 'd1', i === 2 ? 'bob' : 'cy', `u-${i}`));
    const source = server.running.services.owned.userDataSource('recordings')!;
    const key = { apiKeyId: appId, apiKey: ws.apiKey, organizationId: 'u-org', userId: 'cy' };
    const seen: string[] = [];
    let after: { at: number; id: string } | undefined;
    for (;;) {
      const page = await source.list(key, after, 2);
      if (page.length === 0) break;
      for (const { item } of page) {
        const parsed = ZUserDataRecording.parse(item);
        expect(parsed.metadata.apiKey).toBe(ws.apiKey);
        seen.push(parsed.annotationId);
      }
      after = page[page.length - 1]!.cursor;
    }
    expect(seen).toEqual(['u-0', 'u-1', 'u-3', 'u-4']);
    expect(await source.list({ ...key, organizationId: 'keep-org' }, undefined, 10)).toEqual([]);
  });
});
