import { z } from 'zod';
import { ZId } from '../access/schemas.js';
import { ZUserRef } from '../common/content.js';
import { operation, resultOf } from '../common/envelope.js';
import { ZActionType } from './get-activity-logs.js';
import { ZActivity, ZFeatureType } from './schemas.js';
import { EXPORT_ACTIVITY, NEW_EXPORT_ACTIVITY } from './examples.js';

/** At most this many records per Add Activities (one transaction, one event each). */
export const MAX_ACTIVITIES_PER_ADD = 100;

/** Template data is free JSON; its serialized size is bounded so one record stays small. */
export const MAX_TEMPLATE_DATA_CHARS = 16_384;

export const ZTemplateData = z
  .record(z.unknown())
  .refine((data) => JSON.stringify(data).length <= MAX_TEMPLATE_DATA_CHARS, {
    message: `must be at most ${MAX_TEMPLATE_DATA_CHARS} characters as JSON`,
  })
  .describe('Values for the template placeholders, e.g. {"actionUser": {"name": "Ada"}} for `{{actionUser.name}}`.');

/** The fields of a record that a caller writes (Add Activities, Update Activity). */
export const activityFields = {
  featureType: ZFeatureType.describe('`custom` for application-defined activity.'),
  actionType: ZActionType.describe('e.g. `comment.add` or an application-defined name.'),
  actionUser: ZUserRef.describe('Who acted.'),
  targetEntityId: z.string().min(1).max(256).describe('What the action was on, e.g. an annotation ID.'),
  displayMessageTemplate: z.string().min(1).max(4096).describe('With `{{variable}}` placeholders filled from displayMessageTemplateData by the client.'),
  displayMessageTemplateData: ZTemplateData,
};

export const ZNewActivity = z
  .object({
    documentId: ZId.optional().describe('The document it happened in; omit for organization-level activity.'),
    ...activityFields,
    displayMessageTemplateData: ZTemplateData.optional().describe('Default `{}`.'),
  })
  .strict();
export type TNewActivity = z.infer<typeof ZNewActivity>;

export const addActivities = operation({
  path: '/v2/activities/add',
  summary: 'Add Activities',
  description:
    `Records activity (at most ${MAX_ACTIVITIES_PER_ADD} records per call, all or none), each with a new \`id\` and the current time as \`timestamp\`, and publishes one \`activity.add\` event per record in the same transaction. Works whether or not activity logging is enabled (\`isEnabled\` governs only what the service logs by itself). FAILED_PRECONDITION when the activity config is \`immutable\` (then only the service writes the log). NOT_FOUND for an unknown organization or document.`,
  data: z
    .object({
      organizationId: ZId,
      activities: z.array(ZNewActivity).min(1).max(MAX_ACTIVITIES_PER_ADD),
    })
    .strict(),
  result: resultOf(z.array(ZActivity).describe('The records added, in the order given.')),
  example: {
    data: {
      organizationId: 'org-acme',
      activities: [NEW_EXPORT_ACTIVITY],
    },
    result: {
      status: 'success',
      message: 'Activities added.',
      data: [EXPORT_ACTIVITY],
    },
  },
});
