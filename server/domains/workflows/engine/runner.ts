import { z } from 'zod';
import { DEFAULT_AGENT_MAX_RUNTIME_MS, type TWorkflowNode, type TWorkflowNotification } from '../../../../contract/workflows/schemas.js';
import { AppError } from '../../../lib/app-error.js';
import type { Caller } from '../../../platform/caller.js';
import type { JobDef, Jobs } from '../../../platform/jobs.js';
import { lookupDotPath } from '../graph/path.js';
import { renderTemplate } from '../graph/template.js';
import type { ExecutionsRepo, StepRow } from '../repos/executions.js';
import { ZStepJob, type StepJob, type TimerJob, type Transitions } from './engine.js';
import type { Runtimes } from './runtimes.js';
import { parseJson, type Decision, type Json } from './state.js';
import type { Transition } from './transition.js';
import type { WebhookNodes } from './webhook-node.js';

/** What the runner needs of the agents domain: Run Agent as the API runs it, and a run's end. */
export interface AgentRuns {
  run(app: Caller, input: { agentId: string; url: string; organizationId: string; documentId: string; crossPageExecute?: boolean; maxUrlsToProcess?: number; deviceType?: 'desktop' | 'mobile'; trigger: 'workflow'; workflowExecutionId: string; userContext?: Record<string, string | number | boolean> }): Promise<{ executionId: string }>;
  outcome(apiKeyId: string, agentExecutionId: string): Promise<{ status: string; summary: Json; durationMs: number | null; error: { code: string; message: string } | null } | null>;
}

/**
 * What the runner needs of the notifications domain: a message to users (inbox, and email by their config) and to
 * email addresses, in the caller's unit of work; `reached`: the users whose inbox got it. Users need an organization.
 */
export interface Notify {
  (app: Caller, input: { organizationId: string | null; documentId: string | null; userIds: string[]; recipients: string[]; headline: string; body: string | null; source: TWorkflowNotification['workflow'] }): Promise<{ reached: string[] }>;
}

export interface RunnerDeps {
  repo: ExecutionsRepo;
  runtimes: Runtimes;
  transitions: Transitions;
  jobs: Jobs;
  agents: AgentRuns;
  notify: Notify;
  apiKeyOf(apiKeyId: string): Promise<string>;
  /** Webhook steps (webhook-node.ts): their request goes out between two transitions. */
  webhooks: Pick<WebhookNodes, 'run'>;
}

const ZTimerJob = ZStepJob.extend({ reason: z.enum(['sla', 'deadline']) });

/**
 * The workflow jobs' lease. Each is one transition (one short unit of work), so the lease only says how long a
 * step waits after its worker died (SIGKILL, a crash) before another worker takes it: with the jobs' default of
 * 60 s an execution stalled that long after a restart. A live worker renews it every third of it.
 */
const WORKFLOW_JOB_LEASE_MS = 15_000;

/** Errors of Run Agent that a later try can get past (the same agent still running on the document, the concurrency cap). */
const TRANSIENT_AGENT_ERRORS = new Set(['ALREADY_EXISTS', 'RESOURCE_EXHAUSTED', 'UNAVAILABLE']);

/**
 * The engine's jobs: `workflow-step` starts a step (a human step parks and
 * notifies its reviewers, a notification step sends and completes, an agent
 * step starts its run and parks), `workflow-timer` ends a step whose SLA or
 * run limit passed, `workflow-agent-done` ends an agent step once its run
 * ended. Each does its whole change in one transition (engine.ts); a job
 * run again after a crash finds the step moved on and does nothing.
 */
