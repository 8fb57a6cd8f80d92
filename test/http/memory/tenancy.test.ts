// Judgments of one application are invisible to another: reads, deletes and IDs.
import { describe, expect, it } from 'vitest';
import { server, client, judgment, useJudgmentsServer } from './fixture.js';

useJudgmentsServer();

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
