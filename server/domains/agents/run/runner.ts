import type { Logger } from 'pino';
import { z } from 'zod';
import type { TAgentFinding, TExecutionError } from '../../../../contract/agents/executions.js';
import type { Clock } from '../../../lib/clock.js';
import type { Ids } from '../../../lib/ids.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { EventBus } from '../../../platform/events.js';
import type { JobDef, Jobs } from '../../../platform/jobs.js';
import type { CompletionOutcome, ToolChatOutcome } from '../../ai/service.js';
import type { ToolChat, Usage } from '../../ai/providers.js';
import { runAi } from './ai-execution.js';
import type { DraftFinding, FetchOptions } from './findings.js';
import { guard } from './guardrails.js';
import type { RunPlan } from './plan.js';
import type { ExecutionRow, RunsRepo } from '../repos/runs.js';
import { emptySummary, toExecution, topFindings, type Summary } from './shapes.js';

/**
 * The agent-run job: one run from its row to its end. Pages are processed
 * one after another; each page's outcome is written when it is done, so a
 * run resumed after a restart (the job's lease ran out) skips the pages it
 * has. The run's deadline is its row's, so a resumed run keeps it; a
 * cancel, the deadline or a lost lease abort every fetch and model call.
 */

export const ZRunPayload = z.object({ apiKeyId: z.string(), apiKey: z.string(), executionId: z.string() });
export type RunPayload = z.infer<typeof ZRunPayload>;

/** What one page gives: gathered context as text per strategy, or why it could not be gathered. */
export interface GatheredPage {
  finalUrl: string;
  context: Record<string, string>;
  errors: Array<{ strategy: string; code: TExecutionError['code']; message: string }>;
}

/** The stages the runner drives; module.ts wires the real ones, tests may pass their own. */
export interface RunStages {
  /** Same-origin pages from the seed, honouring robots.txt, the seed first. */
  discover(seed: string, max: number, options: FetchOptions): Promise<string[]>;
  gather(url: string, strategies: readonly string[], options: FetchOptions & { strategyOptions?: Record<string, unknown> }): Promise<GatheredPage>;
  /** A built-in service on a page: its findings, or an error that ends the page. */
  service(serviceId: string, url: string, options: FetchOptions): Promise<{ findings: DraftFinding[]; output: unknown } | { error: TExecutionError }>;
}

/** The comments domain's side: suggestion threads for findings, and removing a previous run's open ones. */
export interface Suggestions {
  add(input: {
    app: { apiKeyId: string; apiKey: string };
    organizationId: string;
    documentId: string;
    visibility: 'private' | 'public';
    author: { userId: string; name?: string; email?: string };
    agent: { agentId: string; executionId: string };
    findings: TAgentFinding[];
  }): Promise<Map<string, string>>;
  deleteOpen(input: { app: { apiKeyId: string; apiKey: string }; organizationId: string; documentId: string; agentId: string; url: string; exceptExecutionId: string }): Promise<number>;
}

export interface RunnerDeps {
  repo: RunsRepo;
  jobs: Jobs;
  uow: UnitOfWork;
  events: EventBus;
  ids: Ids;
  clock: Clock;
  log: Logger;
  stages: RunStages;
  suggestions: Suggestions;
  /** The run's agent as it was pinned when it started (secrets opened, in memory only). */
  plan(row: ExecutionRow): Promise<RunPlan>;
  complete(app: { apiKeyId: string }, model: string, prompt: string, text: string, signal: AbortSignal): Promise<CompletionOutcome>;
  /** The AI domain's tool chat (mcp-tools), under the application's key. */
  chatWithTools(app: { apiKeyId: string }, input: ToolChat, signal: AbortSignal): Promise<ToolChatOutcome>;
  options: { workers: number; fetchTimeoutMs: number; pageTimeoutMs: number; maxPageBytes: number; allowPrivate: boolean };
}

