import type { cancelAgentExecution, countAgentExecutions, getAgentExecution, listAgentExecutions, runAgent } from '../../../../contract/agents/executions.js';
import { DEFAULT_MAX_URLS, type TAgentExecution } from '../../../../contract/agents/executions.js';
import type { DataOf } from '../../../../contract/common/envelope.js';
import { createdOnce } from '../../../db/errors.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import { AppError, alreadyExists, failedPrecondition, invalidArgument, notFound } from '../../../lib/app-error.js';
import type { Clock } from '../../../lib/clock.js';
import type { Ids } from '../../../lib/ids.js';
import { pageScope } from '../../../lib/page-scope.js';
import type { PageTokens } from '../../../lib/page-token.js';
import type { Caller } from '../../../platform/caller.js';
import type { EventBus } from '../../../platform/events.js';
import type { Jobs } from '../../../platform/jobs.js';
import type { Access } from '../../access/module.js';
import { BUILTIN_AGENTS, builtinAgent } from '../builtins.js';
import type { AgentsRepo } from '../repos/agents.js';
import type { AgentSecrets, Config } from '../secrets.js';
import { builtinPlan, customPlan, type RunPlan } from '../run/plan.js';
import { runningKeyOf, type ExecutionRow, type RunsRepo } from '../repos/runs.js';
import type { Runner } from '../run/runner.js';
import { emptySummary, toExecution, toResult } from '../run/shapes.js';

const DEFAULT_EXECUTIONS_PAGE = 20;

type UserContext = Record<string, string | number | boolean>;

export interface RunsServiceDeps {
  repo: RunsRepo;
  agents: AgentsRepo;
  secrets: AgentSecrets;
  access: Pick<Access, 'repos'>;
  uow: UnitOfWork;
  jobs: Jobs;
  events: EventBus;
  ids: Ids;
  clock: Clock;
  pageTokens: PageTokens;
  runner: Runner;
  limits: { maxConcurrentRuns: number; runTimeoutMs: number };
}

/** An agent as a run needs it: identity, the version to pin, and its configuration (secrets opened, in memory only). */
interface ResolvedAgent {
  id: string;
  name: string;
  enabled: boolean;
  version: number | null;
  config: Config | null;
}

