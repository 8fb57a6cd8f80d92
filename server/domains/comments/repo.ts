import { providerOfClient, type Db } from '../../db/client.js';
import { afterMs, byCreation, type Cursor } from '../../db/keyset.js';

/** Where a thread is: every query names the application, and thread queries the organization and document too. */
export interface ThreadKey {
  apiKeyId: string;
  organizationId: string;
  documentId: string;
}

export interface ThreadRow {
  apiKeyId: string;
  organizationId: string;
  documentId: string;
  id: string;
  locationId: string | null;
  location: string | null;
  status: string;
  priority: string | null;
  assignedToUserId: string | null;
  assignedTo: string | null;
  customList: string;
  context: string | null;
  restricted: boolean;
  fromUserId: string;
  fromUser: string;
  createdAt: bigint;
  lastUpdated: bigint;
}

export interface CommentRow {
  apiKeyId: string;
  organizationId: string;
  documentId: string;
  annotationId: string;
  id: string;
  orderKey: string;
  text: string;
  html: string | null;
  fromUserId: string;
  fromUser: string;
  taggedUsers: string;
  createdAt: bigint;
  lastUpdated: bigint;
}

export interface ReactionRow {
  apiKeyId: string;
  organizationId: string;
  documentId: string;
  annotationId: string;
  commentId: string;
  id: string;
  icon: string;
  userId: string;
  fromUser: string;
  createdAt: bigint;
}

export interface MentionRow {
  apiKeyId: string;
  organizationId: string;
  documentId: string;
  annotationId: string;
  commentId: string;
  userId: string;
}

export type FullComment = CommentRow & { reactions: ReactionRow[] };
export type FullThread = ThreadRow & { comments: FullComment[] };

/** IDs per `IN (…)` list: well under SQLite's and PostgreSQL's bound-parameter limits. */
const ID_BATCH = 500;

export interface ThreadQuery {
  apiKeyId: string;
  organizationId: string;
  documentIds: string[];
  annotationIds?: string[];
  locationIds?: string[];
  statusIds?: string[];
  /** Only threads this user opened, is assigned to, or wrote or is mentioned in a comment of. */
  involvedUserId?: string;
  order: 'asc' | 'desc';
}

/**
 * Data access for comment threads, comments, mentions, reactions and read
 * marks. Every query carries the application (apiKeyId); multi-statement
 * writes run inside the service's unit of work.
 */
