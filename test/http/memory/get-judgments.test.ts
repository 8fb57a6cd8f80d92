// Get Judgments: order, filters and paging, through the SDK.
import { describe, expect, it } from 'vitest';
import { type TAddJudgmentData } from '../../../contract/memory/add-judgment.js';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError, expectCredentialChecks } from '../../helpers/credentials.js';
import { clock, server, ws, client, judgment, useJudgmentsServer } from './fixture.js';

useJudgmentsServer();

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
