import { providerOfClient, type Db } from '../../db/client.js';
import { insertMany } from '../../db/bulk.js';
import { rawParams } from '../../db/raw-params.js';
import type { TUserRef } from '../../../contract/common/content.js';
import { ZCommentAgent, type TCommentAgent } from '../../../contract/comments/schemas.js';
import { encodeJson, encodeJsonText, withStoredJson, type StoredJson } from '../../db/json-columns.js';
import { afterMs, byCreation, type Cursor } from '../../db/keyset.js';

export { differsFromStored } from '../../db/json-columns.js';

/** Where a thread is: every query names the application, and thread queries the organization and document too. */
export interface ThreadKey {
  apiKeyId: string;
  organizationId: string;
  documentId: string;
}

/** The JSON columns of a thread and of a comment. */
type ThreadJson = 'location' | 'assignedTo' | 'customList' | 'context' | 'fromUser' | 'agent';
type CommentJson = 'fromUser' | 'taggedUsers';

/**
 * A thread as the service handles it: JSON columns decoded (see the
 * decoders below). Written from validated input; read defensively, as a hand
 * edit or an older version may have left something else in a column.
 */
export interface ThreadRecord extends StoredJson<ThreadJson> {
  apiKeyId: string;
  organizationId: string;
  documentId: string;
  id: string;
  locationId: string | null;
  /** An object (its own keys), or null; the contract's location only when it has a string locationId. */
  location: Record<string, unknown> | null;
  status: string;
  priority: string | null;
  assignedToUserId: string | null;
  assignedTo: TUserRef | null;
  customList: string[];
  context: Record<string, unknown> | null;
  restricted: boolean;
  fromUserId: string;
  /** Null when the stored author is unreadable (the reader falls back to fromUserId). */
  fromUser: TUserRef | null;
  createdAt: bigint;
  lastUpdated: bigint;
  type: ThreadType;
  sourceType: SourceType;
  agentId: string | null;
  /** The agent block as stored (its visibility is membersOnly); null on other threads and when unreadable. */
  agent: StoredAgent | null;
  membersOnly: boolean;
}

export type ThreadType = 'comment' | 'suggestion';
export type SourceType = 'user' | 'agent';
export type StoredAgent = Omit<TCommentAgent, 'visibility'>;
const ZStoredAgent = ZCommentAgent.omit({ visibility: true });

export interface CommentRecord extends StoredJson<CommentJson> {
  apiKeyId: string;
  organizationId: string;
  documentId: string;
  annotationId: string;
  id: string;
  orderKey: string;
  text: string;
  html: string | null;
  fromUserId: string;
  fromUser: TUserRef | null;
  taggedUsers: TUserRef[];
  createdAt: bigint;
  lastUpdated: bigint;
}

export interface ReactionRecord {
  apiKeyId: string;
  organizationId: string;
  documentId: string;
  annotationId: string;
  commentId: string;
  id: string;
  icon: string;
  userId: string;
  fromUser: TUserRef | null;
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

export type FullComment = CommentRecord & { reactions: ReactionRecord[] };
export type FullThread = ThreadRecord & { comments: FullComment[] };

/** The thread columns a write may change, as domain values. */
export type ThreadChanges = Partial<Omit<ThreadRecord, 'apiKeyId' | 'id'>>;

// ── storage encoding ──
// The rows as stored: JSON columns are TEXT.
type ThreadRow = Omit<ThreadRecord, ThreadJson | 'type' | 'sourceType'> & {
  location: string | null;
  assignedTo: string | null;
  customList: string;
  context: string | null;
  fromUser: string;
  agent: string | null;
  type: string;
  sourceType: string;
};
type CommentRow = Omit<CommentRecord, CommentJson> & { fromUser: string; taggedUsers: string };
type ReactionRow = Omit<ReactionRecord, 'fromUser'> & { fromUser: string };

function parse(json: string | null): unknown {
  if (json === null) return null;
  try {
    return JSON.parse(json);
  } catch {
    return null;
  }
}

/** A plain object of the stored one's own keys; `__proto__` (refused on input) is never passed on. */
function objectFrom(value: unknown): Record<string, unknown> | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  return Object.fromEntries(Object.entries(value).filter(([key]) => key !== '__proto__'));
}

