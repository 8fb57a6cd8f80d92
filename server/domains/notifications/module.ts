import type { DomainModule, Platform } from '../../platform/module.js';
import type { FeatureGate } from '../accounts/features.js';
import type { Access } from '../access/module.js';
import { emailChannel } from '../email/channel.js';
import type { WorkspaceConfigService } from '../workspace/service.js';
import { createAudience } from './audience.js';
import { notificationsOwnedData, notificationsUserData } from './owned-data.js';
import { notificationProjection } from './projection.js';
import { createNotificationsRepo } from './repo.js';
import { createNotificationsService } from './service.js';

/**
 * The notifications domain: its one repo and audience, shared by the inbox
 * and the email channel (server/domains/email: one durable send job per
 * email); its tables in the owned-data registry, its Get All User Data
 * source, the projections of comment events into inboxes and then into
 * emails (with workflows' messages), and the service the HTTP operations call.
 */
export function notificationsModule(p: Platform, deps: { access: Access; features: FeatureGate; workspaceConfig: WorkspaceConfigService }) {
  const { repos, find, checks } = deps.access;
  const repo = createNotificationsRepo(p.db);
  const audience = createAudience({ repo, users: repos.users, checks });
  const email = emailChannel({ events: p.events, jobs: p.jobs, audience, settings: deps.workspaceConfig, options: p.config.email });
  const notifications = createNotificationsService({
    repo,
    organizations: repos.organizations,
    documents: repos.documents,
    find,
    audience,
    uow: p.uow,
    features: deps.features,
    pageTokens: p.pageTokens,
    clock: p.clock,
    ids: p.ids,
  });
  return {
    services: { notifications },
    ownedData: [notificationsOwnedData(repo)],
    userData: [notificationsUserData({ repo, usersOf: audience.usersOf })],
    projections: [notificationProjection({ repo, audience, ids: p.ids }), email.projection],
  } satisfies DomainModule;
}