export function createCommentsRepo(db: Db) {
  /**
   * Threads with their comments (in the order they were added) and their
   * reactions (oldest first): three queries by annotation ID, not the ORM's
   * nested include, whose key lists grow with the comments (a thread of 1,000
   * comments passed SQLite's parameter limit).
   */
  async function withComments(threads: ThreadRow[]): Promise<FullThread[]> {
    const first = threads[0];
    if (first === undefined) return [];
    const { apiKeyId } = first;
    const comments: CommentRow[] = [];
    const reactions: ReactionRow[] = [];
    for (const batch of chunks(threads.map((t) => t.id), ID_BATCH)) {
      const where = { apiKeyId, annotationId: { in: batch } };
      comments.push(...(await db.comment.findMany({ where, orderBy: [{ annotationId: 'asc' }, { orderKey: 'asc' }] })));
      reactions.push(...(await db.commentReaction.findMany({ where, orderBy: byCreation() })));
    }
    const reactionsOf = new Map<string, ReactionRow[]>();
    for (const r of reactions) {
      const key = JSON.stringify([r.annotationId, r.commentId]);
      const list = reactionsOf.get(key);
      if (list) list.push(r);
      else reactionsOf.set(key, [r]);
    }
    const commentsOf = new Map<string, FullComment[]>();
    for (const c of comments) {
      const full = { ...c, reactions: reactionsOf.get(JSON.stringify([c.annotationId, c.id])) ?? [] };
      const list = commentsOf.get(c.annotationId);
      if (list) list.push(full);
      else commentsOf.set(c.annotationId, [full]);
    }
    return threads.map((t) => ({ ...t, comments: commentsOf.get(t.id) ?? [] }));
  }

  /** Children first: the foreign keys cascade too, but the statements must not depend on it. */
  async function deleteWhere(where: Record<string, unknown>) {
    await db.commentReaction.deleteMany({ where });
    await db.commentMention.deleteMany({ where });
    await db.commentReadMark.deleteMany({ where });
    await db.comment.deleteMany({ where });
    await db.commentAnnotation.deleteMany({ where: mapAnnotationKey(where) });
  }

  return {
    // ── threads ──
    findThreads: async (key: ThreadKey, ids: string[]): Promise<FullThread[]> =>
      withComments(await db.commentAnnotation.findMany({ where: { ...key, id: { in: ids } } })),

    /**
     * Holds these threads' rows until the unit of work ends, so writes to one
     * thread take turns: a comment is never added to a thread being deleted,
     * the comment cap cannot be passed by two adds at once, and each event
     * shows the thread as its own write left it. On PostgreSQL a row lock (in
     * ID order, so two writers never wait on each other crosswise); on SQLite
     * the gate already runs transactions one at a time.
     */
    lockThreads: async (key: ThreadKey, ids: string[]) => {
      if (providerOfClient(db) !== 'postgresql' || ids.length === 0) return;
      const sorted = [...new Set(ids)].sort();
      const list = sorted.map((_, i) => `$${i + 4}`).join(', ');
      await db.$queryRawUnsafe(
        `SELECT "id" FROM "CommentAnnotation" WHERE "apiKeyId" = $1 AND "organizationId" = $2 AND "documentId" = $3 AND "id" IN (${list}) ORDER BY "id" FOR UPDATE`,
        key.apiKeyId,
        key.organizationId,
        key.documentId,
        ...sorted,
      );
    },

    /** A thread's own row, without its comments. */
    findThreadRow: (key: ThreadKey, id: string): Promise<ThreadRow | null> => db.commentAnnotation.findFirst({ where: { ...key, id } }),

    findComment: async (apiKeyId: string, annotationId: string, id: string): Promise<FullComment | null> => {
      const comment = await db.comment.findUnique({ where: { apiKeyId_annotationId_id: { apiKeyId, annotationId, id } } });
      if (!comment) return null;
      const reactions = await db.commentReaction.findMany({ where: { apiKeyId, annotationId, commentId: id }, orderBy: byCreation() });
      return { ...comment, reactions };
    },

    /** Which of these annotation IDs the application already uses (in any document). */
    takenThreadIds: async (apiKeyId: string, ids: string[]) =>
      (await db.commentAnnotation.findMany({ where: { apiKeyId, id: { in: ids } }, select: { id: true } })).map((r) => r.id),

    createThreads: (rows: ThreadRow[]) => db.commentAnnotation.createMany({ data: rows }),

    updateThread: (apiKeyId: string, id: string, data: Partial<Omit<ThreadRow, 'apiKeyId' | 'id'>>) =>
      db.commentAnnotation.update({ where: { apiKeyId_id: { apiKeyId, id } }, data }),

    touchThread: (apiKeyId: string, id: string, at: bigint) =>
      db.commentAnnotation.update({ where: { apiKeyId_id: { apiKeyId, id } }, data: { lastUpdated: at } }),

    deleteThreads: (key: ThreadKey, ids: string[]) => deleteWhere({ ...key, annotationId: { in: ids } }),

    /** One keyset page of threads (their own columns only), in (createdAt, id) order. */
    listThreads: (q: ThreadQuery, after: Cursor | undefined, take: number) =>
      db.commentAnnotation.findMany({
        where: {
          apiKeyId: q.apiKeyId,
          organizationId: q.organizationId,
          documentId: { in: q.documentIds },
          ...(q.annotationIds ? { id: { in: q.annotationIds } } : {}),
          ...(q.locationIds ? { locationId: { in: q.locationIds } } : {}),
          ...(q.statusIds ? { status: { in: q.statusIds } } : {}),
          AND: [
            q.involvedUserId === undefined
              ? {}
              : {
                  OR: [
                    { fromUserId: q.involvedUserId },
                    { assignedToUserId: q.involvedUserId },
                    { comments: { some: { OR: [{ fromUserId: q.involvedUserId }, { mentions: { some: { userId: q.involvedUserId } } }] } } },
                  ],
                },
            afterMs(after, { order: q.order }),
          ],
        },
        orderBy: byCreation(q.order),
        take,
      }),

    /** Full threads by ID, in no particular order. */
    loadThreads: async (apiKeyId: string, ids: string[]): Promise<FullThread[]> => {
      const threads: ThreadRow[] = [];
      for (const batch of chunks(ids, ID_BATCH)) threads.push(...(await db.commentAnnotation.findMany({ where: { apiKeyId, id: { in: batch } } })));
      return withComments(threads);
    },

    // ── comments ──
    takenCommentIds: async (apiKeyId: string, annotationId: string, ids: string[]) =>
      (await db.comment.findMany({ where: { apiKeyId, annotationId, id: { in: ids } }, select: { id: true } })).map((r) => r.id),

    countComments: (apiKeyId: string, annotationId: string) => db.comment.count({ where: { apiKeyId, annotationId } }),

    createComments: (rows: CommentRow[]) => db.comment.createMany({ data: rows }),

    createMentions: (rows: MentionRow[]) => (rows.length === 0 ? Promise.resolve({ count: 0 }) : db.commentMention.createMany({ data: rows })),

    replaceMentions: async (apiKeyId: string, annotationId: string, commentId: string, rows: MentionRow[]) => {
      await db.commentMention.deleteMany({ where: { apiKeyId, annotationId, commentId } });
      if (rows.length > 0) await db.commentMention.createMany({ data: rows });
    },

    updateComment: (apiKeyId: string, annotationId: string, id: string, data: Partial<Pick<CommentRow, 'text' | 'html' | 'taggedUsers' | 'lastUpdated'>>) =>
      db.comment.update({ where: { apiKeyId_annotationId_id: { apiKeyId, annotationId, id } }, data }),

    deleteComments: async (apiKeyId: string, annotationId: string, ids: string[]) => {
      const where = { apiKeyId, annotationId, commentId: { in: ids } };
      await db.commentReaction.deleteMany({ where });
      await db.commentMention.deleteMany({ where });
      await db.comment.deleteMany({ where: { apiKeyId, annotationId, id: { in: ids } } });
    },

    // ── reactions ──
    createReaction: (row: ReactionRow) => db.commentReaction.create({ data: row }),

    findReaction: (apiKeyId: string, annotationId: string, commentId: string, userId: string, icon: string) =>
      db.commentReaction.findUnique({
        where: { apiKeyId_annotationId_commentId_userId_icon: { apiKeyId, annotationId, commentId, userId, icon } },
      }),

    deleteReaction: (apiKeyId: string, id: string) => db.commentReaction.delete({ where: { apiKeyId_id: { apiKeyId, id } } }),

    // ── read marks ──
    /** New threads have no marks yet: one statement for all of them. */
    createReadMarks: (rows: (ThreadKey & { annotationId: string; userId: string; readAt: bigint })[]) =>
      rows.length === 0 ? Promise.resolve({ count: 0 }) : db.commentReadMark.createMany({ data: rows }),

    markRead: (key: ThreadKey, annotationId: string, userId: string, readAt: bigint) =>
      db.commentReadMark.upsert({
        where: { apiKeyId_annotationId_userId: { apiKeyId: key.apiKeyId, annotationId, userId } },
        create: { ...key, annotationId, userId, readAt },
        update: { readAt },
      }),

    removeReadMarks: (key: ThreadKey, annotationIds: string[], userId: string) =>
      db.commentReadMark.deleteMany({ where: { ...key, annotationId: { in: annotationIds }, userId } }),

    /**
     * Per document: threads without a restricting context, and how many of
     * them have a comment by someone other than `userId` after the user's
     * read mark. Plain SQL: the comparison with the mark is per row, which the
     * ORM cannot express.
     */
    async countOpenThreads(key: { apiKeyId: string; organizationId: string }, documentIds: string[], userId: string, statusIds: string[] | undefined) {
      const { sql, params } = countSql(db, key, documentIds, userId, statusIds, 'aggregate');
      const rows = await db.$queryRawUnsafe<{ documentId: string; total: number | bigint; unread: number | bigint | null }[]>(sql, ...params);
      return rows.map((r) => ({ documentId: r.documentId, total: Number(r.total), unread: Number(r.unread ?? 0) }));
    },

    /** The threads with a restricting context, each with its context and whether it is unread for `userId`. */
    async restrictedThreads(key: { apiKeyId: string; organizationId: string }, documentIds: string[], userId: string, statusIds: string[] | undefined) {
      const { sql, params } = countSql(db, key, documentIds, userId, statusIds, 'restricted');
      const rows = await db.$queryRawUnsafe<{ documentId: string; context: string | null; unread: number | bigint | boolean }[]>(sql, ...params);
      return rows.map((r) => ({ documentId: r.documentId, context: r.context, unread: Number(r.unread) === 1 || r.unread === true }));
    },

    // ── owned data ──
    moveDocument: async (key: ThreadKey, toDocumentId: string) => {
      const data = { documentId: toDocumentId };
      await db.commentAnnotation.updateMany({ where: key, data });
      await db.comment.updateMany({ where: key, data });
      await db.commentMention.updateMany({ where: key, data });
      await db.commentReaction.updateMany({ where: key, data });
      await db.commentReadMark.updateMany({ where: key, data });
    },

    deleteDocuments: (apiKeyId: string, organizationId: string, documentIds: string[]) =>
      deleteWhere({ apiKeyId, organizationId, documentId: { in: documentIds } }),

    deleteOrganization: (apiKeyId: string, organizationId: string) => deleteWhere({ apiKeyId, organizationId }),

    /** Annotation IDs of every thread the user touches in any way (opened, assigned, wrote, mentioned, reacted, read). */
    async threadsTouchedBy(apiKeyId: string, userId: string): Promise<string[]> {
      const [opened, comments, mentions, reactions, marks] = await Promise.all([
        db.commentAnnotation.findMany({ where: { apiKeyId, OR: [{ fromUserId: userId }, { assignedToUserId: userId }] }, select: { id: true } }),
        db.comment.findMany({ where: { apiKeyId, fromUserId: userId }, select: { annotationId: true }, distinct: ['annotationId'] }),
        db.commentMention.findMany({ where: { apiKeyId, userId }, select: { annotationId: true }, distinct: ['annotationId'] }),
        db.commentReaction.findMany({ where: { apiKeyId, userId }, select: { annotationId: true }, distinct: ['annotationId'] }),
        db.commentReadMark.findMany({ where: { apiKeyId, userId }, select: { annotationId: true } }),
      ]);
      return [...new Set([...opened.map((r) => r.id), ...[...comments, ...mentions, ...reactions, ...marks].map((r) => r.annotationId)])];
    },

    /** Removes what the user wrote or holds: reactions, comments (with others' reactions on them), mentions of them, read marks. */
    async deleteUserContent(apiKeyId: string, userId: string) {
      await db.commentReaction.deleteMany({ where: { apiKeyId, userId } });
      await db.commentReadMark.deleteMany({ where: { apiKeyId, userId } });
      await db.commentMention.deleteMany({ where: { apiKeyId, userId } });
      const written = await db.comment.findMany({ where: { apiKeyId, fromUserId: userId }, select: { annotationId: true, id: true } });
      for (const batch of chunks(written, ID_BATCH / 2)) {
        const pairs = batch.map((c) => ({ annotationId: c.annotationId, commentId: c.id }));
        await db.commentReaction.deleteMany({ where: { apiKeyId, OR: pairs } });
        await db.commentMention.deleteMany({ where: { apiKeyId, OR: pairs } });
      }
      await db.comment.deleteMany({ where: { apiKeyId, fromUserId: userId } });
    },

    /** Of these threads, the ones without a comment left. */
    async emptyThreads(apiKeyId: string, ids: string[]): Promise<string[]> {
      const withComments = new Set<string>();
      for (const batch of chunks(ids, ID_BATCH)) {
        const rows = await db.comment.findMany({ where: { apiKeyId, annotationId: { in: batch } }, select: { annotationId: true }, distinct: ['annotationId'] });
        for (const r of rows) withComments.add(r.annotationId);
      }
      return ids.filter((id) => !withComments.has(id));
    },

    async deleteThreadsById(apiKeyId: string, ids: string[]) {
      for (const batch of chunks(ids, ID_BATCH)) await deleteWhere({ apiKeyId, annotationId: { in: batch } });
    },

    async commentsOfThreads(apiKeyId: string, ids: string[]) {
      const rows: { annotationId: string; id: string; taggedUsers: string }[] = [];
      for (const batch of chunks(ids, ID_BATCH)) {
        rows.push(...(await db.comment.findMany({ where: { apiKeyId, annotationId: { in: batch } }, select: { annotationId: true, id: true, taggedUsers: true } })));
      }
      return rows;
    },

    setTaggedUsers: (apiKeyId: string, annotationId: string, id: string, taggedUsers: string) =>
      db.comment.update({ where: { apiKeyId_annotationId_id: { apiKeyId, annotationId, id } }, data: { taggedUsers } }),

    anonymizeThreadAuthor: (apiKeyId: string, userId: string, anonymous: { userId: string; json: string }) =>
      db.commentAnnotation.updateMany({ where: { apiKeyId, fromUserId: userId }, data: { fromUserId: anonymous.userId, fromUser: anonymous.json } }),

    unassign: (apiKeyId: string, userId: string) =>
      db.commentAnnotation.updateMany({ where: { apiKeyId, assignedToUserId: userId }, data: { assignedToUserId: null, assignedTo: null } }),

    // ── user data ──
    /** Comments a user wrote or is mentioned in, in one organization, in (createdAt, orderKey) order. */
    userComments: (apiKeyId: string, organizationId: string, userId: string, after: Cursor | undefined, take: number) =>
      db.comment.findMany({
        where: {
          apiKeyId,
          organizationId,
          AND: [{ OR: [{ fromUserId: userId }, { mentions: { some: { userId } } }] }, afterMs(after, { id: 'orderKey' })],
        },
        include: { reactions: { orderBy: byCreation() } },
        orderBy: [{ createdAt: 'asc' }, { orderKey: 'asc' }],
        take,
      }),

    /** Reactions a user made, in one organization, in (createdAt, id) order. */
    userReactions: (apiKeyId: string, organizationId: string, userId: string, after: Cursor | undefined, take: number) =>
      db.commentReaction.findMany({
        where: { apiKeyId, organizationId, userId, ...afterMs(after) },
        orderBy: byCreation(),
        take,
      }),
  };
}

