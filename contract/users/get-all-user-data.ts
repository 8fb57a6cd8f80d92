import { z } from 'zod';
import { aliasOf, operation } from '../common/envelope.js';
import { ZId } from '../access/schemas.js';
import { ZPageToken } from '../common/paging.js';
import { named } from '../common/named.js';
import { ZJudgment } from '../memory/schemas.js';
import { DESIGNER_REQUEST, MOVE_HIRES } from '../memory/examples.js';
import { BUDGET_ANSWER, BUDGET_QUESTION, BUDGET_THREAD_ID, BUDGET_THUMBS_UP, IN_BUDGET_THREAD, THREAD_STARTED } from './examples.js';
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
      .describe(`Judgments the user made as reviewer, in the organization or for the whole workspace, oldest decision first; at most ${USER_DATA_PAGE_SIZE} per page.`),
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
          { ...BUDGET_QUESTION, reactions: [BUDGET_THUMBS_UP], ...IN_BUDGET_THREAD },
          { ...BUDGET_ANSWER, ...IN_BUDGET_THREAD },
        ],
        reactions: [
          { ...BUDGET_THUMBS_UP, annotationId: BUDGET_THREAD_ID, commentId: BUDGET_QUESTION.commentId, documentId: 'doc-q3-plan', organizationId: 'org-acme' },
        ],
        recordings: [],
        notifications: [THREAD_STARTED],
        judgments: [DESIGNER_REQUEST, MOVE_HIRES],
      },
      nextPageToken: null,
    },
  },
});

export const getAllUserDataV2 = aliasOf(getAllUserData, '/v2/users/data/get');