function userRefOf(value: unknown): TUserRef | null {
  if (typeof value !== 'object' || value === null) return null;
  const { userId, name, email } = value as Record<string, unknown>;
  if (typeof userId !== 'string') return null;
  return { userId, ...(typeof name === 'string' ? { name } : {}), ...(typeof email === 'string' ? { email } : {}) };
}

function userRefFrom(json: string | null): TUserRef | null {
  return userRefOf(parse(json));
}

function userRefsFrom(json: string): TUserRef[] {
  const value = parse(json);
  if (!Array.isArray(value)) return [];
  return value.map((v) => userRefOf(parse(JSON.stringify(v)))).filter((v): v is TUserRef => v !== null);
}

function stringsFrom(json: string): string[] {
  const value = parse(json);
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

const contextFrom = (json: string | null) => objectFrom(parse(json));

/** The whole block or nothing: a thread never shows half an agent block. */
function agentFrom(json: string | null): StoredAgent | null {
  const parsed = ZStoredAgent.safeParse(parse(json));
  return parsed.success ? parsed.data : null;
}

function threadFrom(row: ThreadRow): ThreadRecord {
  const { location, assignedTo, customList, context, fromUser, agent } = row;
  return withStoredJson(
    {
      ...row,
      location: objectFrom(parse(location)),
      assignedTo: userRefFrom(assignedTo),
      customList: stringsFrom(customList),
      context: contextFrom(context),
      fromUser: userRefFrom(fromUser),
      agent: agentFrom(agent),
      // Unknown values (a hand edit) read as the defaults: the contract knows only these.
      type: row.type === 'suggestion' ? 'suggestion' : 'comment',
      sourceType: row.sourceType === 'agent' ? 'agent' : 'user',
    },
    { location, assignedTo, customList, context, fromUser, agent },
  );
}

function threadRowOf(record: ThreadRecord): ThreadRow {
  return {
    apiKeyId: record.apiKeyId,
    organizationId: record.organizationId,
    documentId: record.documentId,
    id: record.id,
    locationId: record.locationId,
    location: encodeJson(record.location),
    status: record.status,
    priority: record.priority,
    assignedToUserId: record.assignedToUserId,
    assignedTo: encodeJson(record.assignedTo),
    customList: encodeJsonText(record.customList),
    context: encodeJson(record.context),
    restricted: record.restricted,
    fromUserId: record.fromUserId,
    fromUser: encodeJsonText(record.fromUser),
    createdAt: record.createdAt,
    lastUpdated: record.lastUpdated,
    type: record.type,
    sourceType: record.sourceType,
    agentId: record.agentId,
    agent: encodeJson(record.agent),
    membersOnly: record.membersOnly,
  };
}

/** The columns of `changes` in storage form (only those given). */
function threadDataOf(changes: ThreadChanges & { lastUpdated?: bigint }) {
  const { location, assignedTo, customList, context, fromUser, agent, ...plain } = changes;
  return {
    ...plain,
    ...(location !== undefined ? { location: encodeJson(location) } : {}),
    ...(assignedTo !== undefined ? { assignedTo: encodeJson(assignedTo) } : {}),
    ...(customList !== undefined ? { customList: encodeJsonText(customList) } : {}),
    ...(context !== undefined ? { context: encodeJson(context) } : {}),
    ...(fromUser !== undefined ? { fromUser: encodeJsonText(fromUser) } : {}),
    ...(agent !== undefined ? { agent: encodeJson(agent) } : {}),
  };
}

function commentFrom<R extends CommentRow>(row: R): Omit<R, CommentJson> & CommentRecord {
  const { fromUser, taggedUsers } = row;
  return withStoredJson({ ...row, fromUser: userRefFrom(fromUser), taggedUsers: userRefsFrom(taggedUsers) }, { fromUser, taggedUsers });
}

/**
 * New threads with their new comments as a read of them would give them
 * (each row's stored text decoded again, comments in the order written, which
 * is their orderKey order; no reactions yet): a write needs no read after it.
 */
export function asStoredThreads(threads: readonly ThreadRecord[], comments: readonly CommentRecord[]): FullThread[] {
  const commentsOf = new Map<string, FullComment[]>();
  for (const comment of comments) {
    const full = { ...commentFrom(commentRowOf(comment)), reactions: [] };
    const list = commentsOf.get(comment.annotationId);
    if (list) list.push(full);
    else commentsOf.set(comment.annotationId, [full]);
  }
  return threads.map((thread) => ({ ...threadFrom(threadRowOf(thread)), comments: commentsOf.get(thread.id) ?? [] }));
}

function commentRowOf(record: CommentRecord): CommentRow {
  return {
    apiKeyId: record.apiKeyId,
    organizationId: record.organizationId,
    documentId: record.documentId,
    annotationId: record.annotationId,
    id: record.id,
    orderKey: record.orderKey,
    text: record.text,
    html: record.html,
    fromUserId: record.fromUserId,
    fromUser: encodeJsonText(record.fromUser),
    taggedUsers: encodeJsonText(record.taggedUsers),
    createdAt: record.createdAt,
    lastUpdated: record.lastUpdated,
  };
}

const reactionFrom = (row: ReactionRow): ReactionRecord => ({ ...row, fromUser: userRefFrom(row.fromUser) });

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
  type?: ThreadType;
  sourceType?: SourceType;
  agentId?: string;
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
  async function withComments(rows: ThreadRow[]): Promise<FullThread[]> {
    const first = rows[0];
    if (first === undefined) return [];
    const threads = rows.map(threadFrom);
    const { apiKeyId } = first;
    const comments: CommentRecord[] = [];
    const reactions: ReactionRecord[] = [];
    for (const batch of chunks(threads.map((t) => t.id), ID_BATCH)) {
      const where = { apiKeyId, annotationId: { in: batch } };
      comments.push(...(await db.comment.findMany({ where, orderBy: [{ annotationId: 'asc' }, { orderKey: 'asc' }] })).map(commentFrom));
      reactions.push(...(await db.commentReaction.findMany({ where, orderBy: byCreation() })).map(reactionFrom));
    }
    const reactionsOf = new Map<string, ReactionRecord[]>();
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
    findThreadRow: async (key: ThreadKey, id: string): Promise<ThreadRecord | null> => {
      const row = await db.commentAnnotation.findFirst({ where: { ...key, id } });
      return row ? threadFrom(row) : null;
    },

    findComment: async (apiKeyId: string, annotationId: string, id: string): Promise<FullComment | null> => {
      const comment = await db.comment.findUnique({ where: { apiKeyId_annotationId_id: { apiKeyId, annotationId, id } } });
      if (!comment) return null;
      const reactions = await db.commentReaction.findMany({ where: { apiKeyId, annotationId, commentId: id }, orderBy: byCreation() });
      return { ...commentFrom(comment), reactions: reactions.map(reactionFrom) };
    },

    /** Which of these annotation IDs the application already uses (in any document). */
    takenThreadIds: async (apiKeyId: string, ids: string[]) =>
      (await db.commentAnnotation.findMany({ where: { apiKeyId, id: { in: ids } }, select: { id: true } })).map((r) => r.id),

    createThreads: (records: ThreadRecord[]) => insertMany(db, 'CommentAnnotation', records.map(threadRowOf)),

    updateThread: (apiKeyId: string, id: string, changes: ThreadChanges) =>
      db.commentAnnotation.update({ where: { apiKeyId_id: { apiKeyId, id } }, data: threadDataOf(changes) }),

    touchThread: (apiKeyId: string, id: string, at: bigint) =>
      db.commentAnnotation.update({ where: { apiKeyId_id: { apiKeyId, id } }, data: { lastUpdated: at } }),

    deleteThreads: (key: ThreadKey, ids: string[]) => deleteWhere({ ...key, annotationId: { in: ids } }),

    /** One keyset page of threads (their own columns only), in (createdAt, id) order. */
    listThreads: async (q: ThreadQuery, after: Cursor | undefined, take: number): Promise<ThreadRecord[]> =>
      (await db.commentAnnotation.findMany({
        where: {
          apiKeyId: q.apiKeyId,
          organizationId: q.organizationId,
          documentId: { in: q.documentIds },
          ...(q.annotationIds ? { id: { in: q.annotationIds } } : {}),
          ...(q.locationIds ? { locationId: { in: q.locationIds } } : {}),
          ...(q.statusIds ? { status: { in: q.statusIds } } : {}),
          ...(q.type ? { type: q.type } : {}),
          ...(q.sourceType ? { sourceType: q.sourceType } : {}),
          ...(q.agentId ? { agentId: q.agentId } : {}),
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
      })).map(threadFrom),

    /** One agent's threads on a document with one of these statuses (their own columns only). */
    agentThreads: async (key: ThreadKey, agentId: string, statuses: string[]): Promise<ThreadRecord[]> =>
      (await db.commentAnnotation.findMany({ where: { ...key, agentId, status: { in: statuses } }, orderBy: byCreation() })).map(threadFrom),

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

    createComments: (records: CommentRecord[]) => insertMany(db, 'Comment', records.map(commentRowOf)),

    createMentions: (rows: MentionRow[]) => insertMany(db, 'CommentMention', rows),

    replaceMentions: async (apiKeyId: string, annotationId: string, commentId: string, rows: MentionRow[]) => {
      await db.commentMention.deleteMany({ where: { apiKeyId, annotationId, commentId } });
      await insertMany(db, 'CommentMention', rows);
    },

    updateComment: (apiKeyId: string, annotationId: string, id: string, changes: Partial<Pick<CommentRecord, 'text' | 'html' | 'taggedUsers' | 'lastUpdated'>>) => {
      const { taggedUsers, ...plain } = changes;
      const data = { ...plain, ...(taggedUsers !== undefined ? { taggedUsers: encodeJsonText(taggedUsers) } : {}) };
      return db.comment.update({ where: { apiKeyId_annotationId_id: { apiKeyId, annotationId, id } }, data });
    },

    deleteComments: async (apiKeyId: string, annotationId: string, ids: string[]) => {
      const where = { apiKeyId, annotationId, commentId: { in: ids } };
      await db.commentReaction.deleteMany({ where });
      await db.commentMention.deleteMany({ where });
      await db.comment.deleteMany({ where: { apiKeyId, annotationId, id: { in: ids } } });
    },

    // ── reactions ──
    /** Returns the reaction as stored. */
    createReaction: async (record: Omit<ReactionRecord, 'fromUser'> & { fromUser: TUserRef }): Promise<ReactionRecord> => {
      const row: ReactionRow = { ...record, fromUser: encodeJsonText(record.fromUser) };
      await db.commentReaction.create({ data: row });
      return reactionFrom(row);
    },

    findReaction: async (apiKeyId: string, annotationId: string, commentId: string, userId: string, icon: string): Promise<ReactionRecord | null> => {
      const row = await db.commentReaction.findUnique({
        where: { apiKeyId_annotationId_commentId_userId_icon: { apiKeyId, annotationId, commentId, userId, icon } },
      });
      return row ? reactionFrom(row) : null;
    },

    deleteReaction: (apiKeyId: string, id: string) => db.commentReaction.delete({ where: { apiKeyId_id: { apiKeyId, id } } }),

    // ── read marks ──
    /** New threads have no marks yet: one statement for all of them. */
    createReadMarks: (rows: (ThreadKey & { annotationId: string; userId: string; readAt: bigint })[]) =>
      insertMany(db, 'CommentReadMark', rows),

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

    /** The threads hidden from some readers (see ThreadRecord.restricted), each with its audience and whether it is unread for `userId`. */
    async restrictedThreads(key: { apiKeyId: string; organizationId: string }, documentIds: string[], userId: string, statusIds: string[] | undefined) {
      const { sql, params } = countSql(db, key, documentIds, userId, statusIds, 'restricted');
      const rows = await db.$queryRawUnsafe<{ documentId: string; context: string | null; membersOnly: number | bigint | boolean; unread: number | bigint | boolean }[]>(sql, ...params);
      const truthy = (v: number | bigint | boolean) => Number(v) === 1 || v === true;
      return rows.map((r) => ({ documentId: r.documentId, context: contextFrom(r.context), membersOnly: truthy(r.membersOnly), unread: truthy(r.unread) }));
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

    async commentsOfThreads(apiKeyId: string, ids: string[]): Promise<{ annotationId: string; id: string; taggedUsers: TUserRef[] }[]> {
      const rows: { annotationId: string; id: string; taggedUsers: TUserRef[] }[] = [];
      for (const batch of chunks(ids, ID_BATCH)) {
        const found = await db.comment.findMany({ where: { apiKeyId, annotationId: { in: batch } }, select: { annotationId: true, id: true, taggedUsers: true } });
        rows.push(...found.map((r) => ({ annotationId: r.annotationId, id: r.id, taggedUsers: userRefsFrom(r.taggedUsers) })));
      }
      return rows;
    },

    setTaggedUsers: (apiKeyId: string, annotationId: string, id: string, taggedUsers: TUserRef[]) =>
      db.comment.update({ where: { apiKeyId_annotationId_id: { apiKeyId, annotationId, id } }, data: { taggedUsers: encodeJsonText(taggedUsers) } }),

    anonymizeThreadAuthor: (apiKeyId: string, userId: string, anonymous: TUserRef) =>
      db.commentAnnotation.updateMany({ where: { apiKeyId, fromUserId: userId }, data: { fromUserId: anonymous.userId, fromUser: encodeJsonText(anonymous) } }),

    unassign: (apiKeyId: string, userId: string) =>
      db.commentAnnotation.updateMany({ where: { apiKeyId, assignedToUserId: userId }, data: { assignedToUserId: null, assignedTo: null } }),

    // ── user data ──
    /** Comments a user wrote or is mentioned in, in one organization, in (createdAt, orderKey) order. */
    userComments: async (apiKeyId: string, organizationId: string, userId: string, after: Cursor | undefined, take: number): Promise<FullComment[]> =>
      (await db.comment.findMany({
        where: {
          apiKeyId,
          organizationId,
          AND: [{ OR: [{ fromUserId: userId }, { mentions: { some: { userId } } }] }, afterMs(after, { id: 'orderKey' })],
        },
        include: { reactions: { orderBy: byCreation() } },
        orderBy: [{ createdAt: 'asc' }, { orderKey: 'asc' }],
        take,
      })).map(({ reactions, ...comment }) => ({ ...commentFrom(comment), reactions: reactions.map(reactionFrom) })),

    /** Reactions a user made, in one organization, in (createdAt, id) order. */
    userReactions: async (apiKeyId: string, organizationId: string, userId: string, after: Cursor | undefined, take: number): Promise<ReactionRecord[]> =>
      (await db.commentReaction.findMany({
        where: { apiKeyId, organizationId, userId, ...afterMs(after) },
        orderBy: byCreation(),
        take,
      })).map(reactionFrom),
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
  const { params, bind } = rawParams(db);
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
      : `SELECT a."documentId" AS "documentId", a."context" AS "context", a."membersOnly" AS "membersOnly", ${unread} AS "unread"
         FROM "CommentAnnotation" a WHERE ${where} AND a."restricted" = true`;
  return { sql, params };
}
