import { z } from 'zod';
import { ZId } from '../access/schemas.js';
import { operation, resultOf } from '../common/envelope.js';
import { named } from '../common/named.js';

export const MAX_JUDGMENT_IDS = 30;

export const deleteJudgments = operation({
  path: '/v2/memory/judgments/delete',
  summary: 'Delete Judgments',
  description:
    `Deletes judgments by ID (at most ${MAX_JUDGMENT_IDS}); Suggest Decision stops using them at once. Result keyed by judgment ID; an ID the application has no judgment for gets \`success: false\`.`,
  data: z
    .object({
      judgmentIds: z.array(ZId).min(1).max(MAX_JUDGMENT_IDS),
    })
    .strict(),
  result: resultOf(z.record(named('JudgmentDeletionOutcome', z.object({ success: z.boolean(), message: z.string() })))),
  example: {
    data: { judgmentIds: ['jdg-designer-req'] },
    result: { status: 'success', message: 'Judgments deleted.', data: { 'jdg-designer-req': { success: true, message: 'Judgment deleted.' } } },
  },
});
