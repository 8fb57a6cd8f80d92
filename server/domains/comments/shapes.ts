import type { TComment, TCommentAnnotation, TReaction } from '../../../contract/comments/schemas.js';
import type { FullComment, FullThread, ReactionRecord } from './repo.js';

/**
 * Records to the contract's shapes. The repo decodes the JSON columns
 * defensively (a field of the wrong type is left out, never passed on); what
 * is left to decide here is what the contract shows.
 */

export function toReaction(row: ReactionRecord): TReaction {
  return {
    reactionId: row.id,
    icon: row.icon,
    from: row.fromUser ?? { userId: row.userId },
    createdAt: Number(row.createdAt),
  };
}

export function toComment(row: FullComment): TComment {
  return {
    commentId: row.id,
    commentText: row.text,
    ...(row.html !== null ? { commentHtml: row.html } : {}),
    from: row.fromUser ?? { userId: row.fromUserId },
    taggedUserContacts: row.taggedUsers,
    createdAt: Number(row.createdAt),
    lastUpdated: Number(row.lastUpdated),
    reactions: row.reactions.map(toReaction),
  };
}

export function toAnnotation(row: FullThread): TCommentAnnotation {
  const { location } = row;
  return {
    annotationId: row.id,
    organizationId: row.organizationId,
    documentId: row.documentId,
    ...(location !== null && typeof location.locationId === 'string' ? { location: location as TCommentAnnotation['location'] } : {}),
    status: row.status,
    priority: row.priority,
    assignedTo: row.assignedTo,
    customList: row.customList,
    context: row.context,
    from: row.fromUser ?? { userId: row.fromUserId },
    comments: row.comments.map(toComment),
    createdAt: Number(row.createdAt),
    lastUpdated: Number(row.lastUpdated),
    // A user's comment thread reads as it always has: the agent fields are shown on other threads only.
    ...(row.type !== 'comment' || row.sourceType !== 'user' ? { type: row.type, sourceType: row.sourceType } : {}),
    ...(row.agent !== null ? { agent: { ...row.agent, visibility: row.membersOnly ? 'private' : 'public' } as const } : {}),
  };
}
