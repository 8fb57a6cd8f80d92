import type { Logger } from 'pino';
import type { EventType } from '../../contract/events.js';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import type { UnitOfWork } from '../db/unit-of-work.js';
import type { Clock } from '../lib/clock.js';
import type { Sealer } from '../lib/crypto.js';
import type { Ids } from '../lib/ids.js';
import type { PageTokens } from '../lib/page-token.js';
import type { Fanout } from './fanout.js';
import type { EventBus, Projection as ProjectionFn } from './events.js';
import type { Jobs } from './jobs.js';
import type { Metrics } from './metrics.js';
import type { OwnedDataRegistry, OwnedData, UserDataSource } from './owned-data.js';
import type { ReadCache } from './read-cache.js';
import type { SealedColumn } from './sealed-columns.js';

/** The platform pieces the composition root builds before any domain module, and hands to each. */
export interface Platform {
  config: Config;
  db: Db;
  uow: UnitOfWork;
  sealer: Sealer;
  logger: Logger;
  clock: Clock;
  ids: Ids;
  events: EventBus;
  jobs: Jobs;
  /** For the operations that walk it (deletion, migration, erasure); modules register nothing here themselves. */
  owned: OwnedDataRegistry;
  fanout: Fanout;
  /** Credentials, feature flags and settings read on every request (see read-cache.ts). */
  readCache: ReadCache;
  pageTokens: PageTokens;
  metrics: Metrics;
}

/** One projection as a module hands it to the composition root: EventBus.project's three arguments. */
export interface Projection {
  types: readonly EventType[] | '*';
  name: string;
  fn: ProjectionFn;
}

/** Names a projection where it is written, with the arguments in EventBus.project's order. */
export function projection(types: Projection['types'], name: string, fn: ProjectionFn): Projection {
  return { types, name, fn };
}

/**
 * What one domain's `module.ts` returns to the composition root
 * (server/services.ts). The module builds its repos and services and
 * registers nothing itself: the root registers every module's owned data,
 * Get All User Data sources and projections in one place, in module order
 * (projections run in that order inside the event's transaction; owned-data
 * hooks run in that order on a move or an erasure).
 */
export interface DomainModule<S extends object = object, Shared extends object = object> {
  /** What the HTTP app, the CLI, the real-time layer and the tests call: part of the root's result. */
  services: S;
  /** What later modules take from this one and nobody else sees (a repo shared by two domains, a narrow read). */
  shared?: Shared;
  ownedData?: readonly OwnedData[];
  userData?: readonly UserDataSource[];
  projections?: readonly Projection[];
  /** The columns holding values sealed with the master key, for a master-key rotation to seal again. */
  sealed?: readonly SealedColumn[];
}
