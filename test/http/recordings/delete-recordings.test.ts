// Delete Recordings: per-ID answers.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TAddRecordingData } from '../../../contract/recordings/add-recording.js';
import { testClock } from '../../../server/lib/clock.js';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

const ORG = 'r-org';
const clock = testClock(Date.UTC(2026, 5, 1));
let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;
let appId: string;

const attachment = { attachmentId: 482_913, url: 'https://files.example.com/rec/1.webm', mimeType: 'video/webm', name: 'Screen recording.webm', type: 'video', size: 1_234_567 };
const recording = (overrides: Partial<TAddRecordingData> = {}): TAddRecordingData => ({
  organizationId: ORG,
  documentId: 'doc-1',
  recordingType: 'screen',
  mode: 'floating',
  recordedTime: { duration: 3_723_500 },
  displayName: 'Walkthrough',
  attachments: [attachment],
  from: { userId: 'ada', name: 'Ada', email: 'ada@example.com' },
  ...overrides,
});

beforeAll(async () => {
  server = await startTestServer({}, { overrides: { clock } });
  ws = await server.workspace();
  client = server.client(ws);
  appId = (await server.cli<{ apiKey: { id: string } }>('workspace', 'get', '--api-key', ws.apiKey)).apiKey.id;
  await client.organizations.addOrganization({ organizationId: ORG });
  for (const documentId of ['doc-1', 'doc-2']) await client.organizations.addDocument({ organizationId: ORG, documentId });
});
afterAll(() => server?.close());
beforeEach(async () => {
  await server.running.database.db.recording.deleteMany({});
  await server.running.database.db.domainEvent.deleteMany({});
  clock.advance(1000);
});

describe('Delete Recordings', () => {
  it('deletes by annotation ID and answers per ID', async () => {
    await client.recordings.addRecording(recording({ annotationId: 'keep' }));
    await client.recordings.addRecording(recording({ annotationId: 'drop' }));
    const { data } = await client.recordings.deleteRecordings({ organizationId: ORG, annotationIds: ['drop', 'never'] });
    expect(data).toEqual({ drop: { success: true, message: 'Recording deleted.' }, never: { success: false, message: expect.stringMatching(/does not exist/) } });
    expect((await client.recordings.getRecordings({ organizationId: ORG })).data.map((r) => r.annotationId)).toEqual(['keep']);
    await client.organizations.addOrganization({ organizationId: 'other-org' });
    expect((await client.recordings.deleteRecordings({ organizationId: 'other-org', annotationIds: ['keep'] })).data.keep!.success).toBe(false);
    await expectCollabError(client.recordings.deleteRecordings({ organizationId: ORG, annotationIds: [] }), 'INVALID_ARGUMENT', /annotationIds/);
  });
});
