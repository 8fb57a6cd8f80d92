import type { Db } from '../../../db/client.js';
import { afterMs, type Cursor } from '../../../db/keyset.js';

/** An AgentExecution row (prisma/models.prisma), JSON columns still text. */
export interface ExecutionRow {
  apiKeyId: string;
  id: string;
  agentId: string;
  agentName: string;
  agentVersion: number | null;
  organizationId: string;
  documentId: string;
  seedUrl: string;
  crossPageExecute: boolean;
  maxUrls: number;
  deviceType: string;
  visibility: string;
  status: string;
  runningKey: string | null;
  startedAt: bigint;
  startedMonth: number;
  completedAt: bigint | null;
  deadlineAt: bigint;
  error: string | null;
  trigger: string;
  workflowExecutionId: string | null;
  previousExecutionId: string | null;
  ranBy: string | null;
  ranByUserId: string | null;
  userContext: string | null;
  aiConfig: string | null;
  summary: string;
  llmModel: string | null;
  inputTokens: number;
  outputTokens: number;
  updatedAt: bigint;
}

export interface ResultRow {
  apiKeyId: string;
  executionId: string;
  id: string;
  url: string;
  status: string;
  findings: string;
  error: string | null;
  findingCount: number;
  processedAt: bigint;
}

/** What ends a run: written only while it is still `running` (a cancel or another worker may have ended it). */
export interface Ending {
  status: string;
  completedAt: bigint;
  error: string | null;
  summary: string;
  llmModel: string | null;
  inputTokens: number;
  outputTokens: number;
}

/** The running key: one run of an agent on a document at a time (a unique index holds it). */
export const runningKeyOf = (agentId: string, organizationId: string, documentId: string) => JSON.stringify([agentId, organizationId, documentId]);

