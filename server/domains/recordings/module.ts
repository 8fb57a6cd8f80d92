import type { DomainModule, Platform } from '../../platform/module.js';
import type { Access } from '../access/module.js';
import { recordingsOwnedData, recordingsUserData } from './owned-data.js';
import { createRecordingsRepo } from './repo.js';
import { createRecordingsService } from './service.js';

export function recordingsModule(p: Platform, deps: { access: Access }) {
  const repo = createRecordingsRepo(p.db);
  const recordings = createRecordingsService({ repo, find: deps.access.find, uow: p.uow, events: p.events, pageTokens: p.pageTokens, ids: p.ids, clock: p.clock });
  return { services: { recordings }, ownedData: [recordingsOwnedData(repo)], userData: [recordingsUserData(repo)] } satisfies DomainModule;
}
