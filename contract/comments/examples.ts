import { ADA, GRACE } from '../access/examples.js';
import type { TComment, TCommentAnnotation, TReaction } from './schemas.js';

/**
 * The comment thread the examples follow, on the Q3 plan: Ada opens it and
 * mentions Grace, who replies and reacts. The IDs are generated ones
 * (server/lib/ids.ts): the prefix, then the time of creation, so the first
 * comment's ID follows the thread's within the same millisecond.
 */

export const OPENED_AT = Date.UTC(2026, 2, 10, 14, 30);
export const REPLIED_AT = Date.UTC(2026, 2, 10, 15, 2);
export const REACTED_AT = Date.UTC(2026, 2, 10, 15, 4, 30);
export const EDITED_AT = Date.UTC(2026, 2, 11, 8, 15);
export const RESOLVED_AT = Date.UTC(2026, 2, 11, 9, 40);

export const THREAD_ID = 'ann_01KKC2F6J0Y7ZWCHCCCSG4T3Q3';
export const FIRST_COMMENT_ID = 'cmt_01KKC2F6J0Y7ZWCHCCCSG4T3Q4';
export const REPLY_ID = 'cmt_01KKC49SJ034NKK7465XKZSJB8';

/** Where the examples' requests point: the thread of the Q3 plan. */
export const THREAD_KEY = { organizationId: 'org-acme', documentId: 'doc-q3-plan', annotationId: THREAD_ID };

export const REACTION: TReaction = { reactionId: 'rct_01KKC4EC1G1CVW8FNS32ZH86YY', icon: '👍', from: GRACE, createdAt: REACTED_AT };

/** Ada's opening comment, without reactions (as it was opened). */
export const FIRST_COMMENT: TComment = {
  commentId: FIRST_COMMENT_ID,
  commentText: '@Grace Hopper can you double-check the hiring budget for Q3?',
  from: ADA,
  taggedUserContacts: [GRACE],
  createdAt: OPENED_AT,
  lastUpdated: OPENED_AT,
  reactions: [],
};

export const REPLY: TComment = {
  commentId: REPLY_ID,
  commentText: 'Checked: it matches the headcount plan.',
  from: GRACE,
  taggedUserContacts: [],
  createdAt: REPLIED_AT,
  lastUpdated: REPLIED_AT,
  reactions: [],
};

/** The triage fields of a thread nobody has triaged yet, as other examples (notifications, webhook payloads) show it. */
export const UNTRIAGED: Pick<TCommentAnnotation, 'status' | 'priority' | 'assignedTo' | 'customList' | 'context'> = {
  status: 'open',
  priority: null,
  assignedTo: null,
  customList: [],
  context: null,
};

/** The thread as Add Comment Annotations returns it: opened with one comment. */
export const OPENED_THREAD: TCommentAnnotation = {
  annotationId: THREAD_ID,
  organizationId: 'org-acme',
  documentId: 'doc-q3-plan',
  location: { locationId: 'section-budget' },
  status: 'open',
  priority: 'high',
  assignedTo: GRACE,
  customList: [],
  context: null,
  from: ADA,
  comments: [FIRST_COMMENT],
  createdAt: OPENED_AT,
  lastUpdated: OPENED_AT,
};

/** The thread after Grace's reply and reaction. */
export const THREAD: TCommentAnnotation = {
  ...OPENED_THREAD,
  comments: [{ ...FIRST_COMMENT, reactions: [REACTION] }, REPLY],
  lastUpdated: REACTED_AT,
};

/** Ada's opening comment after her edit (Update Comment): its reaction stays. */
export const EDITED_FIRST_COMMENT: TComment = {
  ...FIRST_COMMENT,
  commentText: '@Grace Hopper can you double-check the hiring budget for Q3 before Friday?',
  lastUpdated: EDITED_AT,
  reactions: [REACTION],
};

/** The thread after Grace resolved it (Update Comment Annotations). */
export const RESOLVED_THREAD: TCommentAnnotation = {
  ...THREAD,
  status: 'resolved',
  comments: [EDITED_FIRST_COMMENT, REPLY],
  lastUpdated: RESOLVED_AT,
};
