import { z } from 'zod';
import { ZId } from '../access/schemas.js';
import { operation, resultOf } from '../common/envelope.js';
import { activityFields } from './add-activities.js';
import { EXPORT_ACTIVITY, EXPORT_ACTIVITY_ID } from './examples.js';
import { ZActivity } from './schemas.js';

export const updateActivity = operation({
  path: '/v2/activities/update',
  summary: 'Update Activity',
  description:
    'Changes the given fields of one activity record; fields not sent keep their values, and `displayMessageTemplateData` is replaced as a whole. `timestamp` and `documentId` never change. Result: the record after the write. FAILED_PRECONDITION when the activity config is `immutable`; NOT_FOUND when the organization has no record with this ID.',
  data: z
    .object({
      organizationId: ZId,
      activityId: ZId,
      featureType: activityFields.featureType.optional(),
      actionType: activityFields.actionType.optional(),
      actionUser: activityFields.actionUser.optional(),
      targetEntityId: activityFields.targetEntityId.optional(),
      displayMessageTemplate: activityFields.displayMessageTemplate.optional(),
      displayMessageTemplateData: activityFields.displayMessageTemplateData.optional(),
    })
    .strict()
    .refine((d) => Object.entries(d).some(([key, value]) => key !== 'organizationId' && key !== 'activityId' && value !== undefined), {
      message: 'give at least one field to change',
      path: ['activityId'],
    }),
  result: resultOf(ZActivity),
  example: {
    data: {
      organizationId: 'org-acme',
      activityId: EXPORT_ACTIVITY_ID,
      displayMessageTemplate: '{{actionUser.name}} exported {{documentName}} as {{format}} ({{pages}} pages)',
      displayMessageTemplateData: { actionUser: { name: 'Ada Lovelace' }, documentName: 'Q3 Plan', format: 'PDF', pages: 12 },
    },
    result: {
      status: 'success',
      message: 'Activity updated.',
      data: {
        ...EXPORT_ACTIVITY,
        displayMessageTemplate: '{{actionUser.name}} exported {{documentName}} as {{format}} ({{pages}} pages)',
        displayMessageTemplateData: { actionUser: { name: 'Ada Lovelace' }, documentName: 'Q3 Plan', format: 'PDF', pages: 12 },
      },
    },
  },
});
