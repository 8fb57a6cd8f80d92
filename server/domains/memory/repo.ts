import { providerOfClient, type Db } from '../../db/client.js';
import { encodeJsonText } from '../../db/json-columns.js';
import { afterMs, type Cursor } from '../../db/keyset.js';

/** A judgment (see prisma/models.prisma), its tags decoded. */
export interface JudgmentRecord {
  apiKeyId: string;
  id: string;
  subject: string;
  decision: string;
  reason: string;
  reviewerId: string;
  organizationId: string | null;
  documentId: string | null;
  tags: string[];
  decidedAt: bigint;
  createdAt: bigint;
  /** Its distinct searchable words (search-index.ts postingsOf): what it counts against the postings budget. */
  postings: number;
}

/** What the search index needs of a judgment (everything but the bookkeeping). */
export type SearchableRecord = Omit<JudgmentRecord, 'apiKeyId' | 'createdAt' | 'postings'>;

/** The row as stored: the tags are a JSON array of strings in a TEXT column. */
export type JudgmentRow = Omit<JudgmentRecord, 'tags'> & { tags: string };

/** The row a judgment is stored as: what insert writes, and what a bulk load (the benchmark) writes straight. */
export const judgmentRowOf = (record: JudgmentRecord): JudgmentRow => ({ ...record, tags: encodeJsonText(record.tags) });

/** Tags as stored; anything but an array of strings (a hand edit) reads as none. */
function tagsFrom(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((tag): tag is string => typeof tag === 'string') : [];
  } catch {
    return [];
  }
}

/** A row read back, its tags decoded (a new array per row: a response may own it). */
const judgmentFrom = <R extends { tags: string }>(row: R): Omit<R, 'tags'> & { tags: string[] } => ({ ...row, tags: tagsFrom(row.tags) });

export interface JudgmentFilters {
  organizationId?: string;
  documentId?: string;
  reviewerId?: string;
  decision?: string;
}

/** Where the application's judgments stand: bumped with every change, how many there are and their postings. */
export interface JudgmentRevision {
  revision: number;
  size: number;
  postings: number;
}

/** What a delete took away: the IDs deleted and the postings they held. */
export interface Deleted {
  ids: string[];
  postings: number;
}

/** A delete's condition, as SQL (`$1` is the application) and as a Prisma filter. */
interface Condition {
  sql: string;
  params: unknown[];
  where: Record<string, unknown>;
}

const newestFirst = [{ decidedAt: 'desc' as const }, { id: 'desc' as const }];
const oldestFirst = [{ decidedAt: 'asc' as const }, { id: 'asc' as const }];