export function createRunner(deps: RunnerDeps) {
  const { transitions } = deps;

  async function startAgent(job: StepJob): Promise<void> {
    const app = { apiKeyId: job.apiKeyId, apiKey: await deps.apiKeyOf(job.apiKeyId) };
    try {
      await transitions.transact(job.apiKeyId, job.executionId, async (t) => {
        const step = t.step(job.stepId);
        if (step === undefined || step.status !== 'pending' || t.ended) return;
        const node = nodeOf(t, step) as Extract<TWorkflowNode, { type: 'agent' }>;
        t.begin(step);
        const target = agentTarget(t, node);
        if ('error' in target) {
          t.end(step, { status: 'failed', error: target.error });
          return;
        }
        const { executionId } = await deps.agents.run(app, target.input);
        t.wait(step, { agentExecutionId: executionId, output: JSON.stringify({ agentId: node.config.agentId, agentExecutionId: executionId, resolvedUrl: target.input.url }) }, { nodeId: step.nodeId, nodeType: 'agent', agentId: node.config.agentId, agentExecutionId: executionId });
        t.scheduled.push({ kind: 'timer', stepId: step.stepId, reason: 'deadline', at: t.now + (node.config.agentMaxRuntimeMs ?? DEFAULT_AGENT_MAX_RUNTIME_MS) });
      });
    } catch (error) {
      if (!(error instanceof AppError) || TRANSIENT_AGENT_ERRORS.has(error.status)) throw error;
      // The agent is gone, disabled, or cannot run on this document: no later try can help.
      await transitions.transact(job.apiKeyId, job.executionId, (t) => {
        const step = t.step(job.stepId);
        if (step === undefined || step.status !== 'pending' || t.ended) return;
        t.begin(step);
        t.end(step, { status: 'failed', error: { code: `agent-${error.status.toLowerCase().replaceAll('_', '-')}`, message: error.message } });
      });
    }
  }

  async function runStep(job: StepJob): Promise<void> {
    const execution = await deps.repo.find(job.apiKeyId, job.executionId);
    const step = execution === null ? null : await deps.repo.step(job.apiKeyId, job.executionId, job.stepId);
    if (execution === null || step === null) return;
    // A webhook step's job runs again after a failed try: it takes its step `running` too.
    if (step.nodeType === 'webhook') return deps.webhooks.run(job);
    if (step.status !== 'pending') return;
    if (step.nodeType === 'agent') return startAgent(job);
    const app = { apiKeyId: job.apiKeyId, apiKey: await deps.apiKeyOf(job.apiKeyId) };
    await transitions.transact(job.apiKeyId, job.executionId, async (t) => {
      const current = t.step(job.stepId);
      if (current === undefined || current.status !== 'pending' || t.ended) return;
      const node = nodeOf(t, current);
      t.begin(current);
      if (node.type === 'human') await parkForReviewers(app, t, current, node);
      else if (node.type === 'notification') await sendNotification(app, t, current, node);
      // Agent and webhook steps were handed to their own runs above.
      else throw new Error(`a ${node.type} step is not started here`);
    });
  }

  async function parkForReviewers(app: Caller, t: Transition, step: StepRow, node: Extract<TWorkflowNode, { type: 'human' }>): Promise<void> {
    const reviewers = reviewersOf(node);
    const output = {
      reviewers,
      reviewerIds: reviewers.map((r) => r.userId),
      reviewerEmails: node.config.reviewerEmails ?? [],
      commentBody: node.config.commentBody ?? null,
    };
    const mandatoryCount = reviewers.filter((r) => r.mandatory).length;
    t.wait(step, { output: JSON.stringify(output) }, { nodeId: step.nodeId, nodeType: 'human', waitingForReviewers: reviewers.length, mandatoryCount, resumeKey: `human:${t.execution.id}:${step.stepId}` });
    const { organizationId, documentId } = t.execution;
    if (organizationId === null) return;
    const runtime = await deps.runtimes.of(t.execution.apiKeyId, t.execution.definitionId, t.execution.definitionVersion);
    await deps.notify(app, {
      organizationId,
      documentId,
      userIds: reviewers.map((r) => r.userId),
      recipients: [],
      headline: `Review requested: ${runtime.body.name}`,
      body: node.config.commentBody ?? null,
      source: { executionId: t.execution.id, definitionId: t.execution.definitionId, stepId: step.stepId, nodeId: step.nodeId, kind: 'review-requested' },
    });
  }

  async function sendNotification(app: Caller, t: Transition, step: StepRow, node: Extract<TWorkflowNode, { type: 'notification' }>): Promise<void> {
    const { organizationId, documentId } = t.execution;
    const userIds = node.config.userIds ?? [];
    if (organizationId === null && userIds.length > 0) {
      t.end(step, { status: 'failed', error: { code: 'notification-needs-organization', message: 'a notification step\'s userIds are users of the execution\'s organization, and the execution has none (dispatch it with organizationId, or give the node recipients only)' } });
      return;
    }
    const runtime = await deps.runtimes.of(t.execution.apiKeyId, t.execution.definitionId, t.execution.definitionVersion);
    const roots = {
      input: parseJson(step.input),
      execution: { executionId: t.execution.id, definitionId: t.execution.definitionId, correlationId: t.execution.correlationId, triggerContext: parseJson(t.execution.triggerContext) },
      step: { stepId: step.stepId, nodeId: step.nodeId, iteration: step.iteration },
    };
    const headline = node.config.subjectTemplate === undefined ? runtime.body.name : renderTemplate(node.config.subjectTemplate, roots);
    const body = renderTemplate(node.config.bodyTemplate, roots);
    const { reached } = await deps.notify(app, {
      organizationId,
      documentId,
      userIds,
      recipients: node.config.recipients ?? [],
      headline: headline === '' ? runtime.body.name : headline,
      body,
      source: { executionId: t.execution.id, definitionId: t.execution.definitionId, stepId: step.stepId, nodeId: step.nodeId, kind: 'notification' },
    });
    t.end(step, { status: 'completed', output: { subject: headline, body, reached }, eventData: { reached: reached.length } });
  }

  async function onTimer(job: TimerJob): Promise<void> {
    await transitions.transact(job.apiKeyId, job.executionId, (t) => {
      const step = t.openStep(job.stepId);
      if (step === undefined) return;
      if (job.reason === 'sla') {
        t.end(step, { status: 'breached', error: { code: 'sla-breached', message: `the step did not end within its SLA of ${nodeOf(t, step).slaMs} ms` } });
        return;
      }
      // agentMaxRuntimeMs bounds the run, not the wait that follows it: a blocking step whose run ended waits for its
      // resolution as long as it takes (its SLA, if any, bounds that). Before, the timer failed it agent-timeout.
      if (typeof parseJson(step.output).agentExecutionStatus === 'string') return;
      // The transition cancels the run once it commits (Transition.end: a step that ends while its run goes).
      t.end(step, { status: 'failed', error: { code: 'agent-timeout', message: 'the agent run did not end within the node\'s agentMaxRuntimeMs; it was cancelled' } });
    });
  }

  /** An agent step's run ended: its status decides the step (a blocking step waits for a resolution instead). */
  async function onAgentDone(job: StepJob): Promise<void> {
    const step = await deps.repo.step(job.apiKeyId, job.executionId, job.stepId);
    if (step === null || step.agentExecutionId === null || step.status !== 'waiting') return;
    const run = await deps.agents.outcome(job.apiKeyId, step.agentExecutionId);
    if (run === null || run.status === 'running') return;
    await transitions.transact(job.apiKeyId, job.executionId, (t) => {
      const current = t.step(job.stepId);
      if (current === undefined || current.status !== 'waiting' || current.agentExecutionId !== step.agentExecutionId || t.ended) return;
      const node = nodeOf(t, current) as Extract<TWorkflowNode, { type: 'agent' }>;
      const output = { ...parseJson(current.output), agentExecutionStatus: run.status, agentResultsSummary: run.summary, agentDurationMs: run.durationMs };
      const eventData = { agentExecutionId: current.agentExecutionId, agentExecutionStatus: run.status, source: 'agent' };
      const decision = decisionOfRun(run.status, run.summary);
      if (decision === null) {
        t.end(current, { status: 'failed', output, error: { code: `agent-${run.status}`, message: run.error?.message ?? `the agent run ended ${run.status}` }, eventData });
      } else if (node.config.blocking === true) {
        t.change(current, { output: JSON.stringify({ ...output, proposedDecision: decision }) });
        t.emit('step.awaiting-approval', current.stepId, { ...eventData, nodeId: current.nodeId, nodeType: 'agent', proposedDecision: decision, awaiting: 'agent-resolution' });
      } else {
        t.end(current, { status: 'completed', output: { ...output, decision }, decision, eventData: { ...eventData, decision } });
      }
    });
  }

  let defs: { run: JobDef<StepJob>; timer: JobDef<TimerJob>; agentDone: JobDef<StepJob> } | undefined;
  return {
    /** Defined once the engine is wired (the transitions write these jobs). */
    define(jobs: Jobs) {
      defs = {
        run: jobs.define<StepJob>({ kind: 'workflow-step', payload: ZStepJob, concurrency: 4, leaseMs: WORKFLOW_JOB_LEASE_MS, run: ({ payload }) => runStep(payload), failed: (payload, reason) => failStep(payload, reason) }),
        timer: jobs.define<TimerJob>({ kind: 'workflow-timer', payload: ZTimerJob, leaseMs: WORKFLOW_JOB_LEASE_MS, run: ({ payload }) => onTimer(payload) }),
        agentDone: jobs.define<StepJob>({ kind: 'workflow-agent-done', payload: ZStepJob, leaseMs: WORKFLOW_JOB_LEASE_MS, run: ({ payload }) => onAgentDone(payload) }),
      };
      return defs;
    },
    /**
     * Starts a pending human step inside the caller's transition (a reviewer
     * who decides before the step's job ran): it parks and its reviewers are
     * told, as the job would have done; the job then finds it started.
     */
    async startHuman(app: Caller, t: Transition, step: StepRow): Promise<void> {
      const node = nodeOf(t, step);
      if (node.type !== 'human' || step.status !== 'pending') return;
      t.begin(step);
      await parkForReviewers(app, t, step, node);
    },
    get jobs() {
      if (defs === undefined) throw new Error('the workflow jobs are not defined');
      return defs;
    },
  };

  /** A step whose job failed for good (every try threw): the step fails, and its routes decide what follows. */
  async function failStep(job: StepJob, reason: string): Promise<void> {
    await transitions.transact(job.apiKeyId, job.executionId, (t) => {
      const step = t.openStep(job.stepId);
      if (step === undefined) return;
      t.end(step, { status: 'failed', error: { code: step.nodeType === 'webhook' ? 'webhook-unreachable' : 'step-error', message: `the step could not run: ${reason.slice(0, 300)}` } });
    });
  }
}

