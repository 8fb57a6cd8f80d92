import type { Db } from '../../db/client.js';
import { keysetAfter, type Cursor } from '../../lib/page-token.js';

/** A judgment row as stored (see prisma/models.prisma). */
export interface JudgmentRow {
  apiKeyId: string;
  id: string;
  subject: string;
  decision: string;
  reason: string;
  reviewerId: string;
  organizationId: string | null;
  documentId: string | null;
  /** JSON array of strings. */
  tags: string;
  decidedAt: bigint;
  createdAt: bigint;
}

/** What the search index needs of a row (everything but the bookkeeping). */
export type SearchableRow = Omit<JudgmentRow, 'apiKeyId' | 'createdAt'>;

export interface JudgmentFilters {
  organizationId?: string;
  documentId?: string;
  reviewerId?: string;
  decision?: string;
}

/** Where the application's judgments stand: bumped with every change, and how many there are. */
export interface JudgmentRevision {
  revision: number;
  size: number;
}

const newestFirst = [{ decidedAt: 'desc' as const }, { id: 'desc' as const }];
const oldestFirst = [{ decidedAt: 'asc' as const }, { id: 'asc' as const }];

/** Judgments; every query is scoped by the application (apiKeyId). */
export function createJudgmentsRepo(db: Db) {
  const repo = {
    insert: (row: JudgmentRow) => db.judgment.create({ data: row }),

    exists: async (apiKeyId: string, id: string) => (await db.judgment.count({ where: { apiKeyId, id } })) > 0,

    list: (apiKeyId: string, filters: JudgmentFilters, after: Cursor | undefined, take: number) =>
      db.judgment.findMany({
        where: {
          apiKeyId,
          ...(filters.organizationId !== undefined ? { organizationId: filters.organizationId } : {}),
          ...(filters.documentId !== undefined ? { documentId: filters.documentId } : {}),
          ...(filters.reviewerId !== undefined ? { reviewerId: filters.reviewerId } : {}),
          ...(filters.decision !== undefined ? { decision: filters.decision } : {}),
          ...keysetAfter(after, BigInt, { order: 'desc', at: 'decidedAt' }),
        },
        orderBy: newestFirst,
        take,
      }),

    /**
     * A reviewer's judgments for Get All User Data of one organization: those
     * of the organization and those recorded for the whole workspace (no
     * organization), which no organization's export would show otherwise.
     */
    listByReviewer: (apiKeyId: string, organizationId: string, reviewerId: string, after: Cursor | undefined, take: number) =>
      db.judgment.findMany({
        where: {
          apiKeyId,
          reviewerId,
          AND: [{ OR: [{ organizationId }, { organizationId: null }] }, keysetAfter(after, BigInt, { at: 'decidedAt' })],
        },
        orderBy: oldestFirst,
        take,
      }),

    /** Deletes those of `ids` the application has; returns the IDs deleted and how many rows went. */
    async deleteMany(apiKeyId: string, ids: readonly string[]): Promise<{ ids: string[]; count: number }> {
      const where = { apiKeyId, id: { in: [...ids] } };
      const found = await db.judgment.findMany({ where, select: { id: true } });
      const { count } = await db.judgment.deleteMany({ where });
      return { ids: found.map((row) => row.id), count };
    },

    /** Up to `take` rows after `afterId` in ID order: the search index is built from these pages. */
    scan: (apiKeyId: string, afterId: string | undefined, take: number): Promise<SearchableRow[]> =>
      db.judgment.findMany({
        where: { apiKeyId, ...(afterId !== undefined ? { id: { gt: afterId } } : {}) },
        orderBy: { id: 'asc' },
        take,
        select: { id: true, subject: true, decision: true, reason: true, reviewerId: true, organizationId: true, documentId: true, tags: true, decidedAt: true },
      }),

    revision: (apiKeyId: string): Promise<JudgmentRevision | null> =>
      db.judgmentRevision.findUnique({ where: { apiKeyId }, select: { revision: true, size: true } }),

    /**
     * Marks a change to the application's judgments (`sizeDelta` rows more or
     * fewer), in the caller's transaction: every process's search index of
     * the application is stale from its commit on. Returns the new state; on
     * PostgreSQL the row stays locked until commit, so concurrent adds count
     * against the cap one after the other.
     */
    bump: (apiKeyId: string, sizeDelta: number): Promise<JudgmentRevision> =>
      db.judgmentRevision.upsert({
        where: { apiKeyId },
        create: { apiKeyId, revision: 1, size: Math.max(0, sizeDelta) },
        update: { revision: { increment: 1 }, size: { increment: sizeDelta } },
        select: { revision: true, size: true },
      }),

    // ── owned data: each returns how many rows changed ──
    moveDocument: async (apiKeyId: string, organizationId: string, from: string, to: string) =>
      (await db.judgment.updateMany({ where: { apiKeyId, organizationId, documentId: from }, data: { documentId: to } })).count,
    deleteDocuments: async (apiKeyId: string, organizationId: string, documentIds: readonly string[]) =>
      (await db.judgment.deleteMany({ where: { apiKeyId, organizationId, documentId: { in: [...documentIds] } } })).count,
    deleteOrganization: async (apiKeyId: string, organizationId: string) => (await db.judgment.deleteMany({ where: { apiKeyId, organizationId } })).count,
    deleteByReviewer: async (apiKeyId: string, reviewerId: string) => (await db.judgment.deleteMany({ where: { apiKeyId, reviewerId } })).count,
  };
  return repo;
}

export type JudgmentsRepo = ReturnType<typeof createJudgmentsRepo>;