/** Judgments; every query is scoped by the application (apiKeyId). */
export function createJudgmentsRepo(db: Db) {
  /**
   * On PostgreSQL one DELETE … RETURNING: under READ COMMITTED a row another
   * transaction deleted meanwhile is not returned (a read then a delete would
   * count it twice). SQLite's gate runs one transaction at a time, so the
   * read and the delete in the caller's unit of work see the same rows.
   */
  async function deleteWhere(apiKeyId: string, condition: Condition): Promise<Deleted> {
    if (providerOfClient(db) === 'postgresql') {
      const rows = await db.$queryRawUnsafe<{ id: string; postings: number | bigint }[]>(
        `DELETE FROM "Judgment" WHERE "apiKeyId" = $1 AND ${condition.sql} RETURNING "id", "postings"`,
        apiKeyId,
        ...condition.params,
      );
      return { ids: rows.map((row) => row.id), postings: rows.reduce((sum, row) => sum + Number(row.postings), 0) };
    }
    const where = { apiKeyId, ...condition.where };
    const rows = await db.judgment.findMany({ where, select: { id: true, postings: true } });
    await db.judgment.deleteMany({ where });
    return { ids: rows.map((row) => row.id), postings: rows.reduce((sum, row) => sum + row.postings, 0) };
  }

  const repo = {
    insert: async (record: JudgmentRecord): Promise<void> => {
      await db.judgment.create({ data: judgmentRowOf(record) });
    },

    exists: async (apiKeyId: string, id: string) => (await db.judgment.count({ where: { apiKeyId, id } })) > 0,

    list: async (apiKeyId: string, filters: JudgmentFilters, after: Cursor | undefined, take: number): Promise<JudgmentRecord[]> =>
      (await db.judgment.findMany({
        where: {
          apiKeyId,
          ...(filters.organizationId !== undefined ? { organizationId: filters.organizationId } : {}),
          ...(filters.documentId !== undefined ? { documentId: filters.documentId } : {}),
          ...(filters.reviewerId !== undefined ? { reviewerId: filters.reviewerId } : {}),
          ...(filters.decision !== undefined ? { decision: filters.decision } : {}),
          ...afterMs(after, { order: 'desc', at: 'decidedAt' }),
        },
        orderBy: newestFirst,
        take,
      })).map(judgmentFrom),

    /**
     * A reviewer's judgments for Get All User Data of one organization: those
     * of the organization and those recorded for the whole workspace (no
     * organization), which no organization's export would show otherwise.
     */
    listByReviewer: async (apiKeyId: string, organizationId: string, reviewerId: string, after: Cursor | undefined, take: number): Promise<JudgmentRecord[]> =>
      (await db.judgment.findMany({
        where: {
          apiKeyId,
          reviewerId,
          AND: [{ OR: [{ organizationId }, { organizationId: null }] }, afterMs(after, { at: 'decidedAt' })],
        },
        orderBy: oldestFirst,
        take,
      })).map(judgmentFrom),

    /**
     * Deletes those of `ids` the application has; returns the IDs deleted and
     * their postings. Each row is counted by the statement that deleted it,
     * so of two deletes of one ID racing, exactly one reports it.
     */
    deleteMany: (apiKeyId: string, ids: readonly string[]): Promise<Deleted> =>
      deleteWhere(apiKeyId, { sql: '"id" = ANY($2::text[])', params: [[...ids]], where: { id: { in: [...ids] } } }),
    /** Up to `take` rows after `afterId` in ID order: the search index is built from these pages. */
    scan: async (apiKeyId: string, afterId: string | undefined, take: number): Promise<SearchableRecord[]> =>
      (await db.judgment.findMany({
        where: { apiKeyId, ...(afterId !== undefined ? { id: { gt: afterId } } : {}) },
        orderBy: { id: 'asc' },
        take,
        select: { id: true, subject: true, decision: true, reason: true, reviewerId: true, organizationId: true, documentId: true, tags: true, decidedAt: true },
      })).map(judgmentFrom),

    revision: (apiKeyId: string): Promise<JudgmentRevision | null> =>
      db.judgmentRevision.findUnique({ where: { apiKeyId }, select: { revision: true, size: true, postings: true } }),

    /**
     * Marks a change to the application's judgments (`sizeDelta` rows more or
     * fewer, holding `postingsDelta` postings more or fewer), in the caller's transaction: every process's search index of
     * the application is stale from its commit on. Returns the new state; on
     * PostgreSQL the row stays locked until commit, so concurrent adds count
     * against the cap one after the other.
     */
    bump: (apiKeyId: string, sizeDelta: number, postingsDelta: number): Promise<JudgmentRevision> =>
      db.judgmentRevision.upsert({
        where: { apiKeyId },
        create: { apiKeyId, revision: 1, size: Math.max(0, sizeDelta), postings: Math.max(0, postingsDelta) },
        update: { revision: { increment: 1 }, size: { increment: sizeDelta }, postings: { increment: postingsDelta } },
        select: { revision: true, size: true, postings: true },
      }),

    // ── owned data: the move returns how many rows changed, the deletes what went ──
    moveDocument: async (apiKeyId: string, organizationId: string, from: string, to: string) =>
      (await db.judgment.updateMany({ where: { apiKeyId, organizationId, documentId: from }, data: { documentId: to } })).count,
    deleteDocuments: (apiKeyId: string, organizationId: string, documentIds: readonly string[]) =>
      deleteWhere(apiKeyId, {
        sql: '"organizationId" = $2 AND "documentId" = ANY($3::text[])',
        params: [organizationId, [...documentIds]],
        where: { organizationId, documentId: { in: [...documentIds] } },
      }),
    deleteOrganization: (apiKeyId: string, organizationId: string) =>
      deleteWhere(apiKeyId, { sql: '"organizationId" = $2', params: [organizationId], where: { organizationId } }),
    deleteByReviewer: (apiKeyId: string, reviewerId: string) =>
      deleteWhere(apiKeyId, { sql: '"reviewerId" = $2', params: [reviewerId], where: { reviewerId } }),
  };
  return repo;
}

export type JudgmentsRepo = ReturnType<typeof createJudgmentsRepo>;
