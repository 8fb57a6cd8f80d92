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

/** What an agent run found, as its suggestion thread keeps it. */
export const ZAgentFindingReason = named(
  'AgentFindingReason',
  z.object({
    findingId: z.string().describe("The finding's ID in its run."),
    title: z.string(),
    description: z.string(),
    severity: z.string().describe('e.g. `critical`, `high`, `medium`, `low`, `info`.'),
    findingType: z.enum(['text', 'pin', 'page']).describe('What the finding is on: a piece of text, an element, or the whole page.'),
    issueType: z.string().describe("The agent's own classification of the issue."),
    confidence: z.number().describe('How sure the agent is, 0 to 100.'),
    suggestion: z.string().describe('The change the agent suggests, for a person to read.'),
    htmlSelector: z.string().describe('A CSS selector of the element the finding is on (empty for a page finding).'),
    targetText: z.string().describe('The text the finding is on (empty for a pin or page finding).'),
    occurrence: z.number().int().describe('Which occurrence of `targetText` on the page, from 1.'),
  }),
);

/** The agent block of a suggestion thread left by an agent run. */
export const ZCommentAgent = named(
  'CommentAgent',
  z.object({
    agentId: z.string(),
    executionId: z.string().describe('The run that left the thread.'),
    url: z.string().describe('The page the finding is on.'),
    visibility: z
      .enum(['private', 'public'])
      .describe("The run's annotation visibility: `private`, reads made for a user show the thread only to the organization's members; `public`, to anyone who can read the document."),
    reason: ZAgentFindingReason,
  }),
);
export type TCommentAgent = z.infer<typeof ZCommentAgent>;

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
    type: z
      .enum(['comment', 'suggestion'])
      .optional()
      .describe('`suggestion` on a finding left by an agent run; absent on a thread opened through Add Comment Annotations (a `comment`).'),
    sourceType: z.enum(['user', 'agent']).optional().describe('`agent` on a thread written by an agent run; absent on a thread opened by a user.'),
    agent: ZCommentAgent.optional().describe('Present on a thread written by an agent run only.'),
  }),
);
export type TCommentAnnotation = z.infer<typeof ZCommentAnnotation>;
