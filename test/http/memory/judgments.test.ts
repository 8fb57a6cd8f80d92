// Add, Get and Delete Judgments: the write side of decision memory, through the SDK.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { POSTINGS_BUDGET, type TAddJudgmentData } from '../../../contract/memory/add-judgment.js';
import { testClock } from '../../../server/lib/clock.js';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError, expectCredentialChecks } from '../../helpers/credentials.js';
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

const revision = async () => server.running.database.db.judgmentRevision.findUnique({ where: { apiKeyId: appId } });

describe('Add Judgment', () => {
  it('stores the judgment with a generated ID, decided now by default, and bumps the revision', async () => {
    const { data } = await client.memory.addJudgment(judgment({ tags: ['procurement', 'hosting'] }));
    expect(data).toEqual({
      judgmentId: expect.stringMatching(/^jdg_/),
      subject: 'Renew the hosting vendor contract',
      decision: 'approve',
      reason: 'Cheaper than the alternatives',
      reviewerId: 'ann',
      organizationId: null,
      documentId: null,
      tags: ['procurement', 'hosting'],
      decidedAt: clock.nowMs(),
      createdAt: clock.nowMs(),
    });
    expect((await client.memory.getJudgments()).data).toEqual([data]);
    expect(await revision()).toMatchObject({ revision: 1, size: 1 });
    await client.memory.addJudgment(judgment());
    expect(await revision()).toMatchObject({ revision: 2, size: 2 });
  });

  it('keeps a given judgmentId, scope and decidedAt, up to a minute ahead of the clock; organizations need not exist and are not created', async () => {
    const past = clock.nowMs() - 400 * 86_400_000;
    const { data } = await client.memory.addJudgment(judgment({ judgmentId: 'j-1', organizationId: 'ghost-org', documentId: 'ghost-doc', decidedAt: past, decision: 'reject' }));
    expect(data).toMatchObject({ judgmentId: 'j-1', organizationId: 'ghost-org', documentId: 'ghost-doc', decidedAt: past, createdAt: clock.nowMs(), decision: 'reject', tags: [] });
    const ahead = await client.memory.addJudgment(judgment({ decidedAt: clock.nowMs() + 60_000 }));
    expect(ahead.data.decidedAt).toBe(clock.nowMs() + 60_000);
    await expectCollabError(client.memory.addJudgment(judgment({ decidedAt: clock.nowMs() + 60_001 })), 'INVALID_ARGUMENT', /data\.decidedAt: .*future/);
    expect((await client.organizations.getOrganizations({ organizationIds: ['ghost-org'] })).data).toEqual([]);
  });

  it('is ALREADY_EXISTS for a taken judgmentId, also when two adds race; a refused add changes nothing', async () => {
    await client.memory.addJudgment(judgment({ judgmentId: 'taken' }));
    await expectCollabError(client.memory.addJudgment(judgment({ judgmentId: 'taken', reason: 'other' })), 'ALREADY_EXISTS', /judgment taken already exists/);
    const outcomes = await Promise.allSettled(Array.from({ length: 4 }, () => client.memory.addJudgment(judgment({ judgmentId: 'raced' }))));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes) if (o.status === 'rejected') expect((o.reason as { status: string }).status).toBe('ALREADY_EXISTS');
    expect(await revision()).toMatchObject({ revision: 2, size: 2 });
    // Decided in the same millisecond: the higher ID first.
    expect((await client.memory.getJudgments()).data.map((j) => [j.judgmentId, j.reason])).toEqual([
      ['taken', 'Cheaper than the alternatives'],
      ['raced', 'Cheaper than the alternatives'],
    ]);
  });

  it('validates every field and its bounds', async () => {
    const bad = (overrides: Record<string, unknown>) => client.memory.addJudgment({ ...judgment(), ...overrides } as TAddJudgmentData);
    await expectCollabError(bad({ documentId: 'd' }), 'INVALID_ARGUMENT', /documentId requires organizationId/);
    await expectCollabError(bad({ decision: 'maybe' }), 'INVALID_ARGUMENT', /decision/);
    await expectCollabError(bad({ subject: '' }), 'INVALID_ARGUMENT', /subject/);
    await expectCollabError(bad({ subject: '   ' }), 'INVALID_ARGUMENT', /subject: must not be blank/);
    await expectCollabError(bad({ subject: 'x'.repeat(2001) }), 'INVALID_ARGUMENT', /subject/);
    await expectCollabError(bad({ reason: undefined }), 'INVALID_ARGUMENT', /reason/);
    await expectCollabError(bad({ reason: ' \n ' }), 'INVALID_ARGUMENT', /reason: must not be blank/);
    await expectCollabError(bad({ reason: 'x'.repeat(2001) }), 'INVALID_ARGUMENT', /reason/);
    await expectCollabError(bad({ reviewerId: undefined }), 'INVALID_ARGUMENT', /reviewerId/);
    await expectCollabError(bad({ reviewerId: '__proto__' }), 'INVALID_ARGUMENT', /reviewerId/);
    await expectCollabError(bad({ tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }), 'INVALID_ARGUMENT', /tags/);
    await expectCollabError(bad({ tags: [''] }), 'INVALID_ARGUMENT', /tags/);
    await expectCollabError(bad({ tags: ['x'.repeat(65)] }), 'INVALID_ARGUMENT', /tags/);
    await expectCollabError(bad({ decidedAt: -1 }), 'INVALID_ARGUMENT', /decidedAt/);
    await expectCollabError(bad({ decidedAt: 1.5 }), 'INVALID_ARGUMENT', /decidedAt/);
    await expectCollabError(bad({ createdAt: 1 }), 'INVALID_ARGUMENT', /createdAt/);
    expect(await server.running.database.db.judgment.count()).toBe(0);
    // The limits themselves are accepted.
    const longest = await client.memory.addJudgment(
      judgment({ subject: 's'.repeat(2000), reason: 'r'.repeat(2000), tags: Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(64, 'x')), decidedAt: 0 }),
    );
    expect(longest.data).toMatchObject({ decidedAt: 0, tags: expect.arrayContaining(['0'.padEnd(64, 'x')]) });
  });

  it('is RESOURCE_EXHAUSTED past the per-application cap, counted in the revision row', async () => {
    await client.memory.addJudgment(judgment());
    await server.running.database.db.judgmentRevision.update({ where: { apiKeyId: appId }, data: { size: 100_000 } });
    await expectCollabError(client.memory.addJudgment(judgment()), 'RESOURCE_EXHAUSTED', /100000 judgments/);
    expect(await server.running.database.db.judgment.count()).toBe(1);
    const [only] = (await client.memory.getJudgments()).data;
    await client.memory.deleteJudgments({ judgmentIds: [only!.judgmentId] });
    expect((await client.memory.addJudgment(judgment())).data.judgmentId).toMatch(/^jdg_/);
  });

  it('counts each judgment\'s distinct words (at most 256) in the revision row, and is RESOURCE_EXHAUSTED past the postings budget', async () => {
    // subject: renew, hosting, vendor, contract; reason: cheaper, than, hosting (again: counted once), alternatives; tags: vendor (again), eu.
    const { data } = await client.memory.addJudgment(judgment({ reason: 'Cheaper than the hosting alternatives', tags: ['vendor', 'EU'] }));
    expect(await revision()).toMatchObject({ size: 1, postings: 8 });
    const words = Array.from({ length: 300 }, (_, i) => `w${i}`).join(' ');
    await client.memory.addJudgment(judgment({ judgmentId: 'wordy', subject: words, reason: 'more words' }));
    expect(await revision()).toMatchObject({ size: 2, postings: 8 + 256 });
    await server.running.database.db.judgmentRevision.update({ where: { apiKeyId: appId }, data: { postings: POSTINGS_BUDGET - 6 } });
    await expectCollabError(client.memory.addJudgment(judgment()), 'RESOURCE_EXHAUSTED', /7 distinct words .* past 2000000 searchable words/);
    expect(await server.running.database.db.judgment.count()).toBe(2);
    // Exactly at the budget is allowed; deleting gives back what the judgment counted.
    await client.memory.addJudgment(judgment({ judgmentId: 'six', subject: 'one two three four five six', reason: 'two' }));
    expect(await revision()).toMatchObject({ size: 3, postings: POSTINGS_BUDGET });
    await client.memory.deleteJudgments({ judgmentIds: ['wordy', data.judgmentId] });
    expect(await revision()).toMatchObject({ size: 1, postings: POSTINGS_BUDGET - 256 - 8 });
  });

  it('checks credentials', async () => {
    await expectCredentialChecks(server, ws, '/v2/memory/judgments/add', judgment());
  });
});

