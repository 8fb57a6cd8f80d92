import type { DataOf } from '../../../../contract/common/envelope.js';
import type { cancelWorkflowExecution, dispatchWorkflowExecution, getWorkflowExecution, getWorkflowExecutionEvents, listWorkflowExecutions } from '../../../../contract/workflows/executions.js';
import { DEFAULT_EVENTS_PAGE, DEFAULT_EXECUTIONS_PAGE } from '../../../../contract/workflows/executions.js';
import { MAX_JSON_BYTES, type TWorkflowEvent, type TWorkflowExecution, type TWorkflowStep, type WorkflowEventType } from '../../../../contract/workflows/schemas.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import { failedPrecondition, invalidArgument, notFound } from '../../../lib/app-error.js';
import type { Clock } from '../../../lib/clock.js';
import type { Ids } from '../../../lib/ids.js';
import { pageScope } from '../../../lib/page-scope.js';
import type { PageTokens } from '../../../lib/page-token.js';
import type { Caller } from '../../../platform/caller.js';
import type { Transitions } from '../engine/engine.js';
import type { Runtimes } from '../engine/runtimes.js';
import { emptyState, overJsonLimit, parseJson, toWorkflowEvent, type Failure } from '../engine/state.js';
import type { DefinitionsRepo } from '../repos/definitions.js';
import type { ExecutionRow, ExecutionsRepo, StepRow } from '../repos/executions.js';

export interface ExecutionsDeps {
  repo: ExecutionsRepo;
  definitions: DefinitionsRepo;
  runtimes: Runtimes;
  transitions: Transitions;
  uow: UnitOfWork;
  clock: Clock;
  ids: Ids;
  pageTokens: PageTokens;
  /** Whether the organization (and document) exist in the application. */
  placeExists(app: Caller, organizationId: string, documentId: string | null): Promise<boolean>;
}

export function toStep(row: StepRow): TWorkflowStep {
  return {
    stepId: row.stepId,
    nodeId: row.nodeId,
    nodeType: row.nodeType as TWorkflowStep['nodeType'],
    status: row.status as TWorkflowStep['status'],
    groupId: row.groupId,
    iteration: row.iteration,
    attempts: row.attempts,
    input: parseJson(row.input),
    output: parseJson(row.output),
    decision: row.decision as TWorkflowStep['decision'],
    error: row.error === null ? null : (JSON.parse(row.error) as Failure),
    createdAt: Number(row.createdAt),
    startedAt: row.startedAt === null ? null : Number(row.startedAt),
    completedAt: row.completedAt === null ? null : Number(row.completedAt),
  };
}

export function toExecution(row: ExecutionRow, steps: readonly StepRow[]): TWorkflowExecution {
  return {
    executionId: row.id,
    definitionId: row.definitionId,
    definitionVersion: row.definitionVersion,
    status: row.status as TWorkflowExecution['status'],
    correlationId: row.correlationId,
    idempotencyKey: row.idempotencyKey,
    organizationId: row.organizationId,
    documentId: row.documentId,
    triggerContext: parseJson(row.triggerContext),
    startedAt: Number(row.startedAt),
    completedAt: row.completedAt === null ? null : Number(row.completedAt),
    cancelledAt: row.cancelledAt === null ? null : Number(row.cancelledAt),
    failureReason: row.failureReason === null ? null : (JSON.parse(row.failureReason) as Failure),
    steps: steps.map(toStep),
  };
}

