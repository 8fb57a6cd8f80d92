import { z } from 'zod';
import { ZId } from '../access/schemas.js';
import { operation, resultOf } from '../common/envelope.js';
import { named } from '../common/named.js';
import { MAX_ACTIVITY_FILTER_VALUES } from './get-activity-logs.js';

export const deleteActivities = operation({
  path: '/v2/activities/delete',
  summary: 'Delete Activities',
  description:
    `Deletes activity records by ID (at most ${MAX_ACTIVITY_FILTER_VALUES}). Result keyed by activity ID; an ID the organization has no record for gets \`success: false\`. FAILED_PRECONDITION when the activity config is \`immutable\`.`,
  data: z
    .object({
      organizationId: ZId,
      activityIds: z.array(ZId).min(1).max(MAX_ACTIVITY_FILTER_VALUES),
    })
    .strict(),
  result: resultOf(z.record(named('ActivityDeletionOutcome', z.object({ success: z.boolean(), message: z.string() })))),
  example: {
    data: { organizationId: 'org-acme', activityIds: ['act_01KKE6AA210E4E3PTCVA8CY2Z2'] },
    result: { status: 'success', message: 'Activities deleted.', data: { act_01KKE6AA210E4E3PTCVA8CY2Z2: { success: true, message: 'Activity deleted.' } } },
  },
});
