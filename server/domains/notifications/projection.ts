import type { TComment, TCommentAnnotation } from '../../../contract/comments/schemas.js';
import type { TUserRef } from '../../../contract/common/content.js';
import type { EventPayload, EventType } from '../../../contract/events.js';
import type { Ids } from '../../lib/ids.js';
import type { DomainEvent } from '../../platform/events.js';
import { projection, type Projection } from '../../platform/module.js';
import type { Audience } from './audience.js';
import type { NotificationsRepo } from './repo.js';
import { audienceOfAnnotation } from '../access/checks.js';

/**
 * The comment events that notify. Deletions (of a thread, a comment, a
 * reaction) do not: such a notification would point at nothing.
 */
export const NOTIFYING_EVENTS = [
  'comment_annotation.add',
  'comment_annotation.status_change',
  'comment_annotation.assign',
  'comment_annotation.priority_change',
  'comment.add',
  'comment.update',
  'comment.reaction_add',
] as const satisfies readonly EventType[];

export type NotifyingEvent = (typeof NOTIFYING_EVENTS)[number];

/** The thread of a notifying event, where it happened and who acted. */
export function scopeOf(event: DomainEvent<NotifyingEvent>) {
  const { annotation } = event.payload as { annotation: TCommentAnnotation };
  const comment = (event.payload as { comment?: TComment }).comment;
  const where = { apiKeyId: event.apiKeyId, organizationId: annotation.organizationId, documentId: annotation.documentId };
  const actionUser: TUserRef = event.actor ?? comment?.from ?? annotation.from;
  return { annotation, comment, where, actionUser };
}

export interface Headline {
  template: string;
  /** Custom string variables of the template (besides actionUser and recipientUser). */
  data: Record<string, string>;
  body?: string;
}

const nameOf = (user: TUserRef) => user.name ?? user.userId;

/** The notification's headline template, its custom variables and its body, for an event. */
export function headline(event: DomainEvent<NotifyingEvent>): Headline {
  const p = event.payload as EventPayload<NotifyingEvent>;
  switch (event.type) {
    case 'comment_annotation.add': {
      const first = p.annotation.comments[0];
      return { template: '{actionUser} started a comment thread', data: {}, ...(first ? { body: first.commentText } : {}) };
    }
    case 'comment_annotation.status_change': {
      const { status } = event.payload as EventPayload<'comment_annotation.status_change'>;
      return { template: '{actionUser} changed the status to {status}', data: { status } };
    }
    case 'comment_annotation.assign': {
      const { assignedTo } = event.payload as EventPayload<'comment_annotation.assign'>;
      return assignedTo
        ? { template: '{actionUser} assigned the thread to {assignee}', data: { assignee: nameOf(assignedTo) } }
        : { template: '{actionUser} unassigned the thread', data: {} };
    }
    case 'comment_annotation.priority_change': {
      const { priority } = event.payload as EventPayload<'comment_annotation.priority_change'>;
      return priority === null
        ? { template: '{actionUser} cleared the priority', data: {} }
        : { template: '{actionUser} changed the priority to {priority}', data: { priority } };
    }
    case 'comment.add':
      return { template: '{actionUser} commented', data: {}, body: (p as EventPayload<'comment.add'>).comment.commentText };
    case 'comment.update':
      return { template: '{actionUser} edited a comment', data: {}, body: (p as EventPayload<'comment.update'>).comment.commentText };
    case 'comment.reaction_add': {
      const { reaction, comment } = event.payload as EventPayload<'comment.reaction_add'>;
      return { template: '{actionUser} reacted {reaction} to a comment', data: { reaction: reaction.icon }, body: comment.commentText };
    }
  }
  throw new Error(`no headline for ${String(event.type)}`);
}

/**
 * The users an event involves, the `MINE` audience: those mentioned in the
 * comment, the thread's creator and everyone who commented in it for a reply,
 * the assignee for an assignment, the creator and assignee for a status or
 * priority change, the comment's author for a reaction.
 */
export function involvedIn(event: DomainEvent<NotifyingEvent>): Map<string, TUserRef> {
  const involved = new Map<string, TUserRef>();
  const add = (user: TUserRef | null | undefined) => {
    if (user && !involved.has(user.userId)) involved.set(user.userId, user);
  };
  const annotation: TCommentAnnotation = (event.payload as { annotation: TCommentAnnotation }).annotation;
  const comment: TComment | undefined = (event.payload as { comment?: TComment }).comment;
  switch (event.type) {
    case 'comment_annotation.add':
      add(annotation.assignedTo);
      for (const c of annotation.comments) c.taggedUserContacts.forEach(add);
      break;
    case 'comment_annotation.status_change':
    case 'comment_annotation.priority_change':
      add(annotation.from);
      add(annotation.assignedTo);
      break;
    case 'comment_annotation.assign':
      add((event.payload as EventPayload<'comment_annotation.assign'>).assignedTo);
      break;
    case 'comment.add':
      comment?.taggedUserContacts.forEach(add);
      add(annotation.from);
      for (const c of annotation.comments) if (c.commentId !== comment?.commentId) add(c.from);
      break;
    case 'comment.update':
      comment?.taggedUserContacts.forEach(add);
      break;
    case 'comment.reaction_add':
      add(comment?.from);
      break;
  }
  return involved;
}

/**
 * Comment events become notifications in the event's own transaction: one
 * notification per event, one recipient row per user it reaches. A user is
 * reached when their effective inbox config on the document (document level,
 * else organization default, else the service default `MINE`) is `ALL`, or
 * `MINE` and the event involves them (see involvedIn); never for their own
 * action, never for a document they cannot read, and for a thread with
 * `context` only when their access fields match it. No notification is
 * written when nobody is reached.
 */
export function notificationProjection(deps: { repo: NotificationsRepo; audience: Audience; ids: Ids }): Projection {
  const { repo, audience, ids } = deps;
  return projection(NOTIFYING_EVENTS, 'notifications', async (raw) => {
    const event = raw as DomainEvent<NotifyingEvent>;
    const { annotation, where, actionUser } = scopeOf(event);
    const involved = involvedIn(event);
    const recipients = await audience.reached(where, 'inbox', involved, actionUser.userId, audienceOfAnnotation(annotation));
    if (recipients.length === 0) return;

    const { template, data, body } = headline(event);
    await repo.insert(
      {
        apiKeyId: event.apiKeyId,
        id: ids.next('ntf'),
        organizationId: where.organizationId,
        documentId: where.documentId,
        locationId: annotation.location?.locationId ?? null,
        source: 'comment',
        sourceData: annotation,
        eventId: event.id,
        actionUserId: actionUser.userId,
        actionUser,
        headlineTemplate: template,
        headlineData: { ...data, actionType: event.type, actionUser },
        bodyMessage: body ?? null,
        timestamp: event.occurredAt,
      },
      await audience.recipientsOf(event.apiKeyId, recipients, involved),
    );
  });
}
