import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract/index.js';
import { applicationOf } from '../../http/context.js';
import { ok, paged } from '../../http/respond.js';
import type { ActivitiesService } from './service.js';

export function activitiesRouter(service: ActivitiesService) {
  return initServer().router(contract.activities, {
    getActivityLogs: async ({ req, body }) => paged('Activity logs retrieved successfully.', await service.getActivityLogs(applicationOf(req), body.data)),
    addActivities: async ({ req, body }) => ok('Activities added.', await service.addActivities(applicationOf(req), body.data)),
    updateActivity: async ({ req, body }) => ok('Activity updated.', await service.updateActivity(applicationOf(req), body.data)),
    deleteActivities: async ({ req, body }) => ok('Activities deleted.', await service.deleteActivities(applicationOf(req), body.data)),
  });
}
