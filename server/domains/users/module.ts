import type { DomainModule, Platform } from '../../platform/module.js';
import type { Access } from '../access/module.js';
import { createUsersService } from './service.js';

export function usersModule(p: Platform, deps: { access: Access }) {
  const users = createUsersService({ ...deps.access.repos, find: deps.access.find, uow: p.uow, pageTokens: p.pageTokens, now: p.clock.now });
  return { services: { users } } satisfies DomainModule;
}