describe('Get Judgments', () => {
  it('lists newest first by decidedAt then ID, filtered by organization, document, reviewer and decision', async () => {
    const at = clock.nowMs() - 10_000;
    const add = (judgmentId: string, overrides: Partial<TAddJudgmentData>) => client.memory.addJudgment(judgment({ judgmentId, ...overrides }));
    await add('a', { decidedAt: at, organizationId: 'o1', documentId: 'd1' });
    await add('b', { decidedAt: at + 5, organizationId: 'o1', reviewerId: 'bob', decision: 'reject' });
    await add('c', { decidedAt: at, organizationId: 'o2', documentId: 'd1' });
    await add('d', { decidedAt: at + 1 });
    await add('e', { decidedAt: at, organizationId: 'o1', documentId: 'd2', decision: 'reject' });
    const ids = async (filters: Parameters<Client['memory']['getJudgments']>[0] = {}) => (await client.memory.getJudgments(filters)).data.map((j) => j.judgmentId);
    expect(await ids()).toEqual(['b', 'd', 'e', 'c', 'a']);
    expect(await ids({ organizationId: 'o1' })).toEqual(['b', 'e', 'a']);
    expect(await ids({ organizationId: 'o1', documentId: 'd1' })).toEqual(['a']);
    expect(await ids({ reviewerId: 'bob' })).toEqual(['b']);
    expect(await ids({ decision: 'reject' })).toEqual(['b', 'e']);
    expect(await ids({ organizationId: 'o1', decision: 'approve' })).toEqual(['a']);
    expect(await ids({ organizationId: 'nope' })).toEqual([]);
    await expectCollabError(client.memory.getJudgments({ documentId: 'd1' }), 'INVALID_ARGUMENT', /documentId requires organizationId/);
    await expectCollabError(client.memory.getJudgments({ decision: 'maybe' as 'approve' }), 'INVALID_ARGUMENT', /decision/);
  });

  it('pages without gaps or repeats, and refuses forged tokens, tokens of another query and pageSize 0', async () => {
    const at = clock.nowMs() - 100_000;
    for (let i = 0; i < 7; i++) await client.memory.addJudgment(judgment({ judgmentId: `p${i}`, decidedAt: at + Math.floor(i / 2) }));
    const seen: string[] = [];
    let pageToken: string | undefined;
    do {
      const page = await client.memory.getJudgments({ pageSize: 2, ...(pageToken ? { pageToken } : {}) });
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((j) => j.judgmentId));
      pageToken = page.pageToken ?? undefined;
    } while (pageToken);
    expect(seen).toEqual(['p6', 'p5', 'p4', 'p3', 'p2', 'p1', 'p0']);

    const { pageToken: token } = await client.memory.getJudgments({ pageSize: 1 });
    const [, tag] = token!.split('.');
    const forged = `${Buffer.from(JSON.stringify([0, ''])).toString('base64url')}.${tag}`;
    await expectCollabError(client.memory.getJudgments({ pageSize: 1, pageToken: forged }), 'INVALID_ARGUMENT', /pageToken/);
    await expectCollabError(client.memory.getJudgments({ reviewerId: 'ann', pageToken: token! }), 'INVALID_ARGUMENT', /pageToken/);
    await expectCollabError(client.memory.getJudgments({ pageSize: 0 }), 'INVALID_ARGUMENT', /data\.pageSize/);
  });

  it('checks credentials', async () => {
    await expectCredentialChecks(server, ws, '/v2/memory/judgments/get', {});
  });
});

