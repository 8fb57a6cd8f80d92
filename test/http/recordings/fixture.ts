import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { TAddRecordingData } from '../../../contract/recordings/add-recording.js';
import { testClock } from '../../../server/lib/clock.js';
import type { Client } from '../../../sdk/index.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

/** The server, workspace and recordings the recording tests share: one server per file on a test clock, emptied of recordings and events before each test. */
export const ORG = 'r-org';
export const clock = testClock(Date.UTC(2026, 5, 1));
export let server: TestServer;
export let ws: WorkspaceCredentials;
export let client: Client;
export let appId: string;

export const attachment = { attachmentId: 482_913, url: 'https://files.example.com/rec/1.webm', mimeType: 'video/webm', name: 'Screen recording.webm', type: 'video', size: 1_234_567 };
export const recording = (overrides: Partial<TAddRecordingData> = {}): TAddRecordingData => ({
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

/** Registers these hooks in the calling test file (each test file gets its own server). */
export function useRecordingsServer(): void {
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
}
