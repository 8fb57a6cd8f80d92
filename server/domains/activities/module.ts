import { PROJECTED_EVENT_TYPES } from '../../../contract/activities/triggers.js';
import { projection } from '../../platform/module.js';
import type { DomainModule, Platform } from '../../platform/module.js';
import type { Access } from '../access/module.js';
import type { WorkspaceConfigService } from '../workspace/service.js';
import { activitiesOwnedData } from './owned-data.js';
import { activityProjection } from './projection.js';
import { createActivitiesRepo } from './repo.js';
import { createActivitiesService } from './service.js';

/** Activity logs: their table, and the projection that logs every domain event except activity.add (see contract/activities/triggers.ts). */
export function activitiesModule(p: Platform, deps: { access: Access; workspaceConfig: WorkspaceConfigService }) {
  const repo = createActivitiesRepo(p.db);
  const activities = createActivitiesService({
    repo,
    find: deps.access.find,
    config: deps.workspaceConfig,
    uow: p.uow,
    events: p.events,
    pageTokens: p.pageTokens,
    ids: p.ids,
    clock: p.clock,
  });
  return {
    services: { activities },
    ownedData: [activitiesOwnedData(repo)],
    projections: [projection(PROJECTED_EVENT_TYPES, 'activities', activityProjection({ repo, config: deps.workspaceConfig, ids: p.ids }))],
  } satisfies DomainModule;
}
