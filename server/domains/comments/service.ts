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
import type { EventPayload, EventType } from '../../../contract/events.js';
import { createdOnce } from '../../db/errors.js';
import { creationCursor } from '../../db/keyset.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import { alreadyExists, failedPrecondition, notFound } from '../../lib/app-error.js';
import type { Clock } from '../../lib/clock.js';
import { idMap } from '../../lib/id-map.js';
import type { Ids } from '../../lib/ids.js';
import type { PageTokens } from '../../lib/page-token.js';
import { pageScope } from '../../lib/page-scope.js';
import type { EventBus } from '../../platform/events.js';
import { contextVisible, threadVisible, type AccessChecks, type DocumentAccess } from '../access/checks.js';
import type { EnsureHeldDocument } from '../access/open-document.js';
import type { DocumentsRepo } from '../access/repos/documents.js';
import type { OrganizationsRepo } from '../access/repos/organizations.js';
import type { UsersRepo } from '../access/repos/users.js';
import { asStoredThreads, differsFromStored, type CommentRecord, type CommentsRepo, type FullThread, type MentionRow, type ThreadChanges, type ThreadKey, type ThreadRecord } from './repo.js';
import { suggestionComment } from './suggestion-text.js';
import { toAnnotation, toComment, toReaction } from './shapes.js';
import type { Caller } from '../../platform/caller.js';

export interface CommentsDeps {
  repo: CommentsRepo;
  organizations: Pick<OrganizationsRepo, 'findOrganization'>;
  documents: Pick<DocumentsRepo, 'findDocument'>;
  users: Pick<UsersRepo, 'findUsers'>;
  ensureHeldDocument: EnsureHeldDocument;
  checks: Pick<AccessChecks, 'onDocument'>;
  uow: UnitOfWork;
  events: EventBus;
  clock: Clock;
  ids: Ids;
  pageTokens: PageTokens;
}

/** A thread with a context that hides it from readers without matching access fields (see contextVisible). */
const restricts = (context: Record<string, unknown> | null | undefined) => context !== null && context !== undefined && !contextVisible(context, []);

/** The columns that set an agent run's thread apart; a user's thread has these. */
type ThreadOrigin = Pick<ThreadRecord, 'type' | 'sourceType' | 'agentId' | 'agent' | 'membersOnly'>;
const USER_THREAD: ThreadOrigin = { type: 'comment', sourceType: 'user', agentId: null, agent: null, membersOnly: false };

/** A thread to open: as Add Comment Annotations takes it, and where it came from. */
type NewThread = DataOf<typeof addCommentAnnotations>['commentAnnotations'][number] & { origin?: ThreadOrigin };

/**
 * The statuses under which an agent's suggestion is still untouched, so a
 * later run of the agent may replace it. The comments domain knows `open`,
 * `in_progress`, `resolved` and custom values (an application's `accepted`
 * or `rejected` among them): anything but `open` means someone acted on it.
 */
export const OPEN_SUGGESTION_STATUSES = ['open'];

/** One finding of an agent run, as the runner hands it over. */
export interface AgentFindingInput {
  findingId: string;
  url: string;
  title: string;
  description: string;
  severity: string;
  findingType: 'text' | 'pin' | 'page';
  issueType: string;
  confidence: number;
  suggestion: string;
  htmlSelector: string;
  targetText: string;
  occurrence: number;
}

export interface AddAgentSuggestionsInput {
  organizationId: string;
  documentId: string;
  /** `private`: reads made for a user show the threads to the organization's members only; `public`: to anyone who can read the document. */
  visibility: 'private' | 'public';
  /** Who the threads are from: the run's ranBy user, or one standing for the agent (e.g. `agent:<agentId>`). */
  author: TUserRef;
  agent: { agentId: string; executionId: string };
  findings: AgentFindingInput[];
}

