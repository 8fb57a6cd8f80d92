import type { Logger } from 'pino';
import type { WebhookConfig } from '../../config.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import type { Clock } from '../../lib/clock.js';
import type { Sealer } from '../../lib/crypto.js';
import type { Ids } from '../../lib/ids.js';
import type { EventBus } from '../../platform/events.js';
import type { WebhookBacklogStats, WebhookMetrics } from '../../platform/metrics.js';
import { createConnectionPools } from './connection-pools.js';
import type { DeliveryQueueRepo } from './repos/delivery-queue.js';
import { createDelivery } from './delivery.js';
import type { WebhookMessagesRepo } from './repos/messages.js';
import { createSignedPoster } from './post-signed.js';
import { createPump } from './pump.js';
import { createWebhookRetention } from './retention.js';

/**
 * Delivers webhook messages: at least once, signed, retried on the Svix
 * schedule, shared by every server process on one database.
 *
 * - A delivery (message × endpoint) is claimed with a lease by one
 *   conditional UPDATE, like jobs: two processes never hold the same delivery,
 *   and a delivery whose process died is claimed again when its lease runs out
 *   (the lease outlasts a try twice over, so a live try is never doubled).
 * - The pump (pump.ts) keeps the slots full; each try (delivery.ts) is signed
 *   and posted (post-signed.ts) on the endpoint's own connections
 *   (connection-pools.ts) and recorded; retention.ts prunes old messages.
 */
export interface WebhookDispatcher {
  /** Looks for due deliveries now (after a commit that created some). */
  wake(): void;
  /** Tries every due delivery, waiting for each; returns how many tries were made. For tests and benchmarks. */
  runDue(): Promise<number>;
  /** Polls every `pollMs` (when > 0) and on wake. */
  start(): void;
  /** Stops claiming and waits for the tries in flight. */
  stop(): Promise<void>;
  /** Deletes messages past WEBHOOK_RETENTION_DAYS (also run hourly by the poll); returns how many. */
  prune(): Promise<number>;
  /** Deliveries still to be made, for the metrics: two index lookups in one statement. */
  backlog(): Promise<WebhookBacklogStats>;
}

export function createWebhookDispatcher(deps: {
  repo: DeliveryQueueRepo;
  /** For retention only. */
  messagesRepo: WebhookMessagesRepo;
  uow: UnitOfWork;
  ids: Ids;
  clock: Clock;
  log: Logger;
  events: EventBus;
  sealer: Sealer;
  /** The application's API key, for the payload's metadata.apiKey. */
  apiKeyOf(apiKeyId: string): Promise<string>;
  allowPrivateUrls: boolean;
  options: WebhookConfig;
  metrics: WebhookMetrics;
}): WebhookDispatcher {
  const { repo, clock, log, options } = deps;
  const leaseMs = options.timeoutMs * 2 + 5_000;
  const pools = createConnectionPools({ perEndpoint: options.perEndpointConcurrency });
  const postSigned = createSignedPoster({ pools, clock, log, timeoutMs: options.timeoutMs, allowPrivateUrls: deps.allowPrivateUrls });
  const delivery = createDelivery({ ...deps, postSigned, leaseMs });
  const retention = createWebhookRetention({ repo: deps.messagesRepo, clock, log, retentionDays: options.retentionDays });
  const pump = createPump({ repo, clock, log, metrics: deps.metrics, delivery, options, leaseMs, afterPoll: () => retention.pruneIfDue() });

  let started = false;

  return {
    wake: () => pump.wake(),
    runDue: () => pump.runDue(),
    start() {
      if (started) return;
      started = true;
      retention.start();
      pump.start();
    },
    async stop() {
      await pump.stop();
      pools.destroy();
    },
    prune: () => retention.prune(),
    async backlog() {
      const now = clock.nowMs();
      const { pending, oldestDueAt } = await repo.backlog(now);
      return { pending, oldestDueAgeMs: oldestDueAt === null ? 0 : Math.max(now - oldestDueAt, 0) };
    },
  };
}
