import { z } from 'zod';
import { ZId } from '../access/schemas.js';
import { emptyResult, operation, resultOf } from '../common/envelope.js';
import { named } from '../common/named.js';
import {
  MAX_COMMENT_HTML,
  MAX_COMMENT_TEXT,
  MAX_COMMENTS_PER_THREAD,
  MAX_COMMENTS_PER_WRITE,
  MAX_IDS_PER_REQUEST,
  ZActionUser,
  ZMentions,
  ZNewComment,
  uniqueIds,
} from './inputs.js';
import { EDITED_FIRST_COMMENT, FIRST_COMMENT_ID, REPLY, REPLY_ID, THREAD, THREAD_KEY } from './examples.js';
import { ZComment } from './schemas.js';

/** Comments inside a thread. A thread is named by organizationId, documentId and annotationId; NOT_FOUND when it is not there. */

const thread = { organizationId: ZId, documentId: ZId, annotationId: ZId };

export const addComments = operation({
  path: '/v2/commentannotations/comments/add',
  summary: 'Add Comments',
  description: [
    `Adds up to ${MAX_COMMENTS_PER_WRITE} comments to a thread, in order (a thread holds at most ${MAX_COMMENTS_PER_THREAD}: past that FAILED_PRECONDITION). All or nothing: a commentId the thread already has is ALREADY_EXISTS; one given twice is INVALID_ARGUMENT. Adding marks the thread read for each author.`,
    'Publishes one `comment.add` per comment (payload `{annotation, comment}`: the thread after the whole add, and the new comment; actor: the comment\'s `from`).',
    'Result: the new comments, in request order.',
  ].join(' '),
  data: z
    .object({
      ...thread,
      commentData: z
        .array(ZNewComment)
        .min(1)
        .max(MAX_COMMENTS_PER_WRITE)
        .superRefine(uniqueIds((c: { commentId?: string }) => c.commentId, 'commentId')),
    })
    .strict(),
  result: resultOf(z.array(ZComment)),
  example: {
    data: { ...THREAD_KEY, commentData: [{ from: { userId: 'user-grace' }, commentText: REPLY.commentText }] },
    result: { status: 'success', message: 'Comment(s) added successfully.', data: [REPLY] },
  },
});

export const getComments = operation({
  path: '/v2/commentannotations/comments/get',
  summary: 'Get Comments',
  description: `The comments of a thread in the order they were added, or only those of \`commentIds\` (at most ${MAX_IDS_PER_REQUEST}; unknown ones are left out), each with its reactions.`,
  data: z.object({ ...thread, commentIds: z.array(ZId).min(1).max(MAX_IDS_PER_REQUEST).optional() }).strict(),
  result: resultOf(z.array(ZComment)),
  example: { data: THREAD_KEY, result: { status: 'success', message: 'Comments fetched successfully.', data: THREAD.comments } },
});

export const ZCommentChanges = named(
  'CommentChanges',
  z
    .object({
      commentText: z.string().max(MAX_COMMENT_TEXT).optional(),
      commentHtml: z.string().max(MAX_COMMENT_HTML).nullable().optional().describe('null removes it.'),
      taggedUserContacts: ZMentions.optional().describe('Replaces the mentions.'),
    })
    .strict(),
);

export const updateComment = operation({
  path: '/v2/commentannotations/comments/update',
  summary: 'Update Comment',
  description:
    'Edits one comment: the fields of `updatedData` replace the stored ones (at least one). Unknown thread or comment: NOT_FOUND. Publishes `comment.update` (payload `{annotation, comment, previousCommentText}`: the thread and the comment after the edit; actor: `actionUser`) when something changed. Result: the comment.',
  data: z
    .object({ ...thread, commentId: ZId, actionUser: ZActionUser, updatedData: ZCommentChanges })
    .strict()
    .refine((d) => Object.keys(d.updatedData).length > 0, { message: 'give at least one field', path: ['updatedData'] }),
  result: resultOf(ZComment),
  example: {
    data: { ...THREAD_KEY, commentId: FIRST_COMMENT_ID, actionUser: { userId: 'user-ada' }, updatedData: { commentText: EDITED_FIRST_COMMENT.commentText } },
    result: { status: 'success', message: 'Comment updated successfully.', data: EDITED_FIRST_COMMENT },
  },
});

export const deleteComments = operation({
  path: '/v2/commentannotations/comments/delete',
  summary: 'Delete Comments',
  description: `Deletes up to ${MAX_IDS_PER_REQUEST} comments of a thread with their reactions. All or nothing: a commentId the thread does not have is NOT_FOUND. Publishes one \`comment.delete\` per comment (payload \`{annotation, comment}\`: the thread after the delete, and the deleted comment; actor: \`actionUser\`). A thread is never left empty: deleting its last comments deletes the thread too, and \`comment_annotation.delete\` (the thread as it was) follows the comment events.`,
  data: z
    .object({
      ...thread,
      commentIds: z
        .array(ZId)
        .min(1)
        .max(MAX_IDS_PER_REQUEST)
        .superRefine(uniqueIds((id: string) => id, 'commentId')),
      actionUser: ZActionUser,
    })
    .strict(),
  result: emptyResult(),
  example: {
    data: { ...THREAD_KEY, commentIds: [REPLY_ID], actionUser: { userId: 'user-grace' } },
    result: { status: 'success', message: 'Comment(s) deleted successfully.' },
  },
});
