import type { TComment, TCommentAnnotation, TReaction } from '../../../contract/comments/schemas.js';
import type { TUserRef } from '../../../contract/common/content.js';
import type { FullComment, FullThread, ReactionRow } from './repo.js';

/**
 * Stored rows to the contract's shapes. JSON columns were written by this
 * service from validated input; they are still read defensively (a field of
 * the wrong type is left out, never passed on), as a hand edit or an older
 * version may have left something else.
 */

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

export function userRefFrom(json: string | null): TUserRef | null {
  const value = parse(json);
  if (typeof value !== 'object' || value === null) return null;
  const { userId, name, email } = value as Record<string, unknown>;
  if (typeof userId !== 'string') return null;
  return { userId, ...(typeof name === 'string' ? { name } : {}), ...(typeof email === 'string' ? { email } : {}) };
}

export function userRefsFrom(json: string): TUserRef[] {
  const value = parse(json);
  if (!Array.isArray(value)) return [];
  return value.map((v) => userRefFrom(JSON.stringify(v))).filter((v): v is TUserRef => v !== null);
}

function stringsFrom(json: string): string[] {
  const value = parse(json);
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export function contextFrom(json: string | null): Record<string, unknown> | null {
  return objectFrom(parse(json));
}

export function toReaction(row: ReactionRow): TReaction {
  return {
    reactionId: row.id,
    icon: row.icon,
    from: userRefFrom(row.fromUser) ?? { userId: row.userId },
    createdAt: Number(row.createdAt),
  };
}

export function toComment(row: FullComment): TComment {
  return {
    commentId: row.id,
    commentText: row.text,
    ...(row.html !== null ? { commentHtml: row.html } : {}),
    from: userRefFrom(row.fromUser) ?? { userId: row.fromUserId },
    taggedUserContacts: userRefsFrom(row.taggedUsers),
    createdAt: Number(row.createdAt),
    lastUpdated: Number(row.lastUpdated),
    reactions: row.reactions.map(toReaction),
  };
}

export function toAnnotation(row: FullThread): TCommentAnnotation {
  const location = objectFrom(parse(row.location));
  return {
    annotationId: row.id,
    organizationId: row.organizationId,
    documentId: row.documentId,
    ...(location !== null && typeof location.locationId === 'string' ? { location: location as TCommentAnnotation['location'] } : {}),
    status: row.status,
    priority: row.priority,
    assignedTo: userRefFrom(row.assignedTo),
    customList: stringsFrom(row.customList),
    context: contextFrom(row.context),
    from: userRefFrom(row.fromUser) ?? { userId: row.fromUserId },
    comments: row.comments.map(toComment),
    createdAt: Number(row.createdAt),
    lastUpdated: Number(row.lastUpdated),
  };
}
