import type { DomainModule, Platform } from '../../platform/module.js';
import type { Access } from '../access/module.js';
import type { AiService } from '../ai/service.js';
import { builtinAgent } from './builtins.js';
import { createAgentGroups } from './services/groups.js';
import type { AgentLimits } from './limits.js';
import { createAgentsRepo } from './repos/agents.js';
import { createPromptTools } from './services/prompts.js';
import { createAgentAnalytics } from './services/analytics.js';
import { runsOwnedData } from './run/owned-data.js';
import { createRunsRepo } from './repos/runs.js';
import { createRunner, type RunStages, type Suggestions } from './run/runner.js';
import { createRunsService } from './services/runs.js';
import { createAgentSecrets, resealStoredConfig } from './secrets.js';
import { createAgentsService } from './services/agents.js';

/**
 * Agents: built-in agents from the catalog in code, custom agents with
 * versioned configurations (secrets sealed), groups, and runs (Run Agent
 * and the agent-run job: pages fetched through the outbound guard, the
 * model through the AI domain, findings left as suggestion threads through
 * the comments domain).
 */
export function agentsModule(
  p: Platform,
  deps: { limits?: AgentLimits | undefined; access: Access; ai: Pick<AiService, 'complete' | 'chatWithTools'>; suggestions: Suggestions; stages: RunStages },
) {
  const repo = createAgentsRepo(p.db);
  const runsRepo = createRunsRepo(p.db);
  const secrets = createAgentSecrets(p.sealer);
  const settings = p.config.agents;
  // The runner asks the runs service for a run's plan; the service asks the runner to abort a cancelled run.
  let planOfRun: ReturnType<typeof createRunsService>['planOfRun'] = () => Promise.reject(new Error('agent runs are not wired'));
  const runner = createRunner({
    repo: runsRepo,
    jobs: p.jobs,
    uow: p.uow,
    events: p.events,
    ids: p.ids,
    clock: p.clock,
    log: p.logger,
    stages: deps.stages,
    suggestions: deps.suggestions,
    plan: (row) => planOfRun(row),
    complete: (app, model, prompt, text, signal) => deps.ai.complete(app, { model, prompt, text }, { signal }),
    chatWithTools: (app, input, signal) => deps.ai.chatWithTools(app, input, { signal }),
    options: { workers: settings.workers, fetchTimeoutMs: settings.fetchTimeoutMs, pageTimeoutMs: settings.pageTimeoutMs, maxPageBytes: settings.maxPageBytes, allowPrivate: p.config.allowPrivateUrls },
  });
  const agentRuns = createRunsService({
    repo: runsRepo,
    agents: repo,
    secrets,
    access: deps.access,
    uow: p.uow,
    jobs: p.jobs,
    events: p.events,
    ids: p.ids,
    clock: p.clock,
    pageTokens: p.pageTokens,
    runner,
    limits: { maxConcurrentRuns: settings.maxConcurrentRuns, runTimeoutMs: settings.runTimeoutMs },
  });
  planOfRun = agentRuns.planOfRun;
  const agents = createAgentsService({
    repo,
    uow: p.uow,
    secrets,
    pageTokens: p.pageTokens,
    ids: p.ids,
    clock: p.clock,
    limits: deps.limits,
    builtinStats: agentRuns.builtinStats,
  });
  const agentGroups = createAgentGroups({ repo, uow: p.uow, ids: p.ids, clock: p.clock, limits: deps.limits });
  return {
    services: { agents, agentGroups, agentRuns, agentAnalytics: createAgentAnalytics({ repo: runsRepo }), agentPrompts: createPromptTools({ ai: deps.ai }) },
    /** For the workflows domain: whether an agent node names an agent the application has. */
    shared: { agentExists: async (apiKeyId: string, agentId: string) => builtinAgent(agentId) !== undefined || (await repo.findAgent(apiKeyId, agentId)) !== null },
    ownedData: [runsOwnedData(runsRepo)],
    sealed: [{ table: 'AgentVersion', key: ['apiKeyId', 'agentId', 'version'], column: 'config', leaves: resealStoredConfig }],
  } satisfies DomainModule;
}
