import { z } from 'zod';
import { named } from '../common/named.js';
import { ZFreeObject, ZTimestampMs, ZUserRef } from '../common/content.js';

/**
 * A user reference or null (an unassigned thread). OpenAPI 3.0 has no
 * nullable `$ref`, so the nullable form is a component of its own, of the
 * same fields as UserRef.
 */
export const ZUserRefOrNull = named('UserRefOrNull', z.object(ZUserRef.shape).strict().nullable());

/** A reaction on a comment: one per user and icon. */
export const ZReaction = named(
  'Reaction',
  z.object({
    reactionId: z.string(),
    icon: z.string().describe('The reaction, e.g. an emoji or a name such as `thumbs_up`.'),
    from: ZUserRef,
    createdAt: ZTimestampMs,
  }),
);
export type TReaction = z.infer<typeof ZReaction>;

export const ZComment = named(
  'Comment',
  z.object({
    commentId: z.string(),
    commentText: z.string(),
    commentHtml: z.string().optional(),
    from: ZUserRef.describe('The author; `{userId: "anonymous"}` after the author\'s data was deleted.'),
    taggedUserContacts: z.array(ZUserRef).describe('Users mentioned in the comment.'),
    createdAt: ZTimestampMs,
    lastUpdated: ZTimestampMs,
    reactions: z.array(ZReaction),
  }),
);
export type TComment = z.infer<typeof ZComment>;

export const ZCommentLocation = named(
  'CommentLocation',
  z
    .object({ locationId: z.string().describe('Where in the document the thread sits (a page, a frame, a timestamp).') })
    .catchall(z.unknown()),
);

/** A comment thread (comment annotation) on a document. */
export const ZCommentAnnotation = named(
  'CommentAnnotation',
  z.object({
    annotationId: z.string(),
    organizationId: z.string(),
    documentId: z.string(),
    location: ZCommentLocation.optional(),
    status: z.string().describe('`open`, `in_progress`, `resolved` or a custom value.'),
    priority: z.string().nullable().describe('e.g. `low`, `medium`, `high`, or a custom value; null when unset.'),
    assignedTo: ZUserRefOrNull,
    customList: z.array(z.string()).describe('Values picked from the application\'s custom list.'),
    context: ZFreeObject.nullable().describe('Application fields of the thread; decides who sees it under feature-level access context.'),
    from: ZUserRef.describe('Who opened the thread.'),
    comments: z.array(ZComment),
    createdAt: ZTimestampMs,
    lastUpdated: ZTimestampMs,
  }),
);
export type TCommentAnnotation = z.infer<typeof ZCommentAnnotation>;