export type CommentsRepo = ReturnType<typeof createCommentsRepo>;

/** The annotation table names its key `id`; the others `annotationId`. */
function mapAnnotationKey(where: Record<string, unknown>): Record<string, unknown> {
  const { annotationId, ...rest } = where;
  return annotationId === undefined ? rest : { ...rest, id: annotationId };
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * The count statements, written once for both databases: only the
 * placeholders differ (`$n` on PostgreSQL, `?` on SQLite).
 */
function countSql(
  db: Db,
  key: { apiKeyId: string; organizationId: string },
  documentIds: string[],
  userId: string,
  statusIds: string[] | undefined,
  shape: 'aggregate' | 'restricted',
) {
  const postgres = providerOfClient(db) === 'postgresql';
  const params: unknown[] = [];
  const bind = (value: unknown) => {
    params.push(value);
    return postgres ? `$${params.length}` : '?';
  };
  // Unread: a comment by someone else after the user's read mark (no mark: any such comment).
  const unread = `CASE WHEN EXISTS (SELECT 1 FROM "Comment" c WHERE c."apiKeyId" = a."apiKeyId" AND c."annotationId" = a."id"
      AND c."fromUserId" <> ${bind(userId)}
      AND c."createdAt" > COALESCE((SELECT m."readAt" FROM "CommentReadMark" m WHERE m."apiKeyId" = a."apiKeyId" AND m."annotationId" = a."id" AND m."userId" = ${bind(userId)}), -1))
    THEN 1 ELSE 0 END`;
  const where = `a."apiKeyId" = ${bind(key.apiKeyId)} AND a."organizationId" = ${bind(key.organizationId)}
    AND a."documentId" IN (${documentIds.map(bind).join(', ')})
    ${statusIds ? `AND a."status" IN (${statusIds.map(bind).join(', ')})` : ''}`;
  const sql =
    shape === 'aggregate'
      ? `SELECT a."documentId" AS "documentId", CAST(COUNT(*) AS INTEGER) AS "total", CAST(SUM(${unread}) AS INTEGER) AS "unread"
         FROM "CommentAnnotation" a WHERE ${where} AND a."restricted" = false GROUP BY a."documentId"`
      : `SELECT a."documentId" AS "documentId", a."context" AS "context", ${unread} AS "unread"
         FROM "CommentAnnotation" a WHERE ${where} AND a."restricted" = true`;
  return { sql, params };
}
