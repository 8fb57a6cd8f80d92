import type { DataOf } from '../../../../contract/common/envelope.js';
import type { cancelWorkflowStep, recordWorkflowAgentResolution, recordWorkflowReviewerDecision, resolveWorkflowStep } from '../../../../contract/workflows/steps.js';
import { MAX_JSON_BYTES, type TWorkflowNode, type TWorkflowStep } from '../../../../contract/workflows/schemas.js';
import { isUniqueViolation } from '../../../db/errors.js';
import { alreadyExists, failedPrecondition, invalidArgument, notFound, permissionDenied } from '../../../lib/app-error.js';
import type { Caller } from '../../../platform/caller.js';
import type { Transitions } from '../engine/engine.js';
import { reviewersOf } from '../engine/runner.js';
import { ENDED_STEP, overJsonLimit, parseJson, type Decision } from '../engine/state.js';
import type { Transition } from '../engine/transition.js';
import type { ExecutionsRepo, StepRow } from '../repos/executions.js';

export interface StepsDeps {
  repo: ExecutionsRepo;
  transitions: Transitions;
  /** Starts a pending human step in the caller's transition (runner.ts startHuman). */
  startHuman(app: Caller, t: Transition, step: StepRow): Promise<void>;
}

type StepStatus = TWorkflowStep['status'];

/** The step of the execution, or NOT_FOUND naming what is missing. */
function stepIn(t: Transition, stepId: string): StepRow {
  const step = t.step(stepId);
  if (step === undefined) throw notFound(`no step ${stepId} in workflow execution ${t.execution.id}`);
  return step;
}

