// Recordings and activity records through the operations built on the
// owned-data registry: Get All User Data lists a user's recordings (100 per
// page), Delete All User Data erases their recordings and the activity records
// they acted in, Migrate Documents moves both to the new document ID.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testClock } from '../../../server/lib/clock.js';
import type { Client } from '../../../sdk/index.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

const ORG = 'ud-org';
const clock = testClock(Date.UTC(2026, 7, 1));
let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;

const recording = (documentId: string, userId: string, annotationId: string) => ({
  organizationId: ORG,
  documentId,
  annotationId,
  recordingType: 'audio',
  mode: 'thread',
  recordedTime: { duration: 61_000 },
  displayName: annotationId,
  attachments: [{ attachmentId: 1, url: 'https://files.example.com/a.ogg', mimeType: 'audio/ogg', name: 'a.ogg', type: 'audio', size: 10 }],
  from: { userId, name: userId },
});
const activity = (documentId: string, userId: string) => ({
  documentId,
  featureType: 'custom' as const,
  actionType: 'custom.x',
  actionUser: { userId },
  targetEntityId: 't',
  displayMessageTemplate: 'x',
});

beforeAll(async () => {
  server = await startTestServer({}, { overrides: { clock } });
  ws = await server.workspace();
  client = server.client(ws);
  await client.organizations.addOrganization({ organizationId: ORG });
  for (const documentId of ['d1', 'd2']) await client.organizations.addDocument({ organizationId: ORG, documentId });
});
afterAll(() => server?.close());

describe('recordings and activity records in user data and migration', () => {
  it('Get All User Data lists the user\'s recordings, 100 per page, oldest first', async () => {
    for (let i = 0; i < 103; i++) {
      await client.recordings.addRecording(recording(i % 2 ? 'd1' : 'd2', 'ann', `ann-${String(i).padStart(3, '0')}`));
      if (i % 10 === 0) clock.advance(1);
    }
    await client.recordings.addRecording(recording('d1', 'other', 'other-1'));
    const first = await client.userData.getAllUserData({ organizationId: ORG, userId: 'ann' });
    expect(first.data.recordings).toHaveLength(100);
    expect(first.data.recordings[0]).toEqual({
      type: 'recorder',
      annotationId: 'ann-000',
      recordingType: 'audio',
      mode: 'thread',
      metadata: { apiKey: ws.apiKey, organizationId: ORG, documentId: 'd2' },
      recordedTime: { duration: 61_000, display: '00:01:01' },
      displayName: 'ann-000',
      from: { userId: 'ann', name: 'ann' },
      attachments: [{ attachmentId: 1, url: 'https://files.example.com/a.ogg', mimeType: 'audio/ogg', name: 'a.ogg', type: 'audio', size: 10 }],
      latestVersion: 1,
      createdAt: expect.any(Number),
    });
    expect(first.nextPageToken).toEqual(expect.any(String));
    const second = await client.userData.getAllUserData({ organizationId: ORG, userId: 'ann', pageToken: first.nextPageToken! });
    expect(second.data.recordings.map((r) => r.annotationId)).toEqual(['ann-100', 'ann-101', 'ann-102']);
    expect(second.nextPageToken).toBeNull();
    expect([...first.data.recordings, ...second.data.recordings].map((r) => r.annotationId)).toEqual(
      Array.from({ length: 103 }, (_, i) => `ann-${String(i).padStart(3, '0')}`),
    );
  });

  it('Migrate Documents moves recordings and activity records to the new document ID', async () => {
    await client.activities.addActivities({ organizationId: ORG, activities: [activity('d1', 'ann'), activity('d2', 'ann')] });
    const { migrationId } = (await client.migrations.migrateDocuments({ organizationId: ORG, documentId: 'd1', newDocumentId: 'd1-new' })).data;
    await server.running.services.jobs.runDue();
    expect((await client.migrations.getMigrateDocumentsStatus({ organizationId: ORG, migrationId })).data.status).toBe('completed');
    const onNew = await client.recordings.getRecordings({ organizationId: ORG, documentId: 'd1-new' });
    expect(onNew.data.map((r) => r.annotationId)).toEqual([...Array.from({ length: 51 }, (_, i) => `ann-${String(2 * i + 1).padStart(3, '0')}`), 'other-1']);
    expect((await client.recordings.getRecordings({ organizationId: ORG, documentId: 'd1' })).data).toEqual([]);
    expect((await client.activities.getActivityLogs({ organizationId: ORG, documentId: 'd1-new' })).data).toHaveLength(1);
    expect((await client.activities.getActivityLogs({ organizationId: ORG, documentId: 'd1' })).data).toEqual([]);
  });

  it('Delete All User Data erases the user\'s recordings and the records they acted in, also from an immutable log', async () => {
    await client.activities.addActivities({ organizationId: ORG, activities: [activity('d2', 'other')] });
    await client.workspace.updateActivityConfig({ immutable: true });
    const { jobId } = (await client.userData.deleteAllUserData({ userId: 'ann' })).data;
    await server.running.services.jobs.runDue();
    expect((await client.userData.getDeleteAllUserDataStatus({ jobId })).data.status).toBe('completed');
    expect((await client.userData.getAllUserData({ organizationId: ORG, userId: 'ann' })).data.recordings).toEqual([]);
    expect((await client.recordings.getRecordings({ organizationId: ORG })).data.map((r) => r.annotationId)).toEqual(['other-1']);
    expect((await client.activities.getActivityLogs({ organizationId: ORG })).data.map((a) => a.actionUser.userId)).toEqual(['other']);
  });
});
