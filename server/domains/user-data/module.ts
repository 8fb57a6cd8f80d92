import type { DomainModule, Platform } from '../../platform/module.js';
import type { Access } from '../access/module.js';
import { createUserDataService } from './service.js';

/** Get All User Data and Delete All User Data, over every source and table in the owned-data registry. */
export function userDataModule(p: Platform, deps: { access: Access }) {
  const userData = createUserDataService({ find: deps.access.find, uow: p.uow, jobs: p.jobs, owned: p.owned, pageTokens: p.pageTokens });
  return { services: { userData } } satisfies DomainModule;
}
