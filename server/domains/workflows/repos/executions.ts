import { providerOfClient, type Db } from '../../../db/client.js';
import { afterMs, type Cursor } from '../../../db/keyset.js';

/** A WorkflowExecution row (prisma/models.prisma), JSON columns still text. */
export interface ExecutionRow {
  apiKeyId: string;
  id: string;
  definitionId: string;
  definitionVersion: number;
  status: string;
  correlationId: string;
  idempotencyKey: string | null;
  organizationId: string | null;
  documentId: string | null;
  triggerContext: string;
  state: string;
  nextSeq: number;
  stepCount: number;
  failureReason: string | null;
  startedAt: bigint;
  completedAt: bigint | null;
  cancelledAt: bigint | null;
  updatedAt: bigint;
}

export interface StepRow {
  apiKeyId: string;
  executionId: string;
  stepId: string;
  seq: number;
  nodeId: string;
  nodeType: string;
  groupId: string | null;
  iteration: number;
  status: string;
  attempts: number;
  input: string;
  output: string;
  decision: string | null;
  error: string | null;
  agentExecutionId: string | null;
  createdAt: bigint;
  startedAt: bigint | null;
  completedAt: bigint | null;
}

export interface EventRow {
  apiKeyId: string;
  executionId: string;
  seq: number;
  eventId: string;
  type: string;
  stepId: string | null;
  timestamp: bigint;
  data: string;
}

export interface DecisionRow {
  apiKeyId: string;
  executionId: string;
  stepId: string;
  reviewerId: string;
  decision: string;
  reason: string | null;
  decidedAt: bigint;
}

export type StepChange = Partial<Pick<StepRow, 'status' | 'attempts' | 'output' | 'decision' | 'error' | 'agentExecutionId' | 'startedAt' | 'completedAt' | 'input'>>;
export type ExecutionChange = Partial<Pick<ExecutionRow, 'status' | 'state' | 'nextSeq' | 'stepCount' | 'failureReason' | 'completedAt' | 'cancelledAt' | 'updatedAt'>>;

/** Executions, their steps, reviewers' decisions and events; every query is scoped by the application (apiKeyId). */
export function createExecutionsRepo(db: Db) {
  return {
    insert: (row: ExecutionRow) => db.workflowExecution.create({ data: row }),
    find: (apiKeyId: string, id: string): Promise<ExecutionRow | null> => db.workflowExecution.findUnique({ where: { apiKeyId_id: { apiKeyId, id } } }),
    /**
     * Holds the execution's row until the unit of work ends (PostgreSQL):
     * transitions of one execution then take turns instead of racing to the
     * compare-and-set and retrying. SQLite's one writer already serializes them.
     */
    async lock(apiKeyId: string, id: string): Promise<void> {
      if (providerOfClient(db) !== 'postgresql') return;
      await db.$queryRawUnsafe('SELECT 1 FROM "WorkflowExecution" WHERE "apiKeyId" = $1 AND "id" = $2 FOR UPDATE', apiKeyId, id);
    },
    byIdempotencyKey: (apiKeyId: string, idempotencyKey: string): Promise<ExecutionRow | null> =>
      db.workflowExecution.findUnique({ where: { apiKeyId_idempotencyKey: { apiKeyId, idempotencyKey } } }),
    /**
     * Writes the execution's change only if it is still at `expectedSeq`:
     * every transition bumps nextSeq, so of two transitions that read the
     * same execution one writes and the other finds nothing (and retries).
     */
    async updateIf(apiKeyId: string, id: string, expectedSeq: number, change: ExecutionChange): Promise<boolean> {
      const result = await db.workflowExecution.updateMany({ where: { apiKeyId, id, nextSeq: expectedSeq }, data: change });
      return result.count === 1;
    },
    list: (apiKeyId: string, filter: { definitionId?: string; status?: string; organizationId?: string; documentId?: string }, after: Cursor | undefined, take: number): Promise<ExecutionRow[]> =>
      db.workflowExecution.findMany({
        where: { apiKeyId, ...filter, ...afterMs(after, { order: 'desc', at: 'startedAt' }) },
        orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
        take,
      }),

    steps: (apiKeyId: string, executionId: string): Promise<StepRow[]> => db.workflowStep.findMany({ where: { apiKeyId, executionId }, orderBy: { seq: 'asc' } }),
    step: (apiKeyId: string, executionId: string, stepId: string): Promise<StepRow | null> =>
      db.workflowStep.findUnique({ where: { apiKeyId_executionId_stepId: { apiKeyId, executionId, stepId } } }),
    stepOfAgentRun: (apiKeyId: string, agentExecutionId: string) =>
      db.workflowStep.findFirst({ where: { apiKeyId, agentExecutionId }, select: { executionId: true, stepId: true } }),
    insertSteps: (rows: StepRow[]) => db.workflowStep.createMany({ data: rows }),
    updateStep: (apiKeyId: string, executionId: string, stepId: string, change: StepChange) =>
      db.workflowStep.update({ where: { apiKeyId_executionId_stepId: { apiKeyId, executionId, stepId } }, data: change }),

    decisions: (apiKeyId: string, executionId: string, stepId: string): Promise<DecisionRow[]> =>
      db.workflowReviewerDecision.findMany({ where: { apiKeyId, executionId, stepId }, orderBy: { decidedAt: 'asc' } }),
    insertDecision: (row: DecisionRow) => db.workflowReviewerDecision.create({ data: row }),

    insertEvents: (rows: EventRow[]) => db.workflowEvent.createMany({ data: rows }),
    events: (apiKeyId: string, executionId: string, sinceSeq: number, take: number): Promise<EventRow[]> =>
      db.workflowEvent.findMany({ where: { apiKeyId, executionId, seq: { gt: sinceSeq } }, orderBy: { seq: 'asc' }, take }),
  };
}

export type ExecutionsRepo = ReturnType<typeof createExecutionsRepo>;

/** The owned-data hooks' statements: a document's executions follow it to a new ID and go with it. */
export function createExecutionsOwnership(db: Db) {
  async function deleteWhere(where: { apiKeyId: string; organizationId: string; documentId?: { in: string[] } }): Promise<void> {
    const rows = await db.workflowExecution.findMany({ where, select: { id: true } });
    if (rows.length === 0) return;
    const scoped = { apiKeyId: where.apiKeyId, executionId: { in: rows.map((row) => row.id) } };
    await db.workflowEvent.deleteMany({ where: scoped });
    await db.workflowReviewerDecision.deleteMany({ where: scoped });
    await db.workflowStep.deleteMany({ where: scoped });
    await db.workflowExecution.deleteMany({ where: { apiKeyId: where.apiKeyId, id: { in: rows.map((row) => row.id) } } });
  }
  return {
    moveDocument: (apiKeyId: string, organizationId: string, from: string, to: string) =>
      db.workflowExecution.updateMany({ where: { apiKeyId, organizationId, documentId: from }, data: { documentId: to } }),
    deleteDocuments: (apiKeyId: string, organizationId: string, documentIds: readonly string[]) => deleteWhere({ apiKeyId, organizationId, documentId: { in: [...documentIds] } }),
    deleteOrganization: (apiKeyId: string, organizationId: string) => deleteWhere({ apiKeyId, organizationId }),
    deleteDecisionsBy: (apiKeyId: string, reviewerId: string) => db.workflowReviewerDecision.deleteMany({ where: { apiKeyId, reviewerId } }),
  };
}
