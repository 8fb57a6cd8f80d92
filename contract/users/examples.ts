import { ADA, GRACE, Q3_PLAN_METADATA } from '../access/examples.js';
import { UNTRIAGED } from '../comments/examples.js';
import type { TComment, TReaction } from '../comments/schemas.js';
import { TO_GRACE_UNREAD } from '../notifications/examples.js';
import type { TNotification } from '../notifications/schemas.js';

/**
 * Grace's data in Acme, as Get All User Data shows it: a budget review thread
 * on the Q3 plan where Ada asks her, she answers and reacts, and the
 * notification Ada's question sent her.
 */

export const BUDGET_THREAD_ID = 'ann-budget-review';
export const ASKED_AT = 1773825150104;

/** Where the user data items of the thread are: what a comment alone does not say. */
export const IN_BUDGET_THREAD = { annotationId: BUDGET_THREAD_ID, documentId: 'doc-q3-plan', organizationId: 'org-acme' };

/** Ada's question, without reactions (as the thread was opened). */
export const BUDGET_QUESTION: TComment = {
  commentId: 'cmt-budget-1',
  commentText: '@Grace Hopper can you check the hiring line? It looks high for Q3.',
  from: ADA,
  taggedUserContacts: [GRACE],
  createdAt: ASKED_AT,
  lastUpdated: ASKED_AT,
  reactions: [],
};

export const BUDGET_ANSWER: TComment = {
  commentId: 'cmt-budget-2',
  commentText: 'Checked: two of the hires move to Q4, I updated the table.',
  from: GRACE,
  taggedUserContacts: [],
  createdAt: 1773827225622,
  lastUpdated: 1773827225622,
  reactions: [],
};

/** Grace's reaction to Ada's question. */
export const BUDGET_THUMBS_UP: TReaction = { reactionId: 'rct_01KM05FZKFYX7FNDKRQHCQ92W5', icon: '👍', from: GRACE, createdAt: 1773827260015 };

/** The notification Ada's question sent Grace; its source data is the thread as it was opened. */
export const THREAD_STARTED: TNotification = {
  id: 'ntf_01KM03FK4R4R0H377HREGCSPBG',
  notificationSource: 'comment',
  notificationSourceData: {
    annotationId: BUDGET_THREAD_ID,
    organizationId: 'org-acme',
    documentId: 'doc-q3-plan',
    ...UNTRIAGED,
    from: ADA,
    comments: [BUDGET_QUESTION],
    createdAt: ASKED_AT,
    lastUpdated: ASKED_AT,
  },
  actionUser: ADA,
  displayBodyMessage: BUDGET_QUESTION.commentText,
  displayHeadlineMessageTemplate: '{actionUser} started a comment thread',
  displayHeadlineMessageTemplateData: { actionType: 'comment_annotation.add', actionUser: ADA, recipientUser: GRACE },
  metadata: Q3_PLAN_METADATA,
  ...TO_GRACE_UNREAD,
  timestamp: ASKED_AT,
};