/** Dispatch, read, list and cancel executions, and read their event log. */
export function createExecutionsService(deps: ExecutionsDeps) {
  const { repo, uow } = deps;

  async function find(apiKeyId: string, executionId: string): Promise<ExecutionRow> {
    const row = await repo.find(apiKeyId, executionId);
    if (row === null) throw notFound(`no workflow execution ${executionId}`);
    return row;
  }

  return {
    async dispatchWorkflowExecution(app: Caller, input: DataOf<typeof dispatchWorkflowExecution>) {
      const triggerContext = input.triggerContext ?? {};
      if (overJsonLimit(triggerContext)) throw invalidArgument(`data.triggerContext is over ${MAX_JSON_BYTES} bytes as JSON`);
      if (input.idempotencyKey !== undefined) {
        const earlier = await repo.byIdempotencyKey(app.apiKeyId, input.idempotencyKey);
        if (earlier !== null) return { executionId: earlier.id, correlationId: earlier.correlationId, deduplicated: true };
      }
      const head = await deps.definitions.find(app.apiKeyId, input.definitionId);
      if (head === null) throw notFound(`no workflow definition ${input.definitionId}`);
      if (head.status === 'tombstoned') throw failedPrecondition(`workflow definition ${input.definitionId} is deleted: it starts no new execution`);
      const place = placeOf(head, input);
      if (place.organizationId !== null && !(await deps.placeExists(app, place.organizationId, place.documentId))) {
        throw notFound(place.documentId === null ? `no organization ${place.organizationId}` : `no document ${place.documentId} in organization ${place.organizationId}`);
      }
      const runtime = await deps.runtimes.of(app.apiKeyId, head.definitionId, head.version);
      const id = deps.ids.next('wfx');
      const now = deps.clock.nowMs();
      const row: ExecutionRow = {
        apiKeyId: app.apiKeyId,
        id,
        definitionId: head.definitionId,
        definitionVersion: head.version,
        status: 'pending',
        correlationId: input.correlationId ?? id,
        idempotencyKey: input.idempotencyKey ?? null,
        organizationId: place.organizationId,
        documentId: place.documentId,
        triggerContext: JSON.stringify(triggerContext),
        state: JSON.stringify(emptyState()),
        nextSeq: 1,
        stepCount: 0,
        failureReason: null,
        startedAt: BigInt(now),
        completedAt: null,
        cancelledAt: null,
        updatedAt: BigInt(now),
      };
      try {
        await uow.run(() => deps.transitions.start(row, runtime.compiled.roots, {}));
      } catch (error) {
        // Two dispatches with one key at once: the one that lost gets the one that won.
        if (input.idempotencyKey !== undefined) {
          const winner = await repo.byIdempotencyKey(app.apiKeyId, input.idempotencyKey);
          if (winner !== null) return { executionId: winner.id, correlationId: winner.correlationId, deduplicated: true };
        }
        throw error;
      }
      return { executionId: id, correlationId: row.correlationId, deduplicated: false };
    },

    async getWorkflowExecution(app: Caller, input: DataOf<typeof getWorkflowExecution>): Promise<TWorkflowExecution> {
      const row = await find(app.apiKeyId, input.executionId);
      return toExecution(row, await repo.steps(app.apiKeyId, row.id));
    },

    async listWorkflowExecutions(app: Caller, input: DataOf<typeof listWorkflowExecutions>) {
      if (input.documentId !== undefined && input.organizationId === undefined) throw invalidArgument('data.documentId needs data.organizationId');
      const filter = {
        ...(input.definitionId === undefined ? {} : { definitionId: input.definitionId }),
        ...(input.status === undefined ? {} : { status: input.status }),
        ...(input.organizationId === undefined ? {} : { organizationId: input.organizationId }),
        ...(input.documentId === undefined ? {} : { documentId: input.documentId }),
      };
      const page = await deps.pageTokens.page(
        pageScope('workflow-executions', app.apiKeyId, input.definitionId ?? '', input.status ?? '', input.organizationId ?? '', input.documentId ?? ''),
        { pageSize: input.pageSize ?? DEFAULT_EXECUTIONS_PAGE, ...(input.pageToken === undefined ? {} : { pageToken: input.pageToken }) },
        (after, take) => repo.list(app.apiKeyId, filter, after, take),
        (row) => ({ at: Number(row.startedAt), id: row.id }),
      );
      return { items: page.items.map((row) => toExecution(row, [])), pageToken: page.pageToken };
    },

    async cancelWorkflowExecution(app: Caller, input: DataOf<typeof cancelWorkflowExecution>) {
      const done = await deps.transitions.transact(app.apiKeyId, input.executionId, (t) => {
        if (t.ended) return false;
        t.cancelExecution(input.reason ?? null);
        return true;
      });
      if (done === undefined) throw notFound(`no workflow execution ${input.executionId}`);
      return { executionId: input.executionId, cancelled: done.result, status: done.transition.execution.status as TWorkflowExecution['status'] };
    },

    async getWorkflowExecutionEvents(app: Caller, input: DataOf<typeof getWorkflowExecutionEvents>) {
      const row = await find(app.apiKeyId, input.executionId);
      const sinceSeq = input.sinceSeq ?? 0;
      const pageSize = input.pageSize ?? DEFAULT_EVENTS_PAGE;
      const rows = await repo.events(app.apiKeyId, row.id, sinceSeq, pageSize + 1);
      const page = rows.slice(0, pageSize);
      const events: TWorkflowEvent[] = page.map((event) =>
        toWorkflowEvent(row, { eventId: event.eventId, seq: event.seq, type: event.type as WorkflowEventType, stepId: event.stepId, timestamp: Number(event.timestamp), data: parseJson(event.data) }),
      );
      return { executionId: row.id, events, nextCursor: page.at(-1)?.seq ?? sinceSeq, hasMore: rows.length > pageSize };
    },
  };
}

export type ExecutionsService = ReturnType<typeof createExecutionsService>;

/** Where a run happens: the request's organization and document, else the definition's scope; a scoped definition runs inside its scope only. */
function placeOf(head: { definitionId: string; scopeLevel: string; organizationId: string | null; documentId: string | null }, input: { organizationId?: string; documentId?: string }): { organizationId: string | null; documentId: string | null } {
  const organizationId = input.organizationId ?? head.organizationId;
  const documentId = input.documentId ?? head.documentId;
  if (documentId !== null && organizationId === null) throw invalidArgument('data.documentId needs data.organizationId');
  if (head.scopeLevel !== 'apiKey' && organizationId !== head.organizationId) {
    throw failedPrecondition(`workflow definition ${head.definitionId} is scoped to organization ${head.organizationId}: it runs there only`);
  }
  if (head.scopeLevel === 'document' && documentId !== head.documentId) {
    throw failedPrecondition(`workflow definition ${head.definitionId} is scoped to document ${head.documentId}: it runs on it only`);
  }
  return { organizationId, documentId };
}
