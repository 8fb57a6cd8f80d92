// Delete Judgments: per-ID answers and the revision row, through the SDK.
import { describe, expect, it } from 'vitest';
import { expectCollabError, expectCredentialChecks } from '../../helpers/credentials.js';
import { server, ws, client, appId, judgment, useJudgmentsServer } from './fixture.js';

useJudgmentsServer();

const revision = async () => server.running.database.db.judgmentRevision.findUnique({ where: { apiKeyId: appId } });

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
