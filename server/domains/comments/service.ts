import type {
  addCommentAnnotations,
  deleteCommentAnnotations,
  getCommentAnnotations,
  getCommentAnnotationsCount,
  updateCommentAnnotations,
} from '../../../contract/comments/comment-annotations.js';
import type { addComments, deleteComments, getComments, updateComment } from '../../../contract/comments/comments.js';
import { MAX_COMMENTS_PER_THREAD } from '../../../contract/comments/inputs.js';
import type { addReaction, deleteReaction } from '../../../contract/comments/reactions.js';
import type { TComment, TCommentAnnotation, TReaction } from '../../../contract/comments/schemas.js';
import type { TUserRef } from '../../../contract/common/content.js';
import type { DataOf } from '../../../contract/common/envelope.js';
import { createdOnce } from '../../db/errors.js';
import { creationCursor } from '../../db/keyset.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import { alreadyExists, failedPrecondition, notFound } from '../../lib/app-error.js';
import type { Clock } from '../../lib/clock.js';
import { idMap } from '../../lib/id-map.js';
import type { Ids } from '../../lib/ids.js';
import type { PageTokens } from '../../lib/page-token.js';
import { pageScope } from '../../lib/page-scope.js';
import { threadVisible, type AccessChecks, type DocumentAccess } from '../access/checks.js';
import type { DocumentsRepo } from '../access/repos/documents.js';
import type { OrganizationsRepo } from '../access/repos/organizations.js';
import { differsFromStored, type CommentRecord, type CommentsRepo, type FullThread, type MentionRow, type ThreadChanges, type ThreadKey, type ThreadRecord } from './repo.js';
import { restricts, type ThreadPaths } from './thread-paths.js';
import { toAnnotation, toComment, toReaction } from './shapes.js';
import type { Caller } from '../../platform/caller.js';

export interface CommentsDeps {
  repo: CommentsRepo;
  organizations: Pick<OrganizationsRepo, 'findOrganization'>;
  documents: Pick<DocumentsRepo, 'findDocument'>;
  checks: Pick<AccessChecks, 'onDocument'>;
  uow: UnitOfWork;
  clock: Clock;
  ids: Ids;
  pageTokens: PageTokens;
  /** Opening, writing in and deleting threads: the paths agent suggestions take too (thread-paths.ts). */
  paths: ThreadPaths;
}

/**
 * Comment threads, comments and reactions: the rules of the write side and
 * the reads made for a user. Every write is one unit of work that publishes
 * its events (contract/events.ts) in the same transaction.
 */
