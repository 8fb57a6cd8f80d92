// Judgments of one application are invisible to another: reads, deletes and IDs.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type TAddJudgmentData } from '../../../contract/memory/add-judgment.js';
import { testClock } from '../../../server/lib/clock.js';
import type { Client } from '../../../sdk/index.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

const clock = testClock(Date.UTC(2026, 5, 1));
let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;
let appId: string;

const judgment = (overrides: Partial<TAddJudgmentData> = {}): TAddJudgmentData => ({
  subject: 'Renew the hosting vendor contract',
  decision: 'approve',
  reason: 'Cheaper than the alternatives',
  reviewerId: 'ann',
  ...overrides,
});

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

describe('another application', () => {
  it('sees, deletes and collides with none of these judgments', async () => {
    await client.memory.addJudgment(judgment({ judgmentId: 'mine', organizationId: 'o1', documentId: 'd1' }));
    const other = server.client(await server.workspace());
    expect((await other.memory.getJudgments()).data).toEqual([]);
    expect((await other.memory.getJudgments({ organizationId: 'o1', documentId: 'd1' })).data).toEqual([]);
    expect((await other.memory.getJudgments({ reviewerId: 'ann' })).data).toEqual([]);
    expect((await other.memory.deleteJudgments({ judgmentIds: ['mine'] })).data.mine!.success).toBe(false);
    expect((await other.memory.addJudgment(judgment({ judgmentId: 'mine' }))).data.judgmentId).toBe('mine');
    expect((await client.memory.getJudgments()).data.map((j) => [j.judgmentId, j.organizationId])).toEqual([['mine', 'o1']]);
  });
});