const USER_AGENTS = {
  desktop: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36 CollabBackendAgent/1.0',
  mobile: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36 CollabBackendAgent/1.0',
} as const;

interface PageOutcome {
  url: string;
  status: 'passed' | 'failed' | 'error' | 'skipped';
  findings: TAgentFinding[];
  error?: TExecutionError;
}

export function createRunner(deps: RunnerDeps) {
  const { repo, clock } = deps;
  /** Runs this process works on, to abort one that is cancelled here. */
  const local = new Map<string, AbortController>();

  async function end(row: ExecutionRow, status: string, error: TExecutionError | null, summary: Summary, usage: Usage, model: string | null): Promise<void> {
    const completedAt = BigInt(clock.nowMs());
    await deps.uow.run(async () => {
      const ended = await repo.end(row.apiKeyId, row.id, {
        status,
        completedAt,
        error: error === null ? null : JSON.stringify(error),
        summary: JSON.stringify(summary),
        llmModel: model,
        inputTokens: row.inputTokens + usage.inputTokens,
        outputTokens: row.outputTokens + usage.outputTokens,
      });
      if (!ended) return;
      const after = await repo.find(row.apiKeyId, row.id);
      if (after !== null) await publishEnd(after);
    });
  }

  const publishEnd = (row: ExecutionRow) =>
    deps.events.publish({
      type: 'agent.execution.completed',
      apiKeyId: row.apiKeyId,
      organizationId: row.organizationId,
      documentId: row.documentId,
      payload: { execution: toExecution(row) },
    });

  async function processPage(plan: RunPlan, row: ExecutionRow, url: string, fetch: FetchOptions, usage: Usage): Promise<PageOutcome> {
    if (!plan.inScope(url)) return { url, status: 'skipped', findings: [] };
    const source = plan.execution.strategy === 'ai' || plan.execution.strategy === 'mcp-tools' ? plan.execution.strategy : `service:${plan.execution.serviceId}`;
    let drafts: DraftFinding[];
    if (plan.execution.strategy === 'service' || plan.execution.strategy === 'service+ai') {
      const outcome = await deps.stages.service(plan.execution.serviceId, url, fetch);
      if ('error' in outcome) return { url, status: 'error', findings: [], error: outcome.error };
      drafts = outcome.findings;
      if (plan.execution.strategy === 'service+ai') {
        const shaped = await runAi(
          { model: plan.model!, instructions: plan.instructions, userContext: plan.userContext, page: { url, context: { 'service-output': serviceOutputText(outcome.output) } } },
          (prompt, text) => deps.complete(row, plan.model!, prompt, text, fetch.signal),
        );
        add(usage, shaped.usage);
        if ('error' in shaped) return { url, status: 'error', findings: [], error: shaped.error };
        drafts = shaped.findings.map((finding) => ({ ...finding, source: `service+ai:${plan.execution.serviceId}` }));
      }
    } else if (plan.execution.strategy === 'ai' || (plan.execution.strategy === 'mcp-tools' && plan.mcp !== undefined)) {
      const page = await deps.stages.gather(url, plan.strategies, { ...fetch, strategyOptions: plan.strategyOptions });
      const fatal = page.errors.find((error) => error.strategy === 'page');
      if (fatal !== undefined || Object.keys(page.context).length === 0) {
        const first = fatal ?? page.errors[0];
        return { url, status: 'error', findings: [], error: { code: first?.code ?? 'CRAWLER_ERROR', message: first?.message ?? 'no context could be gathered', retryable: true } };
      }
      const request = { model: plan.model!, instructions: plan.instructions, userContext: plan.userContext, page: { url: page.finalUrl, context: page.context } };
      const outcome =
        plan.mcp === undefined
          ? await runAi(request, (prompt, text) => deps.complete(row, plan.model!, prompt, text, fetch.signal))
          : await (await loadMcpExecution()).runMcpTools({ ...request, ...plan.mcp }, (input) => deps.chatWithTools(row, input, fetch.signal), {
              allowPrivate: fetch.allowPrivate,
              maxResponseBytes: fetch.maxBytes,
              signal: fetch.signal,
              log: deps.log.child({ executionId: row.id }),
            });
      add(usage, outcome.usage);
      if ('error' in outcome) return { url, status: 'error', findings: [], error: outcome.error };
      drafts = outcome.findings;
    } else {
      return { url, status: 'error', findings: [], error: plan.unsupported ?? { code: 'UNSUPPORTED', message: `execution strategy ${plan.execution.strategy} is not supported`, retryable: false } };
    }
    const findings = (plan.guardrails ? guard(drafts) : drafts).map(
      (draft): TAgentFinding => ({ ...draft, source: draft.source || source, id: deps.ids.next('afd'), commentId: null }),
    );
    return { url, status: findings.length > 0 ? 'failed' : 'passed', findings };
  }

  async function run(payload: RunPayload, jobSignal: AbortSignal): Promise<void> {
    const row = await repo.find(payload.apiKeyId, payload.executionId);
    if (row === null || row.status !== 'running') return;
    const controller = new AbortController();
    local.set(row.id, controller);
    const onJobAbort = () => controller.abort(new Error('lease lost'));
    jobSignal.addEventListener('abort', onJobAbort, { once: true });
    const left = Number(row.deadlineAt) - clock.nowMs();
    let timedOut = false;
    const deadline = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error('deadline'));
    }, Math.max(0, left));
    deadline.unref();
    const usage: Usage = { inputTokens: 0, outputTokens: 0 };
    let model: string | null = row.llmModel;
    try {
      const plan = await deps.plan(row);
      const app = payload;
      model = plan.model;
      const fetch: FetchOptions = {
        allowPrivate: deps.options.allowPrivate,
        timeoutMs: deps.options.fetchTimeoutMs,
        maxBytes: deps.options.maxPageBytes,
        signal: controller.signal,
        userAgent: USER_AGENTS[row.deviceType === 'mobile' ? 'mobile' : 'desktop'],
        deviceType: row.deviceType === 'mobile' ? 'mobile' : 'desktop',
      };
      if (plan.refused !== undefined) {
        await end(row, 'error', plan.refused, { ...emptySummary(plan.refused.message) }, usage, model);
        return;
      }
      if (!plan.inScope(row.seedUrl)) {
        await end(row, 'skipped', null, emptySummary('The page is outside the agent\'s page scope.'), usage, model);
        return;
      }
      const urls = row.crossPageExecute ? await deps.stages.discover(row.seedUrl, row.maxUrls, fetch) : [row.seedUrl];
      const done = new Set((await repo.results(row.apiKeyId, row.id)).map((result) => result.url));
      for (const url of urls) {
        if (controller.signal.aborted) break;
        if (done.has(url)) continue;
        const outcome = await withinPageDeadline(url, controller.signal, (signal) => processPage(plan, row, url, { ...fetch, signal }, usage));
        if (controller.signal.aborted) break;
        await repo.insertResult({
          apiKeyId: row.apiKeyId,
          executionId: row.id,
          id: deps.ids.next('apr'),
          url,
          status: outcome.status,
          findings: JSON.stringify(outcome.findings),
          error: outcome.error === undefined ? null : JSON.stringify(outcome.error),
          findingCount: outcome.findings.length,
          processedAt: BigInt(clock.nowMs()),
        });
        // Another process may have cancelled it: stop between pages.
        if ((await repo.find(row.apiKeyId, row.id))?.status !== 'running') return;
      }
      if (controller.signal.aborted) {
        if (timedOut) await finish(row, app, plan, usage, model, { code: 'TIMEOUT', message: `the run did not finish within its deadline`, retryable: true });
        return;
      }
      await finish(row, app, plan, usage, model, null);
    } catch (error) {
      if (controller.signal.aborted && !timedOut) return;
      deps.log.error({ executionId: row.id, err: error }, 'agent run failed');
      const failure: TExecutionError = timedOut
        ? { code: 'TIMEOUT', message: 'the run did not finish within its deadline', retryable: true }
        : { code: 'INTERNAL', message: 'the run stopped on an internal error; the server log has the details', retryable: true };
      await end(row, 'error', failure, emptySummary(failure.message), usage, model);
    } finally {
      clearTimeout(deadline);
      jobSignal.removeEventListener('abort', onJobAbort);
      local.delete(row.id);
    }
  }

  /**
   * One page under its own deadline (AGENT_PAGE_TIMEOUT_MS) as well as the
   * run's: a page that hangs ends `error` TIMEOUT and the run goes on to the
   * next. Whatever the page's work made of the abort (a fetch `CANCELLED`, a
   * throw), the page's outcome is the timeout.
   */
  async function withinPageDeadline(url: string, run: AbortSignal, work: (signal: AbortSignal) => Promise<PageOutcome>): Promise<PageOutcome> {
    const page = new AbortController();
    const onRun = () => page.abort(run.reason);
    run.addEventListener('abort', onRun, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      page.abort(new Error('page deadline'));
    }, deps.options.pageTimeoutMs);
    const timeout: PageOutcome = {
      url,
      status: 'error',
      findings: [],
      error: { code: 'TIMEOUT', message: `the page was not done within ${deps.options.pageTimeoutMs} ms (AGENT_PAGE_TIMEOUT_MS)`, retryable: true },
    };
    try {
      const outcome = await work(page.signal);
      return timedOut && !run.aborted ? timeout : outcome;
    } catch (error) {
      if (timedOut && !run.aborted) return timeout;
      throw error;
    } finally {
      clearTimeout(timer);
      run.removeEventListener('abort', onRun);
    }
  }

  /** Annotates the findings, then ends the run with its status and summary. */
  async function finish(row: ExecutionRow, app: RunPayload, plan: RunPlan, usage: Usage, model: string | null, failure: TExecutionError | null): Promise<void> {
    const results = await repo.results(row.apiKeyId, row.id);
    let annotated = 0;
    if (failure === null && plan.annotate) {
      for (const result of results) {
        const findings = JSON.parse(result.findings) as TAgentFinding[];
        if (plan.deletePrevious && result.status !== 'error' && result.status !== 'skipped') {
          await deps.suggestions.deleteOpen({ app: { apiKeyId: app.apiKeyId, apiKey: app.apiKey }, organizationId: row.organizationId, documentId: row.documentId, agentId: row.agentId, url: result.url, exceptExecutionId: row.id });
        }
        const pending = findings.filter((finding) => finding.commentId === null);
        if (pending.length === 0) {
          annotated += findings.length - pending.length;
          continue;
        }
        const ranBy = row.ranBy === null ? null : (JSON.parse(row.ranBy) as { userId: string; name?: string; email?: string });
        const threads = await deps.suggestions.add({
          app: { apiKeyId: app.apiKeyId, apiKey: app.apiKey },
          organizationId: row.organizationId,
          documentId: row.documentId,
          visibility: row.visibility === 'public' ? 'public' : 'private',
          author: ranBy ?? { userId: `agent:${row.agentId}`, name: row.agentName },
          agent: { agentId: row.agentId, executionId: row.id },
          findings: pending,
        });
        const withThreads = findings.map((finding) => ({ ...finding, commentId: threads.get(finding.id) ?? finding.commentId }));
        annotated += withThreads.filter((finding) => finding.commentId !== null).length;
        result.findings = JSON.stringify(withThreads);
        await repo.updateFindings(row.apiKeyId, row.id, result.id, result.findings);
      }
    }
    const all = results.flatMap((result) => JSON.parse(result.findings) as TAgentFinding[]);
    const errored = results.filter((result) => result.status === 'error');
    const processed = results.filter((result) => result.status !== 'skipped');
    const summary: Summary = {
      totalFindings: all.length,
      totalAnnotationsCreated: annotated,
      urlsProcessed: processed.length,
      urlsWithFindings: results.filter((result) => result.findingCount > 0).length,
      urlsErrored: errored.length,
      erroredUrls: errored.map((result) => result.url),
      severityCounts: { critical: 0, high: 0, medium: 0, low: 0, info: 0 },
      findings: topFindings(all),
      summary: '',
    };
    for (const finding of all) summary.severityCounts[finding.severity] += 1;
    let status: string;
    let error = failure;
    if (failure !== null) status = 'error';
    else if (processed.length === 0) status = 'skipped';
    else if (errored.length === processed.length) {
      status = 'error';
      error = JSON.parse(errored[0]!.error ?? 'null') as TExecutionError | null;
    } else if (errored.length > 0) status = 'partial';
    else status = all.length > 0 ? 'failed' : 'passed';
    summary.summary = describe(summary, status);
    await end(row, status, error, summary, usage, model);
  }

  const def: JobDef<RunPayload> = deps.jobs.define<RunPayload>({
    kind: 'agent-run',
    idPrefix: 'job',
    payload: ZRunPayload,
    concurrency: deps.options.workers,
    // A run that keeps taking its worker down ends `error` rather than running for ever.
    maxAttempts: 3,
    leaseMs: 60_000,
    run: async (job) => {
      await run(job.payload, job.signal);
      return null;
    },
    failed: async (payload, reason) => {
      const row = await repo.find(payload.apiKeyId, payload.executionId);
      if (row === null || row.status !== 'running') return;
      deps.log.error({ executionId: row.id, reason }, 'agent run given up');
      await end(row, 'error', { code: 'INTERNAL', message: 'the run stopped before it finished, on every attempt', retryable: true }, emptySummary('The run could not finish.'), { inputTokens: 0, outputTokens: 0 }, row.llmModel);
    },
  });

  return {
    job: def,
    /** Aborts a run this process is working on (Cancel Agent Execution has already ended its row). */
    abort(executionId: string): void {
      local.get(executionId)?.abort(new Error('cancelled'));
    },
  };
}

