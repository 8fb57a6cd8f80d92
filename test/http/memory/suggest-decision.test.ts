// Suggest Decision through HTTP: the result envelope without status/message,
// scopes, the index following every change (here and from other processes),
// validation, credentials, and other applications' judgments.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TAddJudgmentData } from '../../../contract/memory/add-judgment.js';
import { createJudgmentsRepo, judgmentRowOf } from '../../../server/domains/memory/repo.js';
import { judgmentRecord } from '../../../server/domains/memory/shapes.js';
import { testClock } from '../../../server/lib/clock.js';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError, expectCredentialChecks } from '../../helpers/credentials.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

const DAY = 86_400_000;
const clock = testClock(Date.UTC(2026, 5, 1));
let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;
let appId: string;

/** confidence = share × (1 − e^(−n/5)), three decimals (docs/decisions.md, Decision memory). */
const confidence = (share: number, n: number) => Math.round(share * (1 - Math.exp(-n / 5)) * 1000) / 1000;

let counter = 0;
const add = (decision: 'approve' | 'reject', overrides: Partial<TAddJudgmentData> & { ageDays?: number } = {}) => {
  const { ageDays = 0, ...rest } = overrides;
  counter += 1;
  return client.memory.addJudgment({
    subject: 'Renew the hosting vendor contract',
    decision,
    reason: decision === 'approve' ? 'Cheaper than the alternatives' : 'No security review yet',
    reviewerId: `reviewer-${counter % 4}`,
    decidedAt: clock.nowMs() - ageDays * DAY,
    ...rest,
  });
};
const addMany = async (n: number, decision: 'approve' | 'reject', overrides: Partial<TAddJudgmentData> & { ageDays?: number } = {}) => {
  for (let i = 0; i < n; i++) await add(decision, overrides);
};

beforeAll(async () => {
  server = await startTestServer({ MEMORY_INDEX_APPLICATIONS: '2' }, { overrides: { clock } });
  ws = await server.workspace();
  client = server.client(ws);
  appId = (await server.cli<{ apiKey: { id: string } }>('workspace', 'get', '--api-key', ws.apiKey)).apiKey.id;
});
afterAll(() => server?.close());
beforeEach(async () => {
  // Through the API, so the revision moves as it does in use.
  for (;;) {
    const { data } = await client.memory.getJudgments({ pageSize: 30 });
    if (data.length === 0) break;
    await client.memory.deleteJudgments({ judgmentIds: data.map((j) => j.judgmentId) });
  }
  clock.advance(DAY);
});