/** Run Agent and the reads of runs. The run itself is the runner's job (runner.ts). */
export function createRunsService(deps: RunsServiceDeps) {
  const { repo, uow } = deps;

  async function resolve(apiKeyId: string, agentId: string, version?: number | null): Promise<ResolvedAgent> {
    const builtin = builtinAgent(agentId);
    if (builtin !== undefined) {
      const state = (await deps.agents.builtinStates(apiKeyId)).find((row) => row.agentId === agentId);
      return { id: builtin.id, name: builtin.name, enabled: state?.enabled ?? true, version: null, config: null };
    }
    const row = await deps.agents.findAgent(apiKeyId, agentId);
    if (row === null) throw notFound(`no agent ${agentId}`);
    const pinned = version ?? row.latestVersion;
    const stored = await deps.agents.findVersion(apiKeyId, agentId, pinned);
    if (stored === null) throw notFound(`agent ${agentId} has no version ${pinned}`);
    return { id: row.id, name: row.name, enabled: row.enabled, version: pinned, config: deps.secrets.open(stored.config).plain };
  }

  function planOf(agent: ResolvedAgent, options: { aiConfig?: DataOf<typeof runAgent>['aiConfig']; userContext: UserContext }): RunPlan {
    return agent.config === null ? builtinPlan(agent.id, options) : customPlan(agent.config, options);
  }

  async function findExecution(apiKeyId: string, executionId: string): Promise<ExecutionRow> {
    const row = await repo.find(apiKeyId, executionId);
    if (row === null) throw notFound(`no agent execution ${executionId}`);
    return row;
  }

  return {
    /** The plan of a stored run, for the runner: its pinned version, its own options. */
    async planOfRun(row: ExecutionRow): Promise<RunPlan> {
      const agent = await resolve(row.apiKeyId, row.agentId, row.agentVersion);
      const userContext = row.userContext === null ? {} : (JSON.parse(row.userContext) as UserContext);
      const aiConfig = row.aiConfig === null ? undefined : (JSON.parse(row.aiConfig) as DataOf<typeof runAgent>['aiConfig']);
      return planOf(agent, { aiConfig, userContext });
    },

    async runAgent(app: Caller, input: DataOf<typeof runAgent>): Promise<{ executionId: string }> {
      if (!/^https?:$/.test(new URL(input.url).protocol)) throw invalidArgument('data.url must be an http or https URL');
      const agent = await resolve(app.apiKeyId, input.agentId);
      if (!agent.enabled) throw failedPrecondition(`agent ${input.agentId} is disabled: enable it with Update Agent first`);
      const strategy = agent.config === null ? 'service' : String((agent.config.execution as { executionStrategy?: unknown } | undefined)?.executionStrategy ?? 'ai');
      if (strategy === 'browser-agent') {
        throw failedPrecondition(`execution strategy ${strategy} is not run by this server yet (docs/agents.md)`);
      }
      const userContext = checkedUserContext(agent, input.userContext ?? {}, input.url);
      const plan = planOf(agent, { aiConfig: input.aiConfig, userContext });
      // The agent's configuration, not this request, is what no run can use (e.g. more MCP servers than a run connects to).
      if (plan.invalid !== undefined) throw failedPrecondition(`agent ${agent.id} cannot run: ${plan.invalid}`);

      const document = await deps.access.repos.documents.findDocument(app.apiKeyId, input.organizationId, input.documentId);
      if (document === null) throw notFound(`no document ${input.documentId} in organization ${input.organizationId}`);

      const now = deps.clock.nowMs();
      const runningKey = runningKeyOf(agent.id, input.organizationId, input.documentId);
      const row: ExecutionRow = {
        apiKeyId: app.apiKeyId,
        id: deps.ids.next('aex'),
        agentId: agent.id,
        agentName: agent.name,
        agentVersion: agent.version,
        organizationId: input.organizationId,
        documentId: input.documentId,
        seedUrl: input.url,
        crossPageExecute: input.crossPageExecute ?? false,
        maxUrls: input.maxUrlsToProcess ?? DEFAULT_MAX_URLS,
        deviceType: input.deviceType ?? 'desktop',
        visibility: input.annotationVisibility ?? 'private',
        status: 'running',
        runningKey,
        startedAt: BigInt(now),
        startedMonth: monthOf(now),
        completedAt: null,
        deadlineAt: BigInt(now + deps.limits.runTimeoutMs),
        error: null,
        trigger: input.trigger ?? 'standalone',
        workflowExecutionId: input.workflowExecutionId ?? null,
        previousExecutionId: null,
        ranBy: input.ranBy === undefined ? null : JSON.stringify(input.ranBy),
        ranByUserId: input.ranBy?.userId ?? null,
        userContext: JSON.stringify(userContext),
        aiConfig: input.aiConfig === undefined ? null : JSON.stringify(input.aiConfig),
        summary: JSON.stringify(emptySummary()),
        llmModel: null,
        inputTokens: 0,
        outputTokens: 0,
        updatedAt: BigInt(now),
      };
      await uow.run(async () => {
        // Counted one after the other (see AgentsRepo.lockQuota), so the limit holds under concurrent runs.
        await deps.agents.lockQuota(app.apiKeyId);
        if ((await repo.findRunning(app.apiKeyId, runningKey)) !== null) {
          throw alreadyExists(`agent ${agent.id} is already running on document ${input.documentId}`);
        }
        if ((await repo.countRunning(app.apiKeyId)) >= deps.limits.maxConcurrentRuns) {
          throw new AppError('RESOURCE_EXHAUSTED', `an application runs at most ${deps.limits.maxConcurrentRuns} agents at once (AGENT_MAX_CONCURRENT_RUNS): wait for one to end`);
        }
        row.previousExecutionId = (await repo.latestOn(app.apiKeyId, agent.id, input.organizationId, input.documentId))?.id ?? null;
        await createdOnce(`a run of agent ${agent.id} on document ${input.documentId}`, () => repo.insert(row));
        if (agent.config !== null) await deps.agents.countRun(app.apiKeyId, agent.id, row.startedAt);
        await deps.jobs.enqueue(deps.runner.job, { apiKeyId: app.apiKeyId, apiKey: app.apiKey, executionId: row.id }, { apiKeyId: app.apiKeyId });
        await deps.events.publish({
          type: 'agent.execution.started',
          apiKeyId: app.apiKeyId,
          organizationId: row.organizationId,
          documentId: row.documentId,
          payload: { execution: toExecution(row) },
        });
      });
      return { executionId: row.id };
    },

    async getAgentExecution(app: Caller, input: DataOf<typeof getAgentExecution>) {
      const row = await findExecution(app.apiKeyId, input.executionId);
      const execution = toExecution(row);
      if (!input.includeResults) return { execution };
      return { execution, results: (await repo.results(app.apiKeyId, row.id)).map(toResult) };
    },

    async listAgentExecutions(app: Caller, input: DataOf<typeof listAgentExecutions>): Promise<{ items: TAgentExecution[]; pageToken: string | null }> {
      const { agentId, organizationId, documentId } = input;
      const byDocument = organizationId !== undefined && documentId !== undefined;
      if ((organizationId === undefined) !== (documentId === undefined) || (agentId === undefined && !byDocument)) {
        throw invalidArgument('give agentId, or organizationId and documentId, or all three');
      }
      const filter = { ...(agentId === undefined ? {} : { agentId }), ...(byDocument ? { organizationId, documentId } : {}) };
      const page = await deps.pageTokens.page(
        pageScope('agent-executions', app.apiKeyId, agentId ?? '', organizationId ?? '', documentId ?? ''),
        { pageSize: input.pageSize ?? DEFAULT_EXECUTIONS_PAGE, ...(input.pageToken === undefined ? {} : { pageToken: input.pageToken }) },
        (after, take) => repo.list(app.apiKeyId, filter, after, take),
        (row) => ({ at: Number(row.startedAt), id: row.id }),
      );
      return { items: page.items.map(toExecution), pageToken: page.pageToken };
    },

    async countAgentExecutions(app: Caller, input: DataOf<typeof countAgentExecutions>) {
      if (input.agentIds === undefined) return { total: await repo.countAll(app.apiKeyId, input.status) };
      const found = await repo.countByAgent(app.apiKeyId, [...new Set(input.agentIds)], input.status);
      // Keyed by caller-chosen IDs: an object without a prototype, so `__proto__`-like keys stay data.
      const counts: Record<string, number> = Object.create(null) as Record<string, number>;
      for (const agentId of input.agentIds) counts[agentId] = found.get(agentId) ?? 0;
      return { counts };
    },

    async cancelAgentExecution(app: Caller, input: DataOf<typeof cancelAgentExecution>) {
      const row = await findExecution(app.apiKeyId, input.executionId);
      if (row.status !== 'running') throw failedPrecondition(`agent execution ${row.id} has already ended (${row.status})`);
      const completedAt = BigInt(deps.clock.nowMs());
      const ended = await uow.run(async () => {
        const done = await repo.end(app.apiKeyId, row.id, {
          status: 'cancelled',
          completedAt,
          error: JSON.stringify({ code: 'CANCELLED', message: 'cancelled by a Cancel Agent Execution call', retryable: true }),
          summary: row.summary,
          llmModel: row.llmModel,
          inputTokens: row.inputTokens,
          outputTokens: row.outputTokens,
        });
        if (!done) return null;
        const after = (await repo.find(app.apiKeyId, row.id))!;
        await deps.events.publish({ type: 'agent.execution.completed', apiKeyId: app.apiKeyId, organizationId: after.organizationId, documentId: after.documentId, payload: { execution: toExecution(after) } });
        return after;
      });
      if (ended === null) throw failedPrecondition(`agent execution ${row.id} has already ended`);
      deps.runner.abort(row.id);
      return { execution: toExecution(ended) };
    },

    /** executionCount and lastExecutedAt of built-in agents, from their runs (custom agents keep them on their row). */
    builtinStats: (apiKeyId: string) => repo.statsOf(apiKeyId, BUILTIN_AGENTS.map((agent) => agent.id)),
  };
}

