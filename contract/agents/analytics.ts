import { z } from 'zod';
import { operation, resultOf } from '../common/envelope.js';
import { named } from '../common/named.js';
import { EXECUTION_STATUSES } from './executions.js';
import { ZAgentId } from './schemas.js';

const usage = {
  executions: z.number().int(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  totalTokens: z.number().int(),
};
export const ZAgentUsage = named('AgentUsage', z.object(usage));

export const getAgentAnalytics = operation({
  path: '/v2/agents/analytics/get',
  summary: 'Agent Analytics',
  description:
    'Runs and the tokens they used, from the runs themselves: `allTime` (every run the filters keep), `byYear`, `byMonth` (oldest first; months in UTC), `byModel` (the model a run used; runs without one, such as built-in services, under `none`) and `executions` (per status). Filters: `agentId`, `model`, and a period: `year`, or `year` and `month` (`month` alone is INVALID_ARGUMENT). Another application\'s runs never count.',
  data: z
    .object({
      agentId: ZAgentId.optional(),
      year: z.number().int().min(2000).max(9999).optional(),
      month: z.number().int().min(1).max(12).optional(),
      model: z.string().min(1).max(200).optional(),
    })
    .strict(),
  result: resultOf(
    z.object({
      allTime: ZAgentUsage,
      byYear: z.array(z.object({ year: z.number().int(), ...usage })),
      byMonth: z.array(z.object({ year: z.number().int(), month: z.number().int(), ...usage })),
      byModel: z.array(z.object({ model: z.string(), ...usage })),
      executions: z.object({ total: z.number().int(), byStatus: z.object(Object.fromEntries(EXECUTION_STATUSES.map((status) => [status, z.number().int()])) as Record<(typeof EXECUTION_STATUSES)[number], z.ZodNumber>) }),
    }),
  ),
  example: {
    data: { agentId: 'agt_3f9a2c71d4e8b6051a7c9e2d', year: 2026 },
    result: {
      status: 'success',
      message: 'Agent analytics retrieved successfully.',
      data: {
        allTime: { executions: 12, inputTokens: 48200, outputTokens: 3100, totalTokens: 51300 },
        byYear: [{ year: 2026, executions: 12, inputTokens: 48200, outputTokens: 3100, totalTokens: 51300 }],
        byMonth: [
          { year: 2026, month: 10, executions: 5, inputTokens: 20100, outputTokens: 1300, totalTokens: 21400 },
          { year: 2026, month: 11, executions: 7, inputTokens: 28100, outputTokens: 1800, totalTokens: 29900 },
        ],
        byModel: [{ model: 'gpt-4o-mini', executions: 12, inputTokens: 48200, outputTokens: 3100, totalTokens: 51300 }],
        executions: { total: 12, byStatus: { running: 0, passed: 7, failed: 4, partial: 0, error: 1, skipped: 0, cancelled: 0 } },
      },
    },
  },
});
