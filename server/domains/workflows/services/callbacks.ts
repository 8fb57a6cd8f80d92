import type { DataOf } from '../../../../contract/common/envelope.js';
import type { recordWorkflowStepCallback } from '../../../../contract/workflows/steps.js';
import { MAX_JSON_BYTES, type TWorkflowStep } from '../../../../contract/workflows/schemas.js';
import { failedPrecondition, invalidArgument, notFound, permissionDenied } from '../../../lib/app-error.js';
import type { CallbackTokens } from '../engine/callback-tokens.js';
import type { Transitions } from '../engine/engine.js';
import { ENDED_STEP, overJsonLimit } from '../engine/state.js';

/**
 * The callback of an async webhook step: called by a third party with no
 * API credentials, so the token in the body names (and proves) the
 * application, execution and step. One transition: the step completes or
 * fails, and its routes are taken.
 */
export function createCallbacksService(deps: { transitions: Transitions; tokens: CallbackTokens }) {
  return {
    async recordWorkflowStepCallback(input: DataOf<typeof recordWorkflowStepCallback>) {
      const target = deps.tokens.read(input.token);
      // One message for every token we did not issue: nothing tells a prober what was wrong.
      if (target === null) throw permissionDenied('callback token does not match');
      if (input.output !== undefined && overJsonLimit(input.output)) throw invalidArgument(`data.output is over ${MAX_JSON_BYTES} bytes as JSON`);
      const done = await deps.transitions.transact(target.apiKeyId, target.executionId, (t) => {
        const step = t.step(target.stepId);
        if (step === undefined) throw notFound(`no step ${target.stepId} in workflow execution ${target.executionId}`);
        if (ENDED_STEP.has(step.status)) throw failedPrecondition(`step ${step.stepId} already ended (${step.status}): it takes no callback`);
        if (t.ended) throw failedPrecondition(`workflow execution ${t.execution.id} already ended (${t.execution.status})`);
        // `running`: the receiver called back before answering the request itself; the answer then finds the step ended.
        if (step.status !== 'waiting' && step.status !== 'running') throw failedPrecondition(`step ${step.stepId} is ${step.status}: its request was not sent yet`);
        const eventData = { source: 'callback' };
        if (input.status === 'completed') {
          const decision = input.decision ?? null;
          t.end(step, { status: 'completed', output: { ...input.output, callback: true, ...(decision === null ? {} : { decision }) }, decision, eventData: { ...eventData, decision } });
        } else {
          t.end(step, {
            status: 'failed',
            output: { ...input.output, callback: true },
            error: { code: input.error?.code ?? 'callback-failed', message: input.error?.message ?? 'the webhook\'s receiver reported a failure' },
            eventData,
          });
        }
        return { recorded: true as const, executionId: t.execution.id, stepId: step.stepId, stepStatus: step.status as TWorkflowStep['status'] };
      });
      if (done === undefined) throw notFound(`no workflow execution ${target.executionId}`);
      return done.result;
    },
  };
}

export type CallbacksService = ReturnType<typeof createCallbacksService>;
