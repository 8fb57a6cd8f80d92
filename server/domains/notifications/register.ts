import type { Db } from '../../db/client.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import type { Clock } from '../../lib/clock.js';
import type { Ids } from '../../lib/ids.js';
import type { PageTokens } from '../../lib/page-token.js';
import type { EventBus } from '../../platform/events.js';
import type { OwnedDataRegistry } from '../../platform/owned-data.js';
import type { FeatureGate } from '../accounts/features.js';
import type { AccessChecks } from '../access/checks.js';
import type { AccessLookups } from '../access/lookups.js';
import type { DocumentsRepo } from '../access/repos/documents.js';
import type { OrganizationsRepo } from '../access/repos/organizations.js';
import type { UsersRepo } from '../access/repos/users.js';
import { createAudience } from './audience.js';
import { notificationsOwnedData, notificationsUserData } from './owned-data.js';
import { registerNotificationProjection } from './projection.js';
import { createNotificationsRepo } from './repo.js';
import { createNotificationsService } from './service.js';

/**
 * The notifications domain in the composition root: its tables in the
 * owned-data registry, its Get All User Data source, the projection of
 * comment events into inboxes, and the service the HTTP operations call.
 */
export function registerNotifications(deps: {
  db: Db;
  uow: UnitOfWork;
  clock: Clock;
  ids: Ids;
  events: EventBus;
  owned: OwnedDataRegistry;
  features: FeatureGate;
  pageTokens: PageTokens;
  organizations: Pick<OrganizationsRepo, 'findOrganization'>;
  documents: Pick<DocumentsRepo, 'findDocuments' | 'holdDocuments'>;
  users: Pick<UsersRepo, 'findUsers'>;
  find: Pick<AccessLookups, 'document' | 'heldDocuments' | 'organization'>;
  checks: AccessChecks;
}) {
  const repo = createNotificationsRepo(deps.db);
  const audience = createAudience({ repo, users: deps.users, checks: deps.checks });
  deps.owned.register(notificationsOwnedData(repo));
  deps.owned.addUserDataSource(notificationsUserData({ repo, usersOf: audience.usersOf }));
  registerNotificationProjection({ events: deps.events, repo, audience, ids: deps.ids });
  return createNotificationsService({
    repo,
    organizations: deps.organizations,
    documents: deps.documents,
    find: deps.find,
    audience,
    uow: deps.uow,
    features: deps.features,
    pageTokens: deps.pageTokens,
    clock: deps.clock,
    ids: deps.ids,
  });
}
