// Add Judgment: the write side of decision memory, through the SDK.
import { describe, expect, it } from 'vitest';
import { POSTINGS_BUDGET, type TAddJudgmentData } from '../../../contract/memory/add-judgment.js';
import { expectCollabError, expectCredentialChecks } from '../../helpers/credentials.js';
import { clock, server, ws, client, appId, judgment, useJudgmentsServer } from './fixture.js';

useJudgmentsServer();

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
