import { z } from 'zod';
import { operation, pagedResultOf, resultOf } from '../common/envelope.js';
import { ZPageToken } from '../common/paging.js';
import { ZId } from '../access/schemas.js';
import { EXECUTION_STATUSES, MAX_JSON_BYTES, ZDefinitionId, ZExecutionId, ZWorkflowEvent, ZWorkflowExecution, type TWorkflowExecution } from './schemas.js';

export const MAX_EXECUTIONS_PAGE = 500;
export const DEFAULT_EXECUTIONS_PAGE = 50;
export const MAX_EVENTS_PAGE = 500;
export const DEFAULT_EVENTS_PAGE = 100;

const ZKey = z
  .string()
  .regex(/^[A-Za-z0-9:_\-.]{1,200}$/, { message: 'must be 1–200 characters of letters, digits and : _ - .' });

const EXAMPLE_EXECUTION_ID = 'wfx_01JDQ3M8X9T2V5B8A7C4E6G0RN';

export const EXAMPLE_EXECUTION: TWorkflowExecution = {
  executionId: EXAMPLE_EXECUTION_ID,
  definitionId: 'q3-plan-signoff',
  definitionVersion: 1,
  status: 'running',
  correlationId: 'q3-plan-review',
  idempotencyKey: 'q3-plan-review-1',
  organizationId: 'org-acme',
  documentId: 'doc-q3-plan',
  triggerContext: { pageUrl: 'https://www.example.com/q3-plan' },
  startedAt: 1764316800000,
  completedAt: null,
  cancelledAt: null,
  failureReason: null,
  steps: [
    {
      stepId: 'step_brand-check_1',
      nodeId: 'brand-check',
      nodeType: 'agent',
      status: 'completed',
      groupId: null,
      iteration: 1,
      attempts: 1,
      input: {},
      output: { agentId: 'broken-links', agentExecutionId: 'aex_01JDQ3M8X9T2V5B8A7C4E6G0RN', agentExecutionStatus: 'passed', resolvedUrl: 'https://www.example.com/q3-plan', proposedDecision: 'approve', decision: 'approve', resolvedBy: 'user-ada', resolution: 'accept' },
      decision: 'approve',
      error: null,
      createdAt: 1764316800000,
      startedAt: 1764316800010,
      completedAt: 1764316802400,
    },
    {
      stepId: 'step_lead-review_2',
      nodeId: 'lead-review',
      nodeType: 'human',
      status: 'waiting',
      groupId: null,
      iteration: 1,
      attempts: 1,
      input: { agentId: 'broken-links', agentExecutionId: 'aex_01JDQ3M8X9T2V5B8A7C4E6G0RN', agentExecutionStatus: 'passed', resolvedUrl: 'https://www.example.com/q3-plan', decision: 'approve' },
      output: { reviewers: [{ userId: 'user-ada', mandatory: true }], reviewerIds: ['user-ada'], reviewerEmails: [], commentBody: null },
      decision: null,
      error: null,
      createdAt: 1764316802400,
      startedAt: 1764316802410,
      completedAt: null,
    },
  ],
};

export const dispatchWorkflowExecution = operation({
  path: '/v2/workflow/executions/dispatch',
  summary: 'Dispatch Workflow Execution',
  description: `Starts an execution of the definition's current version and answers at once; the steps run in the background (durable jobs: a restart resumes them). The same \`idempotencyKey\` gives the first execution again with \`deduplicated: true\`. \`organizationId\` and \`documentId\` (default: the definition's scope) are what agent nodes run on and what notifications reach; a document-scoped definition runs on its document only (FAILED_PRECONDITION for another), an organization-scoped one in its organization. \`triggerContext\` (at most ${MAX_JSON_BYTES} bytes as JSON) is what \`urlPath\`, conditions (\`execution.input.*\`) and templates read. NOT_FOUND for an unknown definition, organization or document; FAILED_PRECONDITION for a tombstoned definition.`,
  data: z
    .object({
      definitionId: ZDefinitionId,
      idempotencyKey: ZKey.optional(),
      correlationId: ZKey.optional().describe('Yours to follow the run through events and webhooks; default the execution ID.'),
      triggerContext: z.record(z.unknown()).optional(),
      organizationId: ZId.optional(),
      documentId: ZId.optional().describe('Needs `organizationId` (or an organization-scoped definition).'),
    })
    .strict(),
  result: resultOf(z.object({ executionId: z.string(), correlationId: z.string(), deduplicated: z.boolean() })),
  example: {
    data: { definitionId: 'q3-plan-signoff', idempotencyKey: 'q3-plan-review-1', correlationId: 'q3-plan-review', triggerContext: { pageUrl: 'https://www.example.com/q3-plan' } },
    result: { status: 'success', message: 'Workflow execution dispatched.', data: { executionId: EXAMPLE_EXECUTION_ID, correlationId: 'q3-plan-review', deduplicated: false } },
  },
});