/** Agent runs and their pages; every query is scoped by the application (apiKeyId). */
export function createRunsRepo(db: Db) {
  const newestFirst = [{ startedAt: 'desc' as const }, { id: 'desc' as const }];
  return {
    insert: (row: ExecutionRow) => db.agentExecution.create({ data: row }),
    find: (apiKeyId: string, id: string): Promise<ExecutionRow | null> => db.agentExecution.findUnique({ where: { apiKeyId_id: { apiKeyId, id } } }),
    findRunning: (apiKeyId: string, runningKey: string) => db.agentExecution.findUnique({ where: { apiKeyId_runningKey: { apiKeyId, runningKey } }, select: { id: true } }),
    countRunning: (apiKeyId: string) => db.agentExecution.count({ where: { apiKeyId, status: 'running' } }),
    /** The newest run of the agent on the document (the next run's previousExecutionId). */
    latestOn: (apiKeyId: string, agentId: string, organizationId: string, documentId: string) =>
      db.agentExecution.findFirst({ where: { apiKeyId, agentId, organizationId, documentId }, orderBy: newestFirst, select: { id: true } }),

    list: (apiKeyId: string, filter: { agentId?: string; organizationId?: string; documentId?: string }, after: Cursor | undefined, take: number): Promise<ExecutionRow[]> =>
      db.agentExecution.findMany({
        where: { apiKeyId, ...filter, ...afterMs(after, { order: 'desc', at: 'startedAt' }) },
        orderBy: newestFirst,
        take,
      }),

    async countByAgent(apiKeyId: string, agentIds: string[], status: string | undefined): Promise<Map<string, number>> {
      const rows = await db.agentExecution.groupBy({
        by: ['agentId'],
        where: { apiKeyId, agentId: { in: agentIds }, ...(status === undefined ? {} : { status }) },
        _count: { _all: true },
      });
      return new Map(rows.map((row) => [row.agentId, row._count._all]));
    },
    countAll: (apiKeyId: string, status: string | undefined) => db.agentExecution.count({ where: { apiKeyId, ...(status === undefined ? {} : { status }) } }),

    /** Runs and the last start per agent, for the agent lists' counters of built-in agents. */
    async statsOf(apiKeyId: string, agentIds: string[]): Promise<Map<string, { count: number; last: bigint | null }>> {
      if (agentIds.length === 0) return new Map();
      const rows = await db.agentExecution.groupBy({ by: ['agentId'], where: { apiKeyId, agentId: { in: agentIds } }, _count: { _all: true }, _max: { startedAt: true } });
      return new Map(rows.map((row) => [row.agentId, { count: row._count._all, last: row._max.startedAt }]));
    },

    /** Ends a run still `running`; false when it had already ended (cancelled, or ended by another worker). */
    async end(apiKeyId: string, id: string, ending: Ending): Promise<boolean> {
      const { count } = await db.agentExecution.updateMany({
        where: { apiKeyId, id, status: 'running' },
        data: { ...ending, runningKey: null, updatedAt: ending.completedAt },
      });
      return count > 0;
    },

    results: (apiKeyId: string, executionId: string): Promise<ResultRow[]> =>
      db.agentExecutionResult.findMany({ where: { apiKeyId, executionId }, orderBy: [{ processedAt: 'asc' }, { id: 'asc' }] }),
    /** A page's outcome; a page written already (a resumed run) keeps its first outcome. */
    async insertResult(row: ResultRow): Promise<void> {
      await db.agentExecutionResult.upsert({
        where: { apiKeyId_executionId_url: { apiKeyId: row.apiKeyId, executionId: row.executionId, url: row.url } },
        create: row,
        update: {},
      });
    },
    /** Runs and tokens per model, month and status: every figure Agent Analytics derives. */
    async usage(apiKeyId: string, filter: { agentId?: string; llmModel?: string; fromMonth?: number; toMonth?: number }) {
      const rows = await db.agentExecution.groupBy({
        by: ['llmModel', 'startedMonth', 'status'],
        where: {
          apiKeyId,
          ...(filter.agentId === undefined ? {} : { agentId: filter.agentId }),
          ...(filter.llmModel === undefined ? {} : { llmModel: filter.llmModel }),
          ...(filter.fromMonth === undefined ? {} : { startedMonth: { gte: filter.fromMonth, lte: filter.toMonth } }),
        },
        _count: { _all: true },
        _sum: { inputTokens: true, outputTokens: true },
      });
      return rows.map((row) => ({
        model: row.llmModel,
        month: row.startedMonth,
        status: row.status,
        executions: row._count._all,
        inputTokens: row._sum.inputTokens ?? 0,
        outputTokens: row._sum.outputTokens ?? 0,
      }));
    },

    // ── owned data (./owned-data.ts) ──
    /** Runs of a document move with it; a running one's key names the new document. */
    async moveDocument(apiKeyId: string, organizationId: string, from: string, to: string): Promise<void> {
      const running = await db.agentExecution.findMany({ where: { apiKeyId, organizationId, documentId: from, status: 'running' }, select: { id: true, agentId: true } });
      await db.agentExecution.updateMany({ where: { apiKeyId, organizationId, documentId: from }, data: { documentId: to } });
      for (const row of running) {
        await db.agentExecution.updateMany({ where: { apiKeyId, id: row.id, status: 'running' }, data: { runningKey: runningKeyOf(row.agentId, organizationId, to) } });
      }
    },
    /** Runs of these documents (of the whole organization without `documentIds`) and their pages. */
    async deleteRuns(apiKeyId: string, organizationId: string, documentIds?: readonly string[]): Promise<void> {
      const where = { apiKeyId, organizationId, ...(documentIds === undefined ? {} : { documentId: { in: [...documentIds] } }) };
      const ids = (await db.agentExecution.findMany({ where, select: { id: true } })).map((row) => row.id);
      for (let i = 0; i < ids.length; i += 500) {
        await db.agentExecutionResult.deleteMany({ where: { apiKeyId, executionId: { in: ids.slice(i, i + 500) } } });
      }
      await db.agentExecution.deleteMany({ where });
    },
    /** The runs a user started keep running and stay readable, without who started them. */
    forgetRanBy: (apiKeyId: string, userId: string) => db.agentExecution.updateMany({ where: { apiKeyId, ranByUserId: userId }, data: { ranBy: null, ranByUserId: null } }),

    /** Replaces a page's findings once they are annotated (their commentIds). */
    updateFindings: (apiKeyId: string, executionId: string, id: string, findings: string) =>
      db.agentExecutionResult.updateMany({ where: { apiKeyId, executionId, id }, data: { findings } }),
  };
}

export type RunsRepo = ReturnType<typeof createRunsRepo>;