export type RunsService = ReturnType<typeof createRunsService>;

/**
 * The run's user context against the agent's `input.userContextFields`: each
 * value of the declared type, every required one present (or defaulted);
 * a key the agent does not declare is INVALID_ARGUMENT, so a typo does not
 * pass silently. A built-in agent's `url` field is the run's URL.
 */
function checkedUserContext(agent: ResolvedAgent, given: UserContext, url: string): UserContext {
  const definition = builtinAgent(agent.id);
  const fields = (definition?.input?.userContextFields ?? (agent.config?.input as { userContextFields?: unknown } | undefined)?.userContextFields ?? []) as Array<{
    id: string;
    type: string;
    required?: boolean;
    defaultValue?: string | number | boolean;
  }>;
  const byId = new Map(fields.map((field) => [field.id, field]));
  const values: UserContext = Object.create(null) as UserContext;
  for (const [key, value] of Object.entries(given)) {
    const field = byId.get(key);
    if (field === undefined) throw invalidArgument(`data.userContext.${key}: agent ${agent.id} has no user context field ${key}`);
    if (typeof value !== field.type) throw invalidArgument(`data.userContext.${key} must be a ${field.type}`);
    values[key] = value;
  }
  for (const field of fields) {
    if (values[field.id] !== undefined) continue;
    if (definition !== undefined && field.id === 'url') values.url = url;
    else if (field.defaultValue !== undefined) values[field.id] = field.defaultValue;
    else if (field.required) throw invalidArgument(`data.userContext.${field.id} is required by agent ${agent.id}`);
  }
  return { ...values };
}

/** year * 100 + month (UTC) of a Unix ms time: the period Agent Analytics groups runs by. */
export function monthOf(ms: number): number {
  const date = new Date(ms);
  return date.getUTCFullYear() * 100 + date.getUTCMonth() + 1;
}
