import { z } from 'zod';
import { aliasOf, operation } from '../common/envelope.js';
import { ZId } from '../access/schemas.js';
import { ZPageToken } from '../common/paging.js';
import { named } from '../common/named.js';
import { ZJudgment } from '../memory/schemas.js';
import { ZUserDataComment, ZUserDataNotification, ZUserDataReaction, ZUserDataRecording } from './user-data-schemas.js';

/** Items per feature per page, as the specification fixes it. */
export const USER_DATA_PAGE_SIZE = 100;

export const ZGetAllUserDataData = z
  .object({
    organizationId: ZId,
    userId: ZId,
    pageToken: ZPageToken.describe('The nextPageToken of the previous page; opaque.'),
  })
  .strict();

export const ZUserData = named(
  'UserData',
  z.object({
    comments: z.array(ZUserDataComment).describe(`Comments the user wrote or is mentioned in; at most ${USER_DATA_PAGE_SIZE} per page.`),
    reactions: z.array(ZUserDataReaction).describe(`Reactions the user added; at most ${USER_DATA_PAGE_SIZE} per page.`),
    recordings: z.array(ZUserDataRecording).describe(`Recordings the user made; at most ${USER_DATA_PAGE_SIZE} per page.`),
    notifications: z.array(ZUserDataNotification).describe(`Notifications the user received or caused (those caused carry no recipientUser in their template data); at most ${USER_DATA_PAGE_SIZE} per page.`),
    judgments: z
      .array(ZJudgment)
      .describe(`Judgments the user made as reviewer, in the organization or for the whole workspace; at most ${USER_DATA_PAGE_SIZE} per page.`),
  }),
);
export type TUserData = z.infer<typeof ZUserData>;

