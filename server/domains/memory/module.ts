import type { DomainModule, Platform } from '../../platform/module.js';
import { createJudgmentIndexCache } from './index-cache.js';
import { memoryOwnedData, memoryUserData } from './owned-data.js';
import { createJudgmentsRepo } from './repo.js';
import { createMemoryService } from './service.js';

/**
 * Decision memory: judgments in the owned-data registry and Get All User
 * Data, searched through an in-memory index per application that each
 * process rebuilds when the application's revision moves.
 */
export function memoryModule(p: Platform) {
  const repo = createJudgmentsRepo(p.db);
  const judgmentIndexes = createJudgmentIndexCache({ repo, capacity: p.config.memoryIndexApplications, log: p.logger });
  const memory = createMemoryService({ repo, indexes: judgmentIndexes, uow: p.uow, pageTokens: p.pageTokens, ids: p.ids, clock: p.clock });
  return { services: { memory, judgmentIndexes }, ownedData: [memoryOwnedData(repo)], userData: [memoryUserData(repo)] } satisfies DomainModule;
}