describe('Delete Judgments', () => {
  it('deletes by ID, answers per ID, and bumps the revision only when something went', async () => {
    await client.memory.addJudgment(judgment({ judgmentId: 'keep' }));
    await client.memory.addJudgment(judgment({ judgmentId: 'drop' }));
    const { data } = await client.memory.deleteJudgments({ judgmentIds: ['drop', 'never', 'constructor'] });
    expect(data).toEqual({
      drop: { success: true, message: 'Judgment deleted.' },
      never: { success: false, message: 'judgment never does not exist' },
      constructor: { success: false, message: 'judgment constructor does not exist' },
    });
    expect((await client.memory.getJudgments()).data.map((j) => j.judgmentId)).toEqual(['keep']);
    expect(await revision()).toMatchObject({ revision: 3, size: 1 });
    await client.memory.deleteJudgments({ judgmentIds: ['drop'] });
    expect(await revision()).toMatchObject({ revision: 3, size: 1 });
    await expectCollabError(client.memory.deleteJudgments({ judgmentIds: [] }), 'INVALID_ARGUMENT', /judgmentIds/);
    await expectCollabError(client.memory.deleteJudgments({ judgmentIds: Array.from({ length: 31 }, (_, i) => `x${i}`) }), 'INVALID_ARGUMENT', /judgmentIds/);
  });

  it('reports a judgment deleted by exactly one of two deletes racing for it, and counts it off once', async () => {
    for (let round = 0; round < 10; round++) {
      await client.memory.addJudgment(judgment({ judgmentId: `race-${round}` }));
      const before = await revision();
      const answers = await Promise.all([1, 2].map(() => client.memory.deleteJudgments({ judgmentIds: [`race-${round}`] })));
      expect(answers.filter((answer) => answer.data[`race-${round}`]!.success)).toHaveLength(1);
      expect(await revision()).toMatchObject({ size: before!.size - 1, postings: before!.postings - 7 });
    }
  });

  it('checks credentials', async () => {
    await expectCredentialChecks(server, ws, '/v2/memory/judgments/delete', { judgmentIds: ['x'] });
  });
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
