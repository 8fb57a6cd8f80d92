import { z } from 'zod';
import { ZId } from '../access/schemas.js';
import { ZUserRef } from '../common/content.js';
import { emptyResult, operation, resultOf } from '../common/envelope.js';
import { FIRST_COMMENT_ID, REACTION, THREAD_KEY } from './examples.js';
import { ZReaction } from './schemas.js';

/** Reactions on a comment: one per user and icon. */

const reaction = {
  organizationId: ZId,
  documentId: ZId,
  annotationId: ZId,
  commentId: ZId,
  icon: z.string().min(1).max(64).describe('The reaction, e.g. an emoji or a name such as `thumbs_up` (at most 64 characters).'),
  from: ZUserRef.describe('Who reacts (the acting user).'),
};

export const addReaction = operation({
  path: '/v2/commentannotations/comments/reactions/add',
  summary: 'Add Reaction',
  description:
    'Adds `from`\'s reaction `icon` to a comment. Unknown thread or comment: NOT_FOUND; the same user with the same icon again: ALREADY_EXISTS. Publishes `comment.reaction_add` (payload `{annotation, comment, reaction}`; actor: `from`). Result: the reaction (its `reactionId` is generated, `rct_…`).',
  data: z.object(reaction).strict(),
  result: resultOf(ZReaction),
  example: {
    data: { ...THREAD_KEY, commentId: FIRST_COMMENT_ID, icon: REACTION.icon, from: { userId: 'user-grace' } },
    result: { status: 'success', message: 'Reaction added successfully.', data: REACTION },
  },
});

export const deleteReaction = operation({
  path: '/v2/commentannotations/comments/reactions/delete',
  summary: 'Delete Reaction',
  description:
    'Removes `from`\'s reaction `icon` from a comment. Unknown thread, comment or reaction: NOT_FOUND. Publishes `comment.reaction_delete` (payload `{annotation, comment, reaction}`: the thread and comment after the removal, and the removed reaction; actor: `from`).',
  data: z.object(reaction).strict(),
  result: emptyResult(),
  example: {
    data: { ...THREAD_KEY, commentId: FIRST_COMMENT_ID, icon: REACTION.icon, from: { userId: 'user-grace' } },
    result: { status: 'success', message: 'Reaction deleted successfully.' },
  },
});