export type Runner = ReturnType<typeof createRunner>;

function nodeOf(t: Transition, step: StepRow): TWorkflowNode {
  const node = t.graph.nodes.get(step.nodeId);
  if (node === undefined) throw new Error(`node ${step.nodeId} is not in the definition`);
  return node;
}

export function reviewersOf(node: Extract<TWorkflowNode, { type: 'human' }>): { userId: string; mandatory: boolean }[] {
  if (node.config.reviewers !== undefined) return node.config.reviewers.map((r) => ({ userId: r.userId, mandatory: r.mandatory ?? false }));
  return (node.config.reviewerIds ?? []).map((userId) => ({ userId, mandatory: true }));
}

/** passed and skipped approve, failed rejects; partial rejects only when a page found something; error and cancelled decide nothing. */
export function decisionOfRun(status: string, summary: Json): Decision | null {
  if (status === 'passed' || status === 'skipped') return 'approve';
  if (status === 'failed') return 'reject';
  if (status === 'partial') return Number(summary.totalFindings ?? 0) > 0 ? 'reject' : 'approve';
  return null;
}

type AgentTarget = { input: Parameters<AgentRuns['run']>[1] & { url: string } } | { error: { code: string; message: string } };

function agentTarget(t: Transition, node: Extract<TWorkflowNode, { type: 'agent' }>): AgentTarget {
  const { organizationId, documentId } = t.execution;
  if (organizationId === null || documentId === null) {
    return { error: { code: 'agent-document-required', message: 'an agent step runs on the execution\'s document, and the execution has none (dispatch it with organizationId and documentId)' } };
  }
  const context = parseJson(t.execution.triggerContext);
  let url = node.config.url;
  if (url === undefined && node.config.urlPath !== undefined) {
    const found = lookupDotPath(context, node.config.urlPath);
    if (typeof found === 'string' && found.trim() !== '') url = /^https?:\/\//i.test(found) ? found : `https://${found}`;
  }
  if (url === undefined) return { error: { code: 'agent-url-unresolved', message: `triggerContext.${node.config.urlPath} is not a URL` } };
  try {
    if (!/^https?:$/.test(new URL(url).protocol)) throw new Error('scheme');
  } catch {
    return { error: { code: 'agent-url-unresolved', message: `triggerContext.${node.config.urlPath} is not an http(s) URL` } };
  }
  const userContext: Record<string, string | number | boolean> = {};
  for (const [field, path] of Object.entries(node.config.userContextMapping ?? {})) {
    const value = lookupDotPath(context, path);
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') userContext[field] = value;
  }
  return {
    input: {
      agentId: node.config.agentId,
      url,
      organizationId,
      documentId,
      trigger: 'workflow',
      workflowExecutionId: t.execution.id,
      ...(node.config.crossPageExecute === undefined ? {} : { crossPageExecute: node.config.crossPageExecute }),
      ...(node.config.maxUrlsToProcess === undefined ? {} : { maxUrlsToProcess: node.config.maxUrlsToProcess }),
      ...(node.config.deviceType === undefined ? {} : { deviceType: node.config.deviceType }),
      ...(Object.keys(userContext).length === 0 ? {} : { userContext }),
    },
  };
}
