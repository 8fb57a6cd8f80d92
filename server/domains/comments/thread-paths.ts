import type { addCommentAnnotations } from '../../../contract/comments/comment-annotations.js';
import type { TCommentAnnotation } from '../../../contract/comments/schemas.js';
import type { TUserRef } from '../../../contract/common/content.js';
import type { DataOf } from '../../../contract/common/envelope.js';
import type { EventPayload, EventType } from '../../../contract/events.js';
import { createdOnce } from '../../db/errors.js';
import { alreadyExists } from '../../lib/app-error.js';
import type { Clock } from '../../lib/clock.js';
import type { Ids } from '../../lib/ids.js';
import type { Caller } from '../../platform/caller.js';
import type { EventBus } from '../../platform/events.js';
import { contextVisible } from '../access/checks.js';
import type { EnsureHeldDocument } from '../access/open-document.js';
import type { UsersRepo } from '../access/repos/users.js';
import { asStoredThreads, type CommentRecord, type CommentsRepo, type FullThread, type MentionRow, type ThreadKey, type ThreadRecord } from './repo.js';
import { toAnnotation } from './shapes.js';

/** A thread with a context that hides it from readers without matching access fields (see contextVisible). */
export const restricts = (context: Record<string, unknown> | null | undefined) => context !== null && context !== undefined && !contextVisible(context, []);

/** The columns that set an agent run's thread apart; a user's thread has these. */
export type ThreadOrigin = Pick<ThreadRecord, 'type' | 'sourceType' | 'agentId' | 'agent' | 'membersOnly'>;
export const USER_THREAD: ThreadOrigin = { type: 'comment', sourceType: 'user', agentId: null, agent: null, membersOnly: false };

/** A thread to open: as Add Comment Annotations takes it, and where it came from. */
export type NewThread = DataOf<typeof addCommentAnnotations>['commentAnnotations'][number] & { origin?: ThreadOrigin };

/**
 * The write paths every way of opening, writing in and deleting threads goes
 * through (the HTTP operations of service.ts and an agent run's suggestions
 * of agent-suggestions.ts), so their rows, read marks and events are the same
 * whoever writes. Each runs inside its caller's unit of work.
 */
