import { EXECUTION_STATUSES, type getAgentAnalytics } from '../../../../contract/agents/executions.js';
import type { DataOf } from '../../../../contract/common/envelope.js';
import { invalidArgument } from '../../../lib/app-error.js';
import type { Caller } from '../../../platform/caller.js';
import type { RunsRepo } from '../repos/runs.js';

interface Usage {
  executions: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

const zero = (): Usage => ({ executions: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0 });

/** Agent Analytics: one grouped read of the runs (model × month × status), folded into each view. */
export function createAgentAnalytics(deps: { repo: RunsRepo }) {
  return {
    async getAgentAnalytics(app: Caller, input: DataOf<typeof getAgentAnalytics>) {
      if (input.month !== undefined && input.year === undefined) throw invalidArgument('data.month needs data.year');
      const period =
        input.year === undefined
          ? {}
          : input.month === undefined
            ? { fromMonth: input.year * 100 + 1, toMonth: input.year * 100 + 12 }
            : { fromMonth: input.year * 100 + input.month, toMonth: input.year * 100 + input.month };
      const groups = await deps.repo.usage(app.apiKeyId, {
        ...(input.agentId === undefined ? {} : { agentId: input.agentId }),
        ...(input.model === undefined ? {} : { llmModel: input.model }),
        ...period,
      });
      const allTime = zero();
      const years = new Map<number, Usage>();
      const months = new Map<number, Usage>();
      const models = new Map<string, Usage>();
      const byStatus = Object.fromEntries(EXECUTION_STATUSES.map((status) => [status, 0])) as Record<(typeof EXECUTION_STATUSES)[number], number>;
      const add = (total: Usage, group: (typeof groups)[number]) => {
        total.executions += group.executions;
        total.inputTokens += group.inputTokens;
        total.outputTokens += group.outputTokens;
        total.totalTokens += group.inputTokens + group.outputTokens;
        return total;
      };
      const fold = <K>(map: Map<K, Usage>, key: K, group: (typeof groups)[number]) => map.set(key, add(map.get(key) ?? zero(), group));
      for (const group of groups) {
        add(allTime, group);
        fold(years, Math.floor(group.month / 100), group);
        fold(months, group.month, group);
        fold(models, group.model ?? 'none', group);
        if (group.status in byStatus) byStatus[group.status as keyof typeof byStatus] += group.executions;
      }
      const sorted = <K extends number | string>(map: Map<K, Usage>) => [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return {
        allTime,
        byYear: sorted(years).map(([year, total]) => ({ year, ...total })),
        byMonth: sorted(months).map(([month, total]) => ({ year: Math.floor(month / 100), month: month % 100, ...total })),
        byModel: sorted(models).map(([model, total]) => ({ model, ...total })),
        executions: { total: allTime.executions, byStatus },
      };
    },
  };
}

export type AgentAnalytics = ReturnType<typeof createAgentAnalytics>;
