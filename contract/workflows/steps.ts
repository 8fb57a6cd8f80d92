import { z } from 'zod';
import { operation, resultOf } from '../common/envelope.js';
import { ZId } from '../access/schemas.js';
import { ZDecision } from '../memory/schemas.js';
import { STEP_STATUSES, ZActorId, ZExecutionId, ZStepId } from './schemas.js';

export const RESOLVE_ACTIONS = ['force-approve', 'force-reject', 'force-complete', 'force-fail', 'reviewer-approve', 'reviewer-reject'] as const;

const EXECUTION = 'wfx_01JDQ3M8X9T2V5B8A7C4E6G0RN';
const STEP = 'step_lead-review_2';

export const recordWorkflowReviewerDecision = operation({
  path: '/v2/workflow/steps/recordReviewerDecision',
  summary: 'Record Workflow Reviewer Decision',
  description:
    'One reviewer\'s decision on a human step that has not ended (one whose job has not run yet starts at once). The step approves once every mandatory reviewer approved (with none mandatory, on the first approval) and rejects on any reject; then its edges are taken. `aggregatorStatus`: `pending` (more decisions needed), `resolved` (approved) or `rejected`. PERMISSION_DENIED for a user who is not one of the step\'s reviewers; ALREADY_EXISTS for a reviewer\'s second decision; FAILED_PRECONDITION for a step that is not a human step or not waiting (already decided, breached, cancelled); NOT_FOUND for an unknown execution or step.',
  data: z
    .object({
      executionId: ZExecutionId,
      stepId: ZStepId,
      reviewerId: ZId,
      decision: ZDecision,
      reason: z.string().max(2000).optional(),
    })
    .strict(),
  result: resultOf(z.object({ recorded: z.literal(true), aggregatorStatus: z.enum(['pending', 'resolved', 'rejected']), stepStatus: z.enum(STEP_STATUSES) })),
  example: {
    data: { executionId: EXECUTION, stepId: STEP, reviewerId: 'user-ada', decision: 'approve', reason: 'Numbers check out.' },
    result: { status: 'success', message: 'Reviewer decision recorded.', data: { recorded: true, aggregatorStatus: 'resolved', stepStatus: 'completed' } },
  },
});

export const resolveWorkflowStep = operation({
  path: '/v2/workflow/steps/resolve',
  summary: 'Resolve Workflow Step',
  description:
    'An override of a step that has not ended, recorded as such (`output.overriddenBy`, `output.overrideAction`, and the step\'s event carries them). `force-approve` / `force-reject`: a waiting step of any type completes with that decision; `force-complete`: a running or waiting step completes with `output` (its `decision` key, approve or reject, routes it); `force-fail`: it fails (its `always` and failure routes are taken); `reviewer-approve` / `reviewer-reject`: as the first two, for a human step, by one of its reviewers (PERMISSION_DENIED otherwise). `decision`, `approved`, `overriddenBy`, `overrideAction` and `overriddenAt` in `output` are the server\'s. FAILED_PRECONDITION for a step in a state the action does not take; NOT_FOUND for an unknown execution or step.',
  data: z
    .object({
      executionId: ZExecutionId,
      stepId: ZStepId,
      action: z.enum(RESOLVE_ACTIONS),
      actorId: ZActorId,
      output: z.record(z.unknown()).optional(),
      reason: z.string().max(2000).optional(),
    })
    .strict(),
  result: resultOf(z.object({ resolved: z.literal(true), executionId: z.string(), stepId: z.string(), action: z.enum(RESOLVE_ACTIONS), stepStatus: z.enum(STEP_STATUSES) })),
  example: {
    data: { executionId: EXECUTION, stepId: 'step_tell-team_3', action: 'force-complete', actorId: 'ops-jane', output: { sentBy: 'hand' }, reason: 'Told the team in the weekly meeting.' },
    result: { status: 'success', message: 'Workflow step resolved.', data: { resolved: true, executionId: EXECUTION, stepId: 'step_tell-team_3', action: 'force-complete', stepStatus: 'completed' } },
  },
});

export const cancelWorkflowStep = operation({
  path: '/v2/workflow/steps/cancel',
  summary: 'Cancel Workflow Step',
  description: 'Cancels one step that has not ended (a running agent run with it): no edge is taken from it, its siblings go on; `step.cancelled` carries `actorId` and `reason`. FAILED_PRECONDITION for a step that already ended; NOT_FOUND for an unknown execution or step.',
  data: z.object({ executionId: ZExecutionId, stepId: ZStepId, actorId: ZActorId, reason: z.string().max(500).optional() }).strict(),
  result: resultOf(z.object({ cancelled: z.literal(true), executionId: z.string(), stepId: z.string() })),
  example: {
    data: { executionId: EXECUTION, stepId: 'step_archive_4', actorId: 'ops-jane', reason: 'Kept in the drafts instead' },
    result: { status: 'success', message: 'Workflow step cancelled.', data: { cancelled: true, executionId: EXECUTION, stepId: 'step_archive_4' } },
  },
});