/** Reviewers' decisions, operators' overrides and cancels, and blocking agent steps' resolutions: each one transition. */
export function createStepsService(deps: StepsDeps) {
  const { repo, transitions } = deps;

  async function transact<T>(app: Caller, executionId: string, change: (t: Transition) => Promise<T> | T): Promise<T> {
    const done = await transitions.transact(app.apiKeyId, executionId, change);
    if (done === undefined) throw notFound(`no workflow execution ${executionId}`);
    return done.result;
  }

  return {
    async recordWorkflowReviewerDecision(app: Caller, input: DataOf<typeof recordWorkflowReviewerDecision>) {
      return transact(app, input.executionId, async (t) => {
        const step = stepIn(t, input.stepId);
        const node = t.graph.nodes.get(step.nodeId);
        if (node?.type !== 'human') throw failedPrecondition(`step ${step.stepId} is a ${step.nodeType} step, not a human step`);
        const reviewers = reviewersOf(node);
        const reviewer = reviewers.find((r) => r.userId === input.reviewerId);
        if (reviewer === undefined) throw permissionDenied(`${input.reviewerId} is not a reviewer of step ${step.stepId}`);
        // A reviewer may decide before the step's job ran: the step starts now, as the job would start it.
        if (step.status === 'pending' && !t.ended) await deps.startHuman(app, t, step);
        if (step.status !== 'waiting') throw failedPrecondition(`step ${step.stepId} is ${step.status}: it takes no decision`);
        const decisions = await repo.decisions(app.apiKeyId, t.execution.id, step.stepId);
        if (decisions.some((d) => d.reviewerId === input.reviewerId)) throw alreadyExists(`${input.reviewerId} already decided on step ${step.stepId}`);
        try {
          await repo.insertDecision({ apiKeyId: app.apiKeyId, executionId: t.execution.id, stepId: step.stepId, reviewerId: input.reviewerId, decision: input.decision, reason: input.reason ?? null, decidedAt: BigInt(t.now) });
        } catch (error) {
          if (isUniqueViolation(error)) throw alreadyExists(`${input.reviewerId} already decided on step ${step.stepId}`);
          throw error;
        }
        const all = [...decisions.map((d) => ({ reviewerId: d.reviewerId, decision: d.decision as Decision, reason: d.reason })), { reviewerId: input.reviewerId, decision: input.decision, reason: input.reason ?? null }];
        const mandatory = reviewers.filter((r) => r.mandatory);
        const approvedBy = new Set(all.filter((d) => d.decision === 'approve').map((d) => d.reviewerId));
        const rejection = all.find((d) => d.decision === 'reject');
        let outcome: Decision | null = null;
        if (rejection !== undefined) outcome = 'reject';
        else if (mandatory.length > 0 ? mandatory.every((r) => approvedBy.has(r.userId)) : approvedBy.size > 0) outcome = 'approve';
        const counts = {
          approveCount: approvedBy.size,
          rejectCount: all.length - approvedBy.size,
          totalResponses: all.length,
          mandatoryCount: mandatory.length,
          mandatoryApproveCount: mandatory.filter((r) => approvedBy.has(r.userId)).length,
          decisions: all,
        };
        if (outcome === null) {
          t.change(step, { output: JSON.stringify({ ...parseJson(step.output), ...counts }) });
          return { recorded: true as const, aggregatorStatus: 'pending' as const, stepStatus: step.status as StepStatus };
        }
        const rejector = rejection === undefined ? undefined : reviewers.find((r) => r.userId === rejection.reviewerId);
        const output = {
          ...parseJson(step.output),
          ...counts,
          aggregatorStatus: outcome === 'approve' ? 'resolved' : 'rejected',
          decision: outcome,
          approved: outcome === 'approve',
          resumedAt: t.now,
          ...(rejection === undefined ? {} : { rejectedBy: rejection.reviewerId, rejectorMandatory: rejector?.mandatory ?? false, rejectionReason: rejection.reason }),
        };
        t.end(step, { status: 'completed', output, decision: outcome, eventData: { aggregatorStatus: output.aggregatorStatus } });
        return { recorded: true as const, aggregatorStatus: output.aggregatorStatus as 'resolved' | 'rejected', stepStatus: 'completed' as StepStatus };
      });
    },

    async resolveWorkflowStep(app: Caller, input: DataOf<typeof resolveWorkflowStep>) {
      if (input.output !== undefined && overJsonLimit(input.output)) throw invalidArgument(`data.output is over ${MAX_JSON_BYTES} bytes as JSON`);
      return transact(app, input.executionId, (t) => {
        const step = stepIn(t, input.stepId);
        const { action } = input;
        if (action === 'reviewer-approve' || action === 'reviewer-reject') {
          const node = t.graph.nodes.get(step.nodeId);
          if (node?.type !== 'human') throw failedPrecondition(`${action} takes a human step; step ${step.stepId} is a ${step.nodeType} step`);
          if (!reviewersOf(node as Extract<TWorkflowNode, { type: 'human' }>).some((r) => r.userId === input.actorId)) throw permissionDenied(`${input.actorId} is not a reviewer of step ${step.stepId}`);
        }
        const takesRunning = action === 'force-complete' || action === 'force-fail';
        if (!(step.status === 'waiting' || (takesRunning && (step.status === 'running' || step.status === 'pending')))) {
          throw failedPrecondition(`step ${step.stepId} is ${step.status}: ${action} takes a ${takesRunning ? 'pending, running or waiting' : 'waiting'} step`);
        }
        const given = input.output ?? {};
        const override = { overriddenBy: input.actorId, overrideAction: action, overriddenAt: t.now, overrideReason: input.reason ?? null };
        const eventData = { actorId: input.actorId, action, reason: input.reason ?? null, overridden: true };
        if (step.status === 'pending') t.begin(step);
        if (action === 'force-fail') {
          t.end(step, { status: 'failed', output: { ...parseJson(step.output), ...given, ...override }, error: { code: 'force-failed', message: input.reason ?? `failed by ${input.actorId}` }, eventData });
        } else {
          const given_decision = given.decision === 'approve' || given.decision === 'reject' ? (given.decision as Decision) : null;
          const decision: Decision | null = action.endsWith('approve') ? 'approve' : action.endsWith('reject') ? 'reject' : given_decision;
          const output = { ...parseJson(step.output), ...given, ...override, decision, approved: decision === 'approve' };
          t.end(step, { status: 'completed', output, decision, eventData: { ...eventData, decision } });
        }
        return { resolved: true as const, executionId: t.execution.id, stepId: step.stepId, action, stepStatus: step.status as StepStatus };
      });
    },

    async cancelWorkflowStep(app: Caller, input: DataOf<typeof cancelWorkflowStep>) {
      return transact(app, input.executionId, (t) => {
        const step = stepIn(t, input.stepId);
        if (ENDED_STEP.has(step.status)) throw failedPrecondition(`step ${step.stepId} already ended (${step.status})`);
        t.cancel(step, input.actorId, input.reason ?? null);
        return { cancelled: true as const, executionId: t.execution.id, stepId: step.stepId };
      });
    },

    async recordWorkflowAgentResolution(app: Caller, input: DataOf<typeof recordWorkflowAgentResolution>) {
      return transact(app, input.executionId, (t) => {
        const step = stepIn(t, input.stepId);
        const node = t.graph.nodes.get(step.nodeId);
        if (node?.type !== 'agent' || node.config.blocking !== true) throw failedPrecondition(`step ${step.stepId} is not a blocking agent step (config.blocking)`);
        if (ENDED_STEP.has(step.status) || t.ended) throw failedPrecondition(`step ${step.stepId} is ${step.status}: it takes no resolution`);
        const output = parseJson(step.output);
        const proposed = output.proposedDecision === 'approve' || output.proposedDecision === 'reject' ? (output.proposedDecision as Decision) : null;
        // Accepting needs the run's outcome; overriding does not (the run, if still going, is cancelled with the step's end).
        if (input.resolution === 'accept' && proposed === null) throw failedPrecondition(`step ${step.stepId} has no outcome to accept yet: its agent run has not ended (override it, or wait)`);
        const decision: Decision = input.resolution === 'accept' ? proposed! : input.decision!;
        if (step.status === 'pending') t.begin(step);
        if (proposed === null && step.agentExecutionId !== null) t.runsToCancel.push(step.agentExecutionId);
        t.end(step, {
          status: 'completed',
          output: { ...output, decision, resolvedBy: input.actorId, resolution: input.resolution, resolutionReason: input.reason ?? null },
          decision,
          eventData: { decision, resolvedBy: input.actorId, resolution: input.resolution },
        });
        return { recorded: true as const, decision, stepStatus: 'completed' as StepStatus };
      });
    },
  };
}

export type StepsService = ReturnType<typeof createStepsService>;
