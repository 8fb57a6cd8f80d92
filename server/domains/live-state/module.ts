import type { DomainModule, Platform } from '../../platform/module.js';
import type { Access } from '../access/module.js';
import { createLiveStateDelivery } from './delivery.js';
import { liveStateOwnedData } from './owned-data.js';
import { createLiveStateRepo } from './repo.js';
import { createLiveStateService } from './service.js';

type Live = Parameters<typeof createLiveStateDelivery>[0]['live'];

/** Live state: stored rows, delivered to connected clients on every process through the fan-out as stateless messages. */
export function liveStateModule(p: Platform, deps: { access: Access; live: Live }) {
  const repo = createLiveStateRepo(p.db);
  const delivery = createLiveStateDelivery({ live: deps.live, fanout: p.fanout, repo, uow: p.uow, log: p.logger });
  const liveState = createLiveStateService({ repo, find: deps.access.find, uow: p.uow, clock: p.clock, delivery });
  return { services: { liveState }, ownedData: [liveStateOwnedData(repo)] } satisfies DomainModule;
}