export interface DeleteOpenAgentSuggestionsInput {
  organizationId: string;
  documentId: string;
  agentId: string;
  url: string;
  /** The run whose own suggestions stay (the one clearing its page before writing). */
  exceptExecutionId?: string;
  /** The acting user of the delete events; default: each thread's author. */
  actor?: TUserRef;
}

/**
 * Comment threads, comments and reactions: the rules of the write side and
 * the reads made for a user. Every write is one unit of work that publishes
 * its events (contract/events.ts) in the same transaction.
 */
export function createCommentsService(deps: CommentsDeps) {
  const { repo, organizations, documents, users, ensureHeldDocument, checks, uow, events, clock, ids, pageTokens } = deps;

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

  return {
    async addCommentAnnotations(app: Caller, input: DataOf<typeof addCommentAnnotations>): Promise<TCommentAnnotation[]> {
      return uow.run(() => openThreads(app, input.organizationId, input.documentId, input.commentAnnotations));
    },

    /**
     * An agent run's findings on one document, each as a suggestion thread
     * with one comment (the finding's title, description and suggested
     * change), all in one unit of work, through the path of Add Comment
     * Annotations. Result: where each finding went, in the order given.
     */
    async addAgentSuggestions(app: Caller, input: AddAgentSuggestionsInput): Promise<{ findingId: string; annotationId: string; commentId: string }[]> {
      if (input.findings.length === 0) return [];
      const membersOnly = input.visibility === 'private';
      const threads: NewThread[] = input.findings.map((f) => ({
        from: input.author,
        commentData: [suggestionComment(f)],
        origin: {
          type: 'suggestion',
          sourceType: 'agent',
          agentId: input.agent.agentId,
          agent: {
            agentId: input.agent.agentId,
            executionId: input.agent.executionId,
            url: f.url,
            reason: {
              findingId: f.findingId,
              title: f.title,
              description: f.description,
              severity: f.severity,
              findingType: f.findingType,
              issueType: f.issueType,
              confidence: f.confidence,
              suggestion: f.suggestion,
              htmlSelector: f.htmlSelector,
              targetText: f.targetText,
              occurrence: f.occurrence,
            },
          },
          membersOnly,
        },
      }));
      const saved = await uow.run(() => openThreads(app, input.organizationId, input.documentId, threads));
      return saved.map((annotation, i) => ({ findingId: input.findings[i]!.findingId, annotationId: annotation.annotationId, commentId: annotation.comments[0]!.commentId }));
    },

    /**
     * Deletes the agent's suggestions on one page (`url`) of the document that
     * are still untouched (OPEN_SUGGESTION_STATUSES), except those of
     * `exceptExecutionId`, in one unit of work, through the path of Delete
     * Comment Annotations (one `comment_annotation.delete` each). Returns how
     * many it deleted.
     */
    async deleteOpenAgentSuggestions(app: Caller, input: DeleteOpenAgentSuggestionsInput): Promise<number> {
      const key = { apiKeyId: app.apiKeyId, organizationId: input.organizationId, documentId: input.documentId };
      const doomed = (row: ThreadRecord) =>
        row.agentId === input.agentId &&
        OPEN_SUGGESTION_STATUSES.includes(row.status) &&
        row.agent !== null &&
        row.agent.url === input.url &&
        row.agent.executionId !== input.exceptExecutionId;
      return uow.run(async () => {
        const candidates = (await repo.agentThreads(key, input.agentId, OPEN_SUGGESTION_STATUSES)).filter(doomed).map((r) => r.id);
        if (candidates.length === 0) return 0;
        await repo.lockThreads(key, candidates);
        // Read again under the lock: a thread resolved or deleted meanwhile is not this call's to delete.
        const rows = (await repo.findThreads(key, candidates)).filter(doomed);
        const actor = input.actor ? (await userResolver(app.apiKeyId, [input.actor]))(input.actor) : undefined;
        await removeThreads(app, key, rows, (row) => actor ?? row.fromUser ?? { userId: row.fromUserId });
        return rows.length;
      });
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
