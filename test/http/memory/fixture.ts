import { afterAll, beforeAll, beforeEach } from 'vitest';
import { type TAddJudgmentData } from '../../../contract/memory/add-judgment.js';
import { testClock } from '../../../server/lib/clock.js';
import type { Client } from '../../../sdk/index.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

/** The server and workspace the judgment tests share: one server per file on a test clock, emptied of judgments before each test. */
export const clock = testClock(Date.UTC(2026, 5, 1));
export let server: TestServer;
export let ws: WorkspaceCredentials;
export let client: Client;
export let appId: string;

export const judgment = (overrides: Partial<TAddJudgmentData> = {}): TAddJudgmentData => ({
  subject: 'Renew the hosting vendor contract',
  decision: 'approve',
  reason: 'Cheaper than the alternatives',
  reviewerId: 'ann',
  ...overrides,
});

/** Registers these hooks in the calling test file (each test file gets its own server). */
export function useJudgmentsServer(): void {
  beforeAll(async () => {
    server = await startTestServer({}, { overrides: { clock } });
    ws = await server.workspace();
    client = server.client(ws);
    appId = (await server.cli<{ apiKey: { id: string } }>('workspace', 'get', '--api-key', ws.apiKey)).apiKey.id;
  });
  afterAll(() => server?.close());
  beforeEach(async () => {
    await server.running.database.db.judgment.deleteMany({});
    await server.running.database.db.judgmentRevision.deleteMany({});
    clock.advance(1000);
  });
}