export const getWorkflowExecution = operation({
  path: '/v2/workflow/executions/get',
  summary: 'Get Workflow Execution',
  description: 'The execution with every step (oldest first): its node, status, attempts, input, output, decision, error and timestamps. NOT_FOUND for an unknown execution (another application\'s included).',
  data: z.object({ executionId: ZExecutionId }).strict(),
  result: resultOf(ZWorkflowExecution),
  example: {
    data: { executionId: EXAMPLE_EXECUTION_ID },
    result: { status: 'success', message: 'Workflow execution retrieved successfully.', data: EXAMPLE_EXECUTION },
  },
});

export const listWorkflowExecutions = operation({
  path: '/v2/workflow/executions/list',
  summary: 'List Workflow Executions',
  description: `Executions newest first, each with \`steps: []\` (Get Workflow Execution has them), filtered by \`definitionId\`, \`status\` and \`documentId\` (with \`organizationId\`). \`pageSize\` 1–${MAX_EXECUTIONS_PAGE} (default ${DEFAULT_EXECUTIONS_PAGE}).`,
  data: z
    .object({
      definitionId: ZDefinitionId.optional(),
      status: z.enum(EXECUTION_STATUSES).optional(),
      organizationId: ZId.optional(),
      documentId: ZId.optional().describe('Needs `organizationId`.'),
      pageSize: z.number().int().min(1).max(MAX_EXECUTIONS_PAGE).optional(),
      pageToken: ZPageToken,
    })
    .strict(),
  result: pagedResultOf(ZWorkflowExecution),
  example: {
    data: { definitionId: 'q3-plan-signoff', status: 'running' },
    result: { status: 'success', message: 'Workflow executions retrieved successfully.', data: [{ ...EXAMPLE_EXECUTION, steps: [] }], pageToken: null },
  },
});

export const cancelWorkflowExecution = operation({
  path: '/v2/workflow/executions/cancel',
  summary: 'Cancel Workflow Execution',
  description: 'Cancels the execution and every step not yet ended (a running agent run is cancelled too); `execution.cancelled` carries `reason`. An execution already ended is left as it is: `cancelled: false`. NOT_FOUND for an unknown execution.',
  data: z.object({ executionId: ZExecutionId, reason: z.string().max(500).optional() }).strict(),
  result: resultOf(z.object({ executionId: z.string(), cancelled: z.boolean(), status: z.enum(EXECUTION_STATUSES) })),
  example: {
    data: { executionId: EXAMPLE_EXECUTION_ID, reason: 'Plan withdrawn' },
    result: { status: 'success', message: 'Workflow execution cancelled.', data: { executionId: EXAMPLE_EXECUTION_ID, cancelled: true, status: 'cancelled' } },
  },
});

export const getWorkflowExecutionEvents = operation({
  path: '/v2/workflow/executions/getEvents',
  summary: 'Get Workflow Execution Events',
  description: `The execution's events with \`seq\` above \`sinceSeq\` (default 0), oldest first, at most \`pageSize\` (1–${MAX_EVENTS_PAGE}, default ${DEFAULT_EVENTS_PAGE}); \`nextCursor\` is the last \`seq\` returned (pass it as \`sinceSeq\`), \`hasMore\` whether more follow. The same events as the webhooks, with the same \`eventId\`. NOT_FOUND for an unknown execution.`,
  data: z
    .object({
      executionId: ZExecutionId,
      sinceSeq: z.number().int().min(0).max(2_147_483_647).optional(),
      pageSize: z.number().int().min(1).max(MAX_EVENTS_PAGE).optional(),
    })
    .strict(),
  result: resultOf(z.object({ executionId: z.string(), events: z.array(ZWorkflowEvent), nextCursor: z.number().int(), hasMore: z.boolean() })),
  example: {
    data: { executionId: EXAMPLE_EXECUTION_ID, sinceSeq: 0 },
    result: {
      status: 'success',
      message: 'Workflow execution events retrieved successfully.',
      data: {
        executionId: EXAMPLE_EXECUTION_ID,
        events: [
          {
            eventId: `${EXAMPLE_EXECUTION_ID}.1`,
            seq: 1,
            type: 'execution.dispatched',
            executionId: EXAMPLE_EXECUTION_ID,
            definitionId: 'q3-plan-signoff',
            correlationId: 'q3-plan-review',
            stepId: null,
            timestamp: 1764316800000,
            data: { definitionId: 'q3-plan-signoff', definitionVersion: 1, rootStepIds: ['step_brand-check_1'] },
          },
        ],
        nextCursor: 1,
        hasMore: false,
      },
    },
  },
});
