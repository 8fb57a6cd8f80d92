import { z } from 'zod';
import { operation, pagedResultOf } from '../common/envelope.js';
import { ZSortOrder } from '../common/content.js';
import { ZPageSize, ZPageToken } from '../common/paging.js';
import { ZId } from '../access/schemas.js';
import { ZNotification } from './schemas.js';
import { REVIEW_REQUEST } from './examples.js';

/** The specification's limit on notificationIds per call. */
export const MAX_NOTIFICATION_IDS = 30;

export const ZGetNotificationsData = z
  .object({
    organizationId: ZId,
    documentId: ZId.optional().describe('The notifications of this document; pass this or `userId`.'),
    locationId: ZId.optional().describe('Only those at this location (with `documentId` or `userId`).'),
    userId: ZId.optional().describe('The notifications this user received; pass this or `documentId`.'),
    notificationIds: z.array(ZId).min(1).max(MAX_NOTIFICATION_IDS).optional().describe(`At most ${MAX_NOTIFICATION_IDS}; unknown IDs are left out.`),
    pageSize: ZPageSize,
    pageToken: ZPageToken,
    order: ZSortOrder,
  })
  .strict()
  .refine((d) => d.documentId !== undefined || d.userId !== undefined, { message: 'pass documentId or userId', path: ['documentId'] });

export const getNotifications = operation({
  path: '/v2/notifications/get',
  summary: 'Get Notifications',
  description:
    'Notifications of an organization by timestamp (`order` `desc`, the default, or `asc`): those of a document (`documentId`), those a user received (`userId`), or both; optionally at one `locationId` and/or among at most 30 `notificationIds`. Neither `documentId` nor `userId` is INVALID_ARGUMENT. For a user, `displayHeadlineMessageTemplateData.recipientUser` is that user. A notification without a document (a custom one at organization level) is listed only by `userId`, for its recipients. Paged by an opaque keyset pageToken (null on the last page) that neither skips nor repeats a notification while others are added. Requires the advanced-queries and notifications console toggles (FAILED_PRECONDITION when off). NOT_FOUND for an unknown organization or document.',
  data: ZGetNotificationsData,
  result: pagedResultOf(ZNotification),
  example: {
    data: { organizationId: 'org-acme', userId: 'user-grace', pageSize: 20 },
    result: {
      status: 'success',
      message: 'Notifications retrieved successfully.',
      data: [REVIEW_REQUEST],
      pageToken: null,
    },
  },
});