export function createThreadPaths(deps: {
  repo: CommentsRepo;
  users: Pick<UsersRepo, 'findUsers'>;
  ensureHeldDocument: EnsureHeldDocument;
  events: EventBus;
  clock: Clock;
  ids: Ids;
}) {
  const { repo, users, ensureHeldDocument, events, clock, ids } = deps;

  /**
   * User references as given, with `name` and `email` filled from the user
   * record when the reference leaves them out (one query per request).
   */
  async function userResolver(apiKeyId: string, refs: (TUserRef | null | undefined)[]): Promise<(ref: TUserRef) => TUserRef> {
    const lacking = [...new Set(refs.filter((r): r is TUserRef => !!r && (r.name === undefined || r.email === undefined)).map((r) => r.userId))];
    const records = new Map((lacking.length > 0 ? await users.findUsers(apiKeyId, lacking) : []).map((u) => [u.id, u]));
    return (ref) => {
      const record = records.get(ref.userId);
      const name = ref.name ?? (record?.name || undefined);
      const email = ref.email ?? (record?.email || undefined);
      return { userId: ref.userId, ...(name !== undefined ? { name } : {}), ...(email !== undefined ? { email } : {}) };
    };
  }

  function publish<T extends EventType>(app: Caller, type: T, annotation: TCommentAnnotation, actor: TUserRef, payload: EventPayload<T>) {
    return events.publish({ type, apiKeyId: app.apiKeyId, organizationId: annotation.organizationId, documentId: annotation.documentId, actor, payload });
  }

  function commentRow(key: ThreadKey, annotationId: string, input: { commentId?: string; commentText: string; commentHtml?: string | null }, author: TUserRef, mentions: TUserRef[], at: bigint): CommentRecord {
    return {
      ...key,
      annotationId,
      id: input.commentId ?? ids.next('cmt'),
      orderKey: ids.next('cmo'),
      text: input.commentText,
      html: input.commentHtml ?? null,
      fromUserId: author.userId,
      fromUser: author,
      taggedUsers: mentions,
      createdAt: at,
      lastUpdated: at,
    };
  }

  function mentionRows(key: ThreadKey, annotationId: string, commentId: string, mentions: TUserRef[]): MentionRow[] {
    return [...new Set(mentions.map((m) => m.userId))].map((userId) => ({ ...key, annotationId, commentId, userId }));
  }

  /**
   * Opens threads on one document, inside the caller's unit of work: the one
   * path of Add Comment Annotations and of an agent run's suggestions, so both
   * write the same rows and publish the same `comment_annotation.add` events
   * (notifications, activity and webhooks follow from those).
   */
  async function openThreads(app: Caller, organizationId: string, documentId: string, annotations: NewThread[]): Promise<TCommentAnnotation[]> {
    const key = { apiKeyId: app.apiKeyId, organizationId, documentId };
    // As Add Permissions: a client app creates a document by opening it.
    await ensureHeldDocument(app.apiKeyId, organizationId, documentId);
    const given = annotations.flatMap((a) => (a.annotationId !== undefined ? [a.annotationId] : []));
    const [taken] = given.length > 0 ? await repo.takenThreadIds(app.apiKeyId, given) : [];
    if (taken !== undefined) throw alreadyExists(`comment annotation ${taken} already exists`);

    const user = await userResolver(
      app.apiKeyId,
      annotations.flatMap((a) => [a.from, a.assignedTo, ...a.commentData.flatMap((c) => [c.from, ...(c.taggedUserContacts ?? [])])]),
    );
    const at = BigInt(clock.nowMs());
    const threads: ThreadRecord[] = [];
    const comments: CommentRecord[] = [];
    const mentions: MentionRow[] = [];
    const marks: (ThreadKey & { annotationId: string; userId: string; readAt: bigint })[] = [];
    for (const a of annotations) {
      const id = a.annotationId ?? ids.next('ann');
      const from = user(a.from);
      const assignedTo = a.assignedTo ? user(a.assignedTo) : null;
      const origin = a.origin ?? USER_THREAD;
      threads.push({
        ...key,
        id,
        locationId: a.location?.locationId ?? null,
        location: a.location ?? null,
        status: a.status ?? 'open',
        priority: a.priority ?? null,
        assignedToUserId: assignedTo?.userId ?? null,
        assignedTo,
        customList: a.customList ?? [],
        context: a.context ?? null,
        restricted: restricts(a.context) || origin.membersOnly,
        fromUserId: from.userId,
        fromUser: from,
        createdAt: at,
        lastUpdated: at,
        ...origin,
      });
      // Whoever writes in a thread has read it.
      const readers = new Set([from.userId]);
      for (const c of a.commentData) {
        const author = user(c.from ?? a.from);
        const tagged = (c.taggedUserContacts ?? []).map(user);
        const row = commentRow(key, id, c, author, tagged, at);
        readers.add(author.userId);
        comments.push(row);
        mentions.push(...mentionRows(key, row.annotationId, row.id, tagged));
      }
      for (const userId of readers) marks.push({ ...key, annotationId: id, userId, readAt: at });
    }
    await createdOnce('a comment annotation of this request', () => repo.createThreads(threads));
    await repo.createComments(comments);
    await repo.createMentions(mentions);
    await repo.createReadMarks(marks);

    const saved = asStoredThreads(threads, comments).map(toAnnotation);
    // The first comments are part of the thread's event: no comment.add for them.
    for (const annotation of saved) await publish(app, 'comment_annotation.add', annotation, annotation.from, { annotation });
    return saved;
  }

  /**
   * Deletes threads already read and locked in the caller's unit of work, and
   * publishes one `comment_annotation.delete` per thread: the one path of
   * Delete Comment Annotations and of clearing an agent's open suggestions.
   */
  async function removeThreads(app: Caller, key: ThreadKey, rows: FullThread[], actorOf: (row: FullThread) => TUserRef): Promise<void> {
    if (rows.length === 0) return;
    await repo.deleteThreads(key, rows.map((r) => r.id));
    for (const row of rows) {
      const annotation = toAnnotation(row);
      await publish(app, 'comment_annotation.delete', annotation, actorOf(row), { annotation });
    }
  }

  return { userResolver, publish, commentRow, mentionRows, openThreads, removeThreads };
}

export type ThreadPaths = ReturnType<typeof createThreadPaths>;