export const getAllUserData = operation({
  path: '/v1/users/data/get',
  summary: 'Get All User Data',
  description: [
    `One page of everything a user has in an organization: comments, reactions, recordings, notifications and judgments, at most ${USER_DATA_PAGE_SIZE} of each per page (an empty array when there is none).`,
    '`result.nextPageToken` continues every feature that has more; it is null when none has.',
    'A forged or altered pageToken is INVALID_ARGUMENT; an unknown organization NOT_FOUND; a user without data gets empty arrays.',
    'The error envelope of this operation carries `code`, the HTTP status, beside `message` and `status`.',
  ].join(' '),
  numericErrorCode: true,
  data: ZGetAllUserDataData,
  result: z.object({
    result: z.object({
      status: z.literal('success'),
      message: z.string(),
      data: ZUserData,
      nextPageToken: z.string().nullable().describe('Pass it back as pageToken for the next page; null when no feature has more.'),
    }),
  }),
  example: {
    data: { organizationId: 'org-acme', userId: 'user-grace' },
    result: {
      status: 'success',
      message: 'User data retrieved successfully.',
      data: {
        comments: [
          {
            commentId: 'cmt-budget-1',
            commentText: '@Grace Hopper can you check the hiring line? It looks high for Q3.',
            from: { userId: 'user-ada', name: 'Ada Lovelace', email: 'ada@example.com' },
            taggedUserContacts: [{ userId: 'user-grace', name: 'Grace Hopper', email: 'grace@example.com' }],
            createdAt: 1773825150104,
            lastUpdated: 1773825150104,
            reactions: [
              {
                reactionId: 'rct_01KM05FZKFYX7FNDKRQHCQ92W5',
                icon: '👍',
                from: { userId: 'user-grace', name: 'Grace Hopper', email: 'grace@example.com' },
                createdAt: 1773827260015,
              },
            ],
            annotationId: 'ann-budget-review',
            documentId: 'doc-q3-plan',
            organizationId: 'org-acme',
          },
          {
            commentId: 'cmt-budget-2',
            commentText: 'Checked: two of the hires move to Q4, I updated the table.',
            from: { userId: 'user-grace', name: 'Grace Hopper', email: 'grace@example.com' },
            taggedUserContacts: [],
            createdAt: 1773827225622,
            lastUpdated: 1773827225622,
            reactions: [],
            annotationId: 'ann-budget-review',
            documentId: 'doc-q3-plan',
            organizationId: 'org-acme',
          },
        ],
        reactions: [
          {
            reactionId: 'rct_01KM05FZKFYX7FNDKRQHCQ92W5',
            icon: '👍',
            from: { userId: 'user-grace', name: 'Grace Hopper', email: 'grace@example.com' },
            createdAt: 1773827260015,
            annotationId: 'ann-budget-review',
            commentId: 'cmt-budget-1',
            documentId: 'doc-q3-plan',
            organizationId: 'org-acme',
          },
        ],
        recordings: [],
        notifications: [
          {
            id: 'ntf_01KM03FK4R4R0H377HREGCSPBG',
            notificationSource: 'comment',
            notificationSourceData: {
              annotationId: 'ann-budget-review',
              organizationId: 'org-acme',
              documentId: 'doc-q3-plan',
              status: 'open',
              priority: null,
              assignedTo: null,
              customList: [],
              context: null,
              from: { userId: 'user-ada', name: 'Ada Lovelace', email: 'ada@example.com' },
              comments: [
                {
                  commentId: 'cmt-budget-1',
                  commentText: '@Grace Hopper can you check the hiring line? It looks high for Q3.',
                  from: { userId: 'user-ada', name: 'Ada Lovelace', email: 'ada@example.com' },
                  taggedUserContacts: [{ userId: 'user-grace', name: 'Grace Hopper', email: 'grace@example.com' }],
                  createdAt: 1773825150104,
                  lastUpdated: 1773825150104,
                  reactions: [],
                },
              ],
              createdAt: 1773825150104,
              lastUpdated: 1773825150104,
            },
            actionUser: { userId: 'user-ada', name: 'Ada Lovelace', email: 'ada@example.com' },
            displayBodyMessage: '@Grace Hopper can you check the hiring line? It looks high for Q3.',
            displayHeadlineMessageTemplate: '{actionUser} started a comment thread',
            displayHeadlineMessageTemplateData: {
              actionType: 'comment_annotation.add',
              actionUser: { userId: 'user-ada', name: 'Ada Lovelace', email: 'ada@example.com' },
              recipientUser: { userId: 'user-grace', name: 'Grace Hopper', email: 'grace@example.com' },
            },
            metadata: { apiKey: 'ak_EXAMPLE_api_key_0000000000000000', documentId: 'doc-q3-plan', organizationId: 'org-acme' },
            notifyUsers: { 'grace@example.com': true },
            notifyUsersByUserId: { 'user-grace': true },
            readByUserIds: {},
            timestamp: 1773825150104,
          },
        ],
        judgments: [
          {
            judgmentId: 'jdg-designer-req',
            subject: 'Open a Q3 hiring request for a product designer',
            decision: 'reject',
            reason: 'No new headcount before the Q3 revenue review',
            reviewerId: 'user-grace',
            organizationId: 'org-acme',
            documentId: 'doc-q3-plan',
            tags: ['budget', 'hiring'],
            decidedAt: 1771321200000,
            createdAt: 1771321200000,
          },
          {
            judgmentId: 'jdg_01KKY1QMDZEQ5KJ6PD2W7GA54J',
            subject: 'Move two Q3 engineering hires to Q4',
            decision: 'approve',
            reason: 'Keeps Q3 spend inside the frozen hiring budget',
            reviewerId: 'user-grace',
            organizationId: 'org-acme',
            documentId: 'doc-q3-plan',
            tags: ['budget', 'hiring'],
            decidedAt: 1773756207551,
            createdAt: 1773756207551,
          },
        ],
      },
      nextPageToken: null,
    },
  },
});

export const getAllUserDataV2 = aliasOf(getAllUserData, '/v2/users/data/get');
