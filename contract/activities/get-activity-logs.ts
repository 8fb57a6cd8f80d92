import { z } from 'zod';
import { ZId } from '../access/schemas.js';
import { ZSortOrder } from '../common/content.js';
import { operation, pagedResultOf } from '../common/envelope.js';
import { ZPageSize, ZPageToken } from '../common/paging.js';
import { FEATURE_TYPES, ZActivity, ZFeatureType } from './schemas.js';
import { EXPORT_ACTIVITY } from './examples.js';

/** Bounds of the list filters: each value is one index range read per page (see the activities repo). */
export const MAX_ACTIVITY_FILTER_VALUES = 30;

export const ZActionType = z.string().min(1).max(128);

export const ZGetActivityLogsData = z
  .object({
    organizationId: ZId,
    documentId: ZId.optional(),
    targetEntityId: ZId.optional().describe('e.g. an annotation ID.'),
    featureTypes: z.array(ZFeatureType).min(1).max(FEATURE_TYPES.length).optional(),
    actionTypes: z.array(ZActionType).min(1).max(MAX_ACTIVITY_FILTER_VALUES).optional().describe(`e.g. \`comment.add\`; at most ${MAX_ACTIVITY_FILTER_VALUES}.`),
    userId: ZId.optional().describe('The acting user.'),
    activityIds: z.array(ZId).min(1).max(MAX_ACTIVITY_FILTER_VALUES).optional().describe(`At most ${MAX_ACTIVITY_FILTER_VALUES}; unknown IDs are left out.`),
    order: ZSortOrder,
    pageSize: ZPageSize,
    pageToken: ZPageToken,
  })
  .strict();

export const getActivityLogs = operation({
  path: '/v2/activities/get',
  summary: 'Get Activity Logs',
  description:
    `The activity records of an organization, newest first (\`order: "asc"\` for oldest first), filtered by any combination of document, target entity, feature types, action types, acting user and activity IDs (at most ${MAX_ACTIVITY_FILTER_VALUES} values per list; all filters must match). Paged by an opaque keyset pageToken (null on the last page) that neither skips nor repeats a record while others are added; a forged token or one from another query is INVALID_ARGUMENT. \`metadata.apiKey\` is the calling application's API key. NOT_FOUND for an unknown organization.`,
  data: ZGetActivityLogsData,
  result: pagedResultOf(ZActivity),
  example: {
    data: { organizationId: 'org-acme', documentId: 'doc-q3-plan', actionTypes: ['document.export'], pageSize: 50 },
    result: {
      status: 'success',
      message: 'Activity logs retrieved successfully.',
      data: [EXPORT_ACTIVITY],
      pageToken: null,
    },
  },
});