export function createCommentsService(deps: CommentsDeps) {
  const { repo, organizations, documents, checks, uow, clock, ids, pageTokens, paths } = deps;
  const { userResolver, publish, commentRow, mentionRows, openThreads, removeThreads } = paths;

  /** Full threads in the order of `ids` (IDs without a thread are left out). */
  async function threadsInOrder(apiKeyId: string, idList: string[]): Promise<TCommentAnnotation[]> {
    if (idList.length === 0) return [];
    const byId = new Map((await repo.loadThreads(apiKeyId, idList)).map((t) => [t.id, t]));
    return idList.flatMap((id) => {
      const row = byId.get(id);
      return row ? [toAnnotation(row)] : [];
    });
  }

  async function threadOrThrow(key: ThreadKey, annotationId: string): Promise<FullThread> {
    const [thread] = await repo.findThreads(key, [annotationId]);
    if (!thread) throw notFound(`comment annotation ${annotationId} does not exist in document ${key.documentId}`);
    return thread;
  }

  /** The thread's own row, locked for the write (see repo.lockThreads): for writes that do not need its comments. */
  async function threadRowOrThrow(key: ThreadKey, annotationId: string): Promise<ThreadRecord> {
    await repo.lockThreads(key, [annotationId]);
    const thread = await repo.findThreadRow(key, annotationId);
    if (!thread) throw notFound(`comment annotation ${annotationId} does not exist in document ${key.documentId}`);
    return thread;
  }

  const missingComment = (annotationId: string, commentId: string) => notFound(`comment ${commentId} does not exist in comment annotation ${annotationId}`);

  function commentOrThrow(thread: FullThread, commentId: string) {
    const comment = thread.comments.find((c) => c.id === commentId);
    if (!comment) throw missingComment(thread.id, commentId);
    return comment;
  }

  async function commentRowOrThrow(key: ThreadKey, annotationId: string, commentId: string) {
    await threadRowOrThrow(key, annotationId);
    const comment = await repo.findComment(key.apiKeyId, annotationId, commentId);
    if (!comment) throw missingComment(annotationId, commentId);
    return comment;
  }

  async function reloaded(apiKeyId: string, annotationId: string): Promise<TCommentAnnotation> {
    const [thread] = await threadsInOrder(apiKeyId, [annotationId]);
    if (!thread) throw new Error(`comment annotation ${annotationId} vanished inside its own unit of work`);
    return thread;
  }

  const commentIn = (thread: TCommentAnnotation, commentId: string): TComment => {
    const comment = thread.comments.find((c) => c.commentId === commentId);
    if (!comment) throw new Error(`comment ${commentId} vanished inside its own unit of work`);
    return comment;
  };

  async function organizationOrThrow(apiKeyId: string, organizationId: string) {
    if (!(await organizations.findOrganization(apiKeyId, organizationId))) throw notFound(`organization ${organizationId} does not exist`);
  }

  /** The access of `userId` on each of these documents it can read (absent: it cannot). */
  async function readable(app: Caller, organizationId: string, documentIds: string[], userId: string): Promise<Map<string, DocumentAccess>> {
    const readers = new Map<string, DocumentAccess>();
    for (const documentId of new Set(documentIds)) {
      const granted = await checks.onDocument(app.apiKeyId, organizationId, documentId, userId);
      if (granted) readers.set(documentId, granted);
    }
    return readers;
  }

  return {
    async addCommentAnnotations(app: Caller, input: DataOf<typeof addCommentAnnotations>): Promise<TCommentAnnotation[]> {
      return uow.run(() => openThreads(app, input.organizationId, input.documentId, input.commentAnnotations));
    },

    async getCommentAnnotations(app: Caller, input: DataOf<typeof getCommentAnnotations>): Promise<{ items: TCommentAnnotation[]; pageToken: string | null }> {
      await organizationOrThrow(app.apiKeyId, input.organizationId);
      if (input.documentId !== undefined && !(await documents.findDocument(app.apiKeyId, input.organizationId, input.documentId))) {
        throw notFound(`document ${input.documentId} does not exist in organization ${input.organizationId}`);
      }
      let documentIds = [...new Set(input.documentIds ?? [input.documentId!])];
      // A read made for a user: only documents they can read, and threads whose context their fields match.
      let readers: Map<string, DocumentAccess> | undefined;
      if (input.userId !== undefined) {
        readers = await readable(app, input.organizationId, documentIds, input.userId);
        documentIds = documentIds.filter((id) => readers!.has(id));
      }
      const visible = (row: ThreadRecord) => {
        const reader = readers?.get(row.documentId);
        return readers === undefined || !row.restricted || (reader !== undefined && threadVisible(row, reader));
      };
      const order = input.order ?? 'desc';
      const query = {
        apiKeyId: app.apiKeyId,
        organizationId: input.organizationId,
        documentIds,
        annotationIds: input.annotationIds,
        locationIds: input.locationIds,
        statusIds: input.statusIds,
        involvedUserId: input.userId,
        type: input.type,
        sourceType: input.sourceType,
        agentId: input.agentId,
        order,
      };
      const { pageSize: _size, pageToken: _token, ...filters } = input;
      const scope = pageScope('commentAnnotations', app.apiKeyId, filters, order);
      const page = await pageTokens.page(
        scope,
        input,
        async (after, take) => {
          if (documentIds.length === 0) return [];
          // Threads the user may not see are skipped: keep reading until the page is full or the list ends.
          const out: ThreadRecord[] = [];
          for (let cursor = after; ; ) {
            const rows = await repo.listThreads(query, cursor, take);
            for (const row of rows) if (visible(row) && out.length < take) out.push(row);
            const last = rows[rows.length - 1];
            if (out.length >= take || rows.length < take || last === undefined) return out;
            cursor = creationCursor(last);
          }
        },
        creationCursor,
      );
      return { items: await threadsInOrder(app.apiKeyId, page.items.map((r) => r.id)), pageToken: page.pageToken };
    },

    async updateCommentAnnotations(app: Caller, input: DataOf<typeof updateCommentAnnotations>): Promise<TCommentAnnotation[]> {
      const key = { apiKeyId: app.apiKeyId, organizationId: input.organizationId, documentId: input.documentId };
      return uow.run(async () => {
        await repo.lockThreads(key, input.annotationIds);
        const rows = new Map((await repo.findThreads(key, input.annotationIds)).map((t) => [t.id, t]));
        const missing = input.annotationIds.find((id) => !rows.has(id));
        if (missing !== undefined) throw notFound(`comment annotation ${missing} does not exist in document ${input.documentId}`);
        const changes = input.updatedData ?? {};
        const user = await userResolver(app.apiKeyId, [input.actionUser, changes.assignedTo]);
        const actor = user(input.actionUser);
        const at = BigInt(clock.nowMs());

        const changed: FullThread[] = [];
        for (const id of input.annotationIds) {
          const row = rows.get(id)!;
          const data: ThreadChanges = {};
          if (changes.status !== undefined && changes.status !== row.status) data.status = changes.status;
          if (changes.priority !== undefined && changes.priority !== row.priority) data.priority = changes.priority;
          if (changes.assignedTo !== undefined) {
            const next = changes.assignedTo === null ? null : user(changes.assignedTo);
            if (differsFromStored(row, 'assignedTo', next)) Object.assign(data, { assignedTo: next, assignedToUserId: next?.userId ?? null });
          }
          if (changes.customList !== undefined && differsFromStored(row, 'customList', changes.customList)) data.customList = changes.customList;
          if (changes.context !== undefined) {
            if (differsFromStored(row, 'context', changes.context)) {
              Object.assign(data, { context: changes.context, restricted: restricts(changes.context) || row.membersOnly });
            }
          }
          if (changes.location !== undefined) {
            if (differsFromStored(row, 'location', changes.location)) Object.assign(data, { location: changes.location, locationId: changes.location?.locationId ?? null });
          }
          if (Object.keys(data).length === 0) continue;
          await repo.updateThread(app.apiKeyId, id, { ...data, lastUpdated: at });
          changed.push(row);
        }
        if (input.markAs === 'read') {
          for (const id of input.annotationIds) await repo.markRead(key, id, actor.userId, at);
        } else if (input.markAs === 'unread') {
          await repo.removeReadMarks(key, input.annotationIds, actor.userId);
        }

        const saved = await threadsInOrder(app.apiKeyId, input.annotationIds);
        const byId = new Map(saved.map((t) => [t.annotationId, t]));
        for (const before of changed) {
          const annotation = byId.get(before.id)!;
          if (annotation.status !== before.status) {
            await publish(app, 'comment_annotation.status_change', annotation, actor, { annotation, previousStatus: before.status, status: annotation.status });
          }
          if ((annotation.assignedTo?.userId ?? null) !== before.assignedToUserId) {
            await publish(app, 'comment_annotation.assign', annotation, actor, {
              annotation,
              previousAssignee: before.assignedTo,
              assignedTo: annotation.assignedTo,
            });
          }
          if (annotation.priority !== before.priority) {
            await publish(app, 'comment_annotation.priority_change', annotation, actor, {
              annotation,
              previousPriority: before.priority,
              priority: annotation.priority,
            });
          }
        }
        return saved;
      });
    },

    async deleteCommentAnnotations(app: Caller, input: DataOf<typeof deleteCommentAnnotations>): Promise<void> {
      const key = { apiKeyId: app.apiKeyId, organizationId: input.organizationId, documentId: input.documentId };
      await uow.run(async () => {
        await repo.lockThreads(key, input.annotationIds);
        const rows = new Map((await repo.findThreads(key, input.annotationIds)).map((t) => [t.id, t]));
        const missing = input.annotationIds.find((id) => !rows.has(id));
        if (missing !== undefined) throw notFound(`comment annotation ${missing} does not exist in document ${input.documentId}`);
        const actor = (await userResolver(app.apiKeyId, [input.actionUser]))(input.actionUser);
        await removeThreads(app, key, input.annotationIds.map((id) => rows.get(id)!), () => actor);
      });
    },

    async getCommentAnnotationsCount(app: Caller, input: DataOf<typeof getCommentAnnotationsCount>) {
      await organizationOrThrow(app.apiKeyId, input.organizationId);
      const counts = idMap<{ total: number; unread: number }>();
      for (const documentId of input.documentIds) counts[documentId] = { total: 0, unread: 0 };
      const readers = await readable(app, input.organizationId, input.documentIds, input.userId);
      const documentIds = [...readers.keys()];
      if (documentIds.length === 0) return counts;
      const scope = { apiKeyId: app.apiKeyId, organizationId: input.organizationId };
      for (const row of await repo.countOpenThreads(scope, documentIds, input.userId, input.statusIds)) {
        counts[row.documentId] = { total: row.total, unread: row.unread };
      }
      for (const row of await repo.restrictedThreads(scope, documentIds, input.userId, input.statusIds)) {
        const reader = readers.get(row.documentId);
        if (reader === undefined || !threadVisible(row, reader)) continue;
        const count = counts[row.documentId]!;
        count.total += 1;
        if (row.unread) count.unread += 1;
      }
      return counts;
    },

    // ── comments ──
    async addComments(app: Caller, input: DataOf<typeof addComments>): Promise<TComment[]> {
      const key = { apiKeyId: app.apiKeyId, organizationId: input.organizationId, documentId: input.documentId };
      return uow.run(async () => {
        await threadRowOrThrow(key, input.annotationId);
        const given = input.commentData.flatMap((c) => (c.commentId !== undefined ? [c.commentId] : []));
        const [taken] = given.length > 0 ? await repo.takenCommentIds(app.apiKeyId, input.annotationId, given) : [];
        if (taken !== undefined) throw alreadyExists(`comment ${taken} already exists in comment annotation ${input.annotationId}`);
        if ((await repo.countComments(app.apiKeyId, input.annotationId)) + input.commentData.length > MAX_COMMENTS_PER_THREAD) {
          throw failedPrecondition(`comment annotation ${input.annotationId} would have more than ${MAX_COMMENTS_PER_THREAD} comments`);
        }
        const user = await userResolver(app.apiKeyId, input.commentData.flatMap((c) => [c.from, ...(c.taggedUserContacts ?? [])]));
        const at = BigInt(clock.nowMs());
        const rows: CommentRecord[] = [];
        const mentions: MentionRow[] = [];
        const authors = new Map<string, TUserRef>();
        for (const c of input.commentData) {
          const author = user(c.from);
          const tagged = (c.taggedUserContacts ?? []).map(user);
          const row = commentRow(key, input.annotationId, c, author, tagged, at);
          rows.push(row);
          mentions.push(...mentionRows(key, row.annotationId, row.id, tagged));
          authors.set(row.id, author);
        }
        await createdOnce(`a comment of this request in comment annotation ${input.annotationId}`, () => repo.createComments(rows));
        await repo.createMentions(mentions);
        await repo.touchThread(app.apiKeyId, input.annotationId, at);
        for (const userId of new Set(rows.map((r) => r.fromUserId))) await repo.markRead(key, input.annotationId, userId, at);

        const annotation = await reloaded(app.apiKeyId, input.annotationId);
        const added = rows.map((r) => commentIn(annotation, r.id));
        for (const comment of added) await publish(app, 'comment.add', annotation, authors.get(comment.commentId)!, { annotation, comment });
        return added;
      });
    },

    async getComments(app: Caller, input: DataOf<typeof getComments>): Promise<TComment[]> {
      const key = { apiKeyId: app.apiKeyId, organizationId: input.organizationId, documentId: input.documentId };
      const thread = await threadOrThrow(key, input.annotationId);
      const wanted = input.commentIds ? new Set(input.commentIds) : undefined;
      return thread.comments.filter((c) => wanted === undefined || wanted.has(c.id)).map(toComment);
    },

    async updateComment(app: Caller, input: DataOf<typeof updateComment>): Promise<TComment> {
      const key = { apiKeyId: app.apiKeyId, organizationId: input.organizationId, documentId: input.documentId };
      return uow.run(async () => {
        const before = await commentRowOrThrow(key, input.annotationId, input.commentId);
        const changes = input.updatedData;
        const user = await userResolver(app.apiKeyId, [input.actionUser, ...(changes.taggedUserContacts ?? [])]);
        const at = BigInt(clock.nowMs());
        const data: { text?: string; html?: string | null; taggedUsers?: TUserRef[] } = {};
        if (changes.commentText !== undefined && changes.commentText !== before.text) data.text = changes.commentText;
        if (changes.commentHtml !== undefined && changes.commentHtml !== before.html) data.html = changes.commentHtml;
        let tagged: TUserRef[] | undefined;
        if (changes.taggedUserContacts !== undefined) {
          tagged = changes.taggedUserContacts.map(user);
          if (differsFromStored(before, 'taggedUsers', tagged)) data.taggedUsers = tagged;
          else tagged = undefined;
        }
        if (Object.keys(data).length === 0) return toComment(before);

        await repo.updateComment(app.apiKeyId, input.annotationId, input.commentId, { ...data, lastUpdated: at });
        if (tagged !== undefined) {
          await repo.replaceMentions(app.apiKeyId, input.annotationId, input.commentId, mentionRows(key, input.annotationId, input.commentId, tagged));
        }
        await repo.touchThread(app.apiKeyId, input.annotationId, at);
        const annotation = await reloaded(app.apiKeyId, input.annotationId);
        const comment = commentIn(annotation, input.commentId);
        await publish(app, 'comment.update', annotation, user(input.actionUser), { annotation, comment, previousCommentText: before.text });
        return comment;
      });
    },

    async deleteComments(app: Caller, input: DataOf<typeof deleteComments>): Promise<void> {
      const key = { apiKeyId: app.apiKeyId, organizationId: input.organizationId, documentId: input.documentId };
      await uow.run(async () => {
        await repo.lockThreads(key, [input.annotationId]);
        const thread = await threadOrThrow(key, input.annotationId);
        for (const id of input.commentIds) commentOrThrow(thread, id);
        const actor = (await userResolver(app.apiKeyId, [input.actionUser]))(input.actionUser);
        const before = toAnnotation(thread);
        const doomed = new Set(input.commentIds);
        const deleted = before.comments.filter((c) => doomed.has(c.commentId));
        const at = clock.nowMs();
        await repo.deleteComments(app.apiKeyId, input.annotationId, input.commentIds);
        // A thread is never left without comments.
        const emptied = deleted.length === before.comments.length;
        let after: TCommentAnnotation;
        if (emptied) {
          await repo.deleteThreads(key, [input.annotationId]);
          after = { ...before, comments: [], lastUpdated: at };
        } else {
          await repo.touchThread(app.apiKeyId, input.annotationId, BigInt(at));
          after = await reloaded(app.apiKeyId, input.annotationId);
        }
        for (const comment of deleted) await publish(app, 'comment.delete', after, actor, { annotation: after, comment });
        if (emptied) await publish(app, 'comment_annotation.delete', before, actor, { annotation: before });
      });
    },

    // ── reactions ──
    async addReaction(app: Caller, input: DataOf<typeof addReaction>): Promise<TReaction> {
      const key = { apiKeyId: app.apiKeyId, organizationId: input.organizationId, documentId: input.documentId };
      return uow.run(async () => {
        await commentRowOrThrow(key, input.annotationId, input.commentId);
        const from = (await userResolver(app.apiKeyId, [input.from]))(input.from);
        const what = `reaction ${input.icon} of user ${from.userId} on comment ${input.commentId}`;
        if (await repo.findReaction(app.apiKeyId, input.annotationId, input.commentId, from.userId, input.icon)) throw alreadyExists(`${what} already exists`);
        const at = BigInt(clock.nowMs());
        const stored = {
          ...key,
          annotationId: input.annotationId,
          commentId: input.commentId,
          id: ids.next('rct'),
          icon: input.icon,
          userId: from.userId,
          fromUser: from,
          createdAt: at,
        };
        const row = await createdOnce(what, () => repo.createReaction(stored));
        await repo.touchThread(app.apiKeyId, input.annotationId, at);
        const annotation = await reloaded(app.apiKeyId, input.annotationId);
        const reaction = toReaction(row);
        await publish(app, 'comment.reaction_add', annotation, from, { annotation, comment: commentIn(annotation, input.commentId), reaction });
        return reaction;
      });
    },

    async deleteReaction(app: Caller, input: DataOf<typeof deleteReaction>): Promise<void> {
      const key = { apiKeyId: app.apiKeyId, organizationId: input.organizationId, documentId: input.documentId };
      await uow.run(async () => {
        await commentRowOrThrow(key, input.annotationId, input.commentId);
        const from = (await userResolver(app.apiKeyId, [input.from]))(input.from);
        const row = await repo.findReaction(app.apiKeyId, input.annotationId, input.commentId, from.userId, input.icon);
        if (!row) throw notFound(`reaction ${input.icon} of user ${from.userId} does not exist on comment ${input.commentId}`);
        await repo.deleteReaction(app.apiKeyId, row.id);
        await repo.touchThread(app.apiKeyId, input.annotationId, BigInt(clock.nowMs()));
        const annotation = await reloaded(app.apiKeyId, input.annotationId);
        await publish(app, 'comment.reaction_delete', annotation, from, {
          annotation,
          comment: commentIn(annotation, input.commentId),
          reaction: toReaction(row),
        });
      });
    },
  };
}

export type CommentsService = ReturnType<typeof createCommentsService>;