describe('Suggest Decision', () => {
  it('answers {primary: null, conflict: null} without relevant judgments, and its result has no status or message', async () => {
    const empty = await server.post('/v2/memory/suggest', { data: { query: 'vendor contract' } }, appHeaders(ws));
    expect([empty.status, empty.body]).toEqual([200, { result: { primary: null, conflict: null } }]);
    await addMany(3, 'approve');
    expect(await client.memory.suggestDecision({ query: 'office chairs' })).toEqual({ primary: null, conflict: null });
    const found = await server.post('/v2/memory/suggest', { data: { query: 'vendor contract' } }, appHeaders(ws));
    expect(Object.keys(found.body.result).sort()).toEqual(['conflict', 'primary']);
  });

  it('recommends from the relevant judgments of the workspace, weighted by recency', async () => {
    await addMany(4, 'approve', { ageDays: 10 });
    await addMany(3, 'reject', { ageDays: 10 });
    await addMany(5, 'approve', { subject: 'Buy new office chairs', reason: 'Ergonomics' });
    const result = await client.memory.suggestDecision({ query: 'Should we renew the vendor contract for hosting?' });
    const split = 'evidence is split: 4 approve vs 3 reject';
    expect(result).toEqual({
      primary: {
        recommendation: 'approve',
        confidence: confidence(4 / 7, 4),
        basedOn: 4,
        scope: 'workspace',
        scopeLabel: 'all judgments in this workspace',
        topReasons: ['Cheaper than the alternatives'],
        uniqueReviewers: 4,
        caveats: [split],
      },
      conflict: {
        recommendation: 'reject',
        confidence: confidence(3 / 7, 3),
        basedOn: 3,
        scope: 'workspace',
        scopeLabel: 'all judgments in this workspace',
        topReasons: ['No security review yet'],
        uniqueReviewers: 3,
        caveats: [split],
      },
    });
    // Two fresh rejections outweigh the older approvals once those are two years old.
    clock.advance(720 * DAY);
    await addMany(2, 'reject');
    const later = await client.memory.suggestDecision({ query: 'vendor contract' });
    expect(later.primary).toMatchObject({ recommendation: 'reject', basedOn: 5 });
    expect(later.conflict).toBeNull();
  });

  it('uses the narrowest scope with at least 3 relevant judgments, with a freshness caveat for old evidence', async () => {
    await addMany(3, 'reject', { organizationId: 'o1', documentId: 'd1', ageDays: 400 });
    await addMany(2, 'approve', { organizationId: 'o1', documentId: 'd2' });
    await addMany(6, 'approve', { organizationId: 'o2' });
    const inDocument = await client.memory.suggestDecision({ query: 'vendor contract', organizationId: 'o1', documentId: 'd1' });
    expect(inDocument.primary).toMatchObject({
      recommendation: 'reject',
      scope: 'document',
      scopeLabel: 'this document',
      basedOn: 3,
      caveats: ['newest supporting judgment is 400 days old'],
    });
    const inOrganization = await client.memory.suggestDecision({ query: 'vendor contract', organizationId: 'o1', documentId: 'd2' });
    // d2 has 2: the organization's 5, where 3 year-old rejections weigh less than 2 fresh approvals.
    expect(inOrganization.primary).toMatchObject({ recommendation: 'approve', scope: 'organization', scopeLabel: 'organization o1', basedOn: 2 });
    const inWorkspace = await client.memory.suggestDecision({ query: 'vendor contract', organizationId: 'o3' });
    expect(inWorkspace.primary).toMatchObject({ recommendation: 'approve', scope: 'workspace', basedOn: 8 });
  });

  it('answers from the workspace with a caveat when it has fewer than 3 relevant judgments', async () => {
    await add('approve', { organizationId: 'o1' });
    expect((await client.memory.suggestDecision({ query: 'vendor contract', organizationId: 'o1' })).primary).toMatchObject({
      scope: 'workspace',
      basedOn: 1,
      confidence: confidence(1, 1),
      caveats: ['limited evidence: 1 judgment'],
    });
  });

  it('follows every add and delete at once, and is the same for the same judgments', async () => {
    await addMany(3, 'approve');
    const before = await client.memory.suggestDecision({ query: 'vendor contract' });
    expect(before.primary).toMatchObject({ recommendation: 'approve', basedOn: 3 });
    expect(await client.memory.suggestDecision({ query: 'vendor contract' })).toEqual(before);
    const rejections = await Promise.all([add('reject'), add('reject'), add('reject'), add('reject')]);
    expect((await client.memory.suggestDecision({ query: 'vendor contract' })).primary).toMatchObject({ recommendation: 'reject', basedOn: 4 });
    await client.memory.deleteJudgments({ judgmentIds: rejections.map((r) => r.data.judgmentId) });
    expect(await client.memory.suggestDecision({ query: 'vendor contract' })).toEqual(before);
  });

  it("follows changes other processes make (the revision), and only those: a row written without one is not seen", async () => {
    await addMany(3, 'approve');
    const repo = createJudgmentsRepo(server.running.database.db);
    const judgment = (id: string) => judgmentRecord(appId, id, { subject: 'vendor contract', decision: 'reject', reason: 'elsewhere', reviewerId: 'x', decidedAt: clock.nowMs() }, clock.nowMs());
    expect((await client.memory.suggestDecision({ query: 'vendor contract' })).primary!.basedOn).toBe(3);
    // As a bulk import without the bookkeeping would: this process keeps its index (the trade-off of caching).
    for (const id of ['r1', 'r2', 'r3', 'r4']) await repo.insert(judgment(id));
    expect((await client.memory.suggestDecision({ query: 'vendor contract' })).primary).toMatchObject({ recommendation: 'approve', basedOn: 3 });
    // Another process's add: the row and the revision in one transaction.
    await server.running.database.db.$transaction([server.running.database.db.judgment.create({ data: judgmentRowOf(judgment('r5')) }), server.running.database.db.judgmentRevision.update({ where: { apiKeyId: appId }, data: { revision: { increment: 1 }, size: { increment: 5 } } })]);
    expect((await client.memory.suggestDecision({ query: 'vendor contract' })).primary).toMatchObject({ recommendation: 'reject', basedOn: 5 });
  });

  it('keeps the indexes of the applications asked lately (MEMORY_INDEX_APPLICATIONS), answering for others after a rebuild', async () => {
    await addMany(3, 'approve');
    const others = await Promise.all([server.workspace(), server.workspace()]);
    const clients = others.map((c) => server.client(c));
    for (const other of clients) {
      for (let i = 0; i < 3; i++) await other.memory.addJudgment({ subject: 'vendor contract', decision: 'reject', reason: 'no', reviewerId: 'r' });
    }
    expect((await client.memory.suggestDecision({ query: 'vendor contract' })).primary!.recommendation).toBe('approve');
    for (const other of clients) expect((await other.memory.suggestDecision({ query: 'vendor contract' })).primary!.recommendation).toBe('reject');
    expect(server.running.services.judgmentIndexes.cached()).not.toContain(appId);
    expect(server.running.services.judgmentIndexes.cached()).toHaveLength(2);
    expect((await client.memory.suggestDecision({ query: 'vendor contract' })).primary).toMatchObject({ recommendation: 'approve', basedOn: 3 });
    expect(server.running.services.judgmentIndexes.cached()).toContain(appId);
  });

  it('takes names that mean something to JavaScript objects as ordinary IDs', async () => {
    await addMany(2, 'approve', { organizationId: 'constructor', documentId: 'hasOwnProperty', reviewerId: 'toString', reason: 'valueOf' });
    await add('approve', { organizationId: 'constructor', documentId: 'hasOwnProperty', reviewerId: 'prototype', reason: '__proto__' });
    const result = await client.memory.suggestDecision({ query: 'vendor contract', organizationId: 'constructor', documentId: 'hasOwnProperty' });
    expect(result.primary).toMatchObject({ scope: 'document', basedOn: 3, uniqueReviewers: 2, topReasons: ['valueOf', '__proto__'] });
    expect((await client.memory.suggestDecision({ query: 'vendor contract', organizationId: 'constructor' })).primary).toMatchObject({
      scope: 'organization',
      scopeLabel: 'organization constructor',
    });
  });

  it('validates the query and the scope', async () => {
    await expectCollabError(client.memory.suggestDecision({ query: '' }), 'INVALID_ARGUMENT', /query/);
    await expectCollabError(client.memory.suggestDecision({ query: ' \t\n' }), 'INVALID_ARGUMENT', /query: must not be blank/);
    await expectCollabError(client.memory.suggestDecision({ query: 'x'.repeat(2001) }), 'INVALID_ARGUMENT', /query/);
    await expectCollabError(client.memory.suggestDecision({} as { query: string }), 'INVALID_ARGUMENT', /query/);
    await expectCollabError(client.memory.suggestDecision({ query: 'vendor', documentId: 'd1' }), 'INVALID_ARGUMENT', /documentId requires organizationId/);
    await expectCollabError(client.memory.suggestDecision({ query: 'vendor', organizationId: '__proto__' }), 'INVALID_ARGUMENT', /organizationId/);
    await expectCollabError(client.memory.suggestDecision({ query: 'vendor', scope: 'document' } as { query: string }), 'INVALID_ARGUMENT', /scope/);
  });

  it('checks credentials', async () => {
    await expectCredentialChecks(server, ws, '/v2/memory/suggest', { query: 'vendor contract' });
  });

  it("never uses another application's judgments, also with the same organization and document IDs", async () => {
    await addMany(5, 'approve', { organizationId: 'o1', documentId: 'd1' });
    const other = server.client(await server.workspace());
    const where = { query: 'vendor contract', organizationId: 'o1', documentId: 'd1' };
    expect(await other.memory.suggestDecision(where)).toEqual({ primary: null, conflict: null });
    await other.memory.addJudgment({ subject: 'vendor contract', decision: 'reject', reason: 'theirs', reviewerId: 'r', organizationId: 'o1', documentId: 'd1' });
    expect(await other.memory.suggestDecision(where)).toEqual({
      primary: expect.objectContaining({ recommendation: 'reject', basedOn: 1, scope: 'workspace', topReasons: ['theirs'], caveats: ['limited evidence: 1 judgment'] }),
      conflict: null,
    });
    expect((await client.memory.suggestDecision(where)).primary).toMatchObject({ recommendation: 'approve', basedOn: 5, scope: 'document' });
  });
});