export type Runner = ReturnType<typeof createRunner>;

/** A service's output as the model reads it: an image's base64 (the screenshot service) is no text a model can use. */
function serviceOutputText(output: unknown): string {
  return JSON.stringify(output, (key, value: unknown) => (key === 'base64' && typeof value === 'string' ? `(${value.length} characters of base64, left out)` : value)).slice(0, 200_000);
}

/**
 * The mcp-tools execution and the MCP SDK under it, imported on the first
 * such run rather than at start, as the provider SDKs are (loadSdks): a
 * process may never run one.
 */
let mcpExecution: Promise<typeof import('./mcp-execution.js')> | undefined;
function loadMcpExecution(): Promise<typeof import('./mcp-execution.js')> {
  mcpExecution ??= import('./mcp-execution.js');
  return mcpExecution;
}

function add(total: Usage, more: Usage): void {
  total.inputTokens += more.inputTokens;
  total.outputTokens += more.outputTokens;
}

function describe(summary: Summary, status: string): string {
  const pages = `${summary.urlsProcessed} page${summary.urlsProcessed === 1 ? '' : 's'} processed`;
  const findings = summary.totalFindings === 0 ? 'no findings' : `${summary.totalFindings} finding${summary.totalFindings === 1 ? '' : 's'} on ${summary.urlsWithFindings} page${summary.urlsWithFindings === 1 ? '' : 's'}`;
  const errors = summary.urlsErrored === 0 ? '' : `, ${summary.urlsErrored} with errors`;
  return status === 'skipped' ? 'No page was in the agent\'s scope.' : `${pages}, ${findings}${errors}.`;
}
