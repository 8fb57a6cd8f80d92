import type { DomainModule, Platform } from '../../platform/module.js';
import type { Access } from '../access/module.js';
import { createMigrationsService } from './service.js';

/** Migrate Documents: a job that moves every table in the owned-data registry to the new document IDs. */
export function migrationsModule(p: Platform, deps: { access: Access }) {
  const { repos, find } = deps.access;
  const migrations = createMigrationsService({ organizations: repos.organizations, documents: repos.documents, find, uow: p.uow, jobs: p.jobs, owned: p.owned });
  return { services: { migrations } } satisfies DomainModule;
}
