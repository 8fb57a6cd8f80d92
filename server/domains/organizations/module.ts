import type { DomainModule, Platform } from '../../platform/module.js';
import type { FeatureGate } from '../accounts/features.js';
import type { Access } from '../access/module.js';
import { createOrganizationsService } from './service.js';

export function organizationsModule(p: Platform, deps: { access: Access; features: FeatureGate }) {
  const { repos, find } = deps.access;
  const organizations = createOrganizationsService({
    organizations: repos.organizations,
    folders: repos.folders,
    documents: repos.documents,
    find,
    uow: p.uow,
    features: deps.features,
    pageTokens: p.pageTokens,
    owned: p.owned,
  });
  return { services: { organizations } } satisfies DomainModule;
}