export const recordWorkflowAgentResolution = operation({
  path: '/v2/workflow/steps/recordAgentResolution',
  summary: 'Record Workflow Agent Resolution',
  description:
    'A reviewer\'s word on a blocking agent step (`config.blocking: true`): `accept` takes the run\'s outcome (`output.proposedDecision`, once the run ended), `override` takes `decision` instead (required then), also before the run ended (the run is cancelled). The step completes with that decision and `output.resolvedBy`. FAILED_PRECONDITION for a step that is not a blocking agent step, one that already ended, or `accept` before the run ended; NOT_FOUND for an unknown execution or step.',
  data: z
    .object({
      executionId: ZExecutionId,
      stepId: ZStepId,
      actorId: ZActorId,
      resolution: z.enum(['accept', 'override']),
      decision: ZDecision.optional(),
      reason: z.string().max(2000).optional(),
    })
    .strict()
    .superRefine((data, ctx) => {
      if (data.resolution === 'override' && data.decision === undefined) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['decision'], message: 'is required with resolution "override"' });
    }),
  result: resultOf(z.object({ recorded: z.literal(true), decision: ZDecision, stepStatus: z.enum(STEP_STATUSES) })),
  example: {
    data: { executionId: EXECUTION, stepId: 'step_brand-check_1', actorId: 'user-ada', resolution: 'override', decision: 'approve', reason: 'The flagged link is intentional.' },
    result: { status: 'success', message: 'Agent resolution recorded.', data: { recorded: true, decision: 'approve', stepStatus: 'completed' } },
  },
});

export const CALLBACK_STATUSES = ['completed', 'failed'] as const;

export const recordWorkflowStepCallback = operation({
  path: '/v2/workflow/steps/callback',
  summary: 'Record Workflow Step Callback',
  description:
    'The answer of an `async` webhook step, posted by the receiver of its request (no API credentials: the `callback.token` of that request is the credential, bound to the application, the execution and the step). `completed` completes the step (`decision` routes it, `output` becomes its output with `callback: true`); `failed` fails it (`error.code` default `callback-failed`). One callback per step, in one transition: FAILED_PRECONDITION when the step already ended (a second callback, its callback timeout passed, it was cancelled); PERMISSION_DENIED for a token that is not one of ours (`callback token does not match`); NOT_FOUND when the execution is gone. The token stays valid until the step ends; a master-key rotation invalidates tokens handed out before it (docs/workflows.md).',
  auth: 'public',
  data: z
    .object({
      token: z.string().min(1).max(1000).describe('`callback.token` of the step\'s request.'),
      status: z.enum(CALLBACK_STATUSES),
      decision: ZDecision.optional().describe('`completed` only: approve or reject (the step\'s `approve` / `reject` edges).'),
      output: z.record(z.unknown()).optional().describe('The step\'s output (at most 64 KB as JSON).'),
      error: z
        .object({ code: z.string().min(1).max(128).optional(), message: z.string().max(2000).optional() })
        .strict()
        .optional()
        .describe('`failed` only: why.'),
    })
    .strict()
    .superRefine((data, ctx) => {
      if (data.status === 'failed' && data.decision !== undefined) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['decision'], message: 'is for status "completed" only' });
      if (data.status === 'completed' && data.error !== undefined) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['error'], message: 'is for status "failed" only' });
    }),
  result: resultOf(z.object({ recorded: z.literal(true), executionId: z.string(), stepId: z.string(), stepStatus: z.enum(STEP_STATUSES) })),
  example: {
    data: { token: 'd2Z4XzAxSkRRM004WDlUMlY1QjhBN0M0RTZHMFJO.c3RlcF9sZWdhbC1ob29rXzI.Qk5mS2h3dGV4YW1wbGVtYWNleGFtcGxlbWFjMDAw', status: 'completed', decision: 'approve', output: { ticket: 'LEGAL-42' } },
    result: { status: 'success', message: 'Workflow step callback recorded.', data: { recorded: true, executionId: EXECUTION, stepId: 'step_legal-hook_2', stepStatus: 'completed' } },
  },
});
