import type { Logger } from 'pino';
import type { Clock } from '../../lib/clock.js';
import type { WebhookMessagesRepo } from './repos/messages.js';

const PRUNE_EVERY_MS = 3_600_000;
/** Messages deleted per statement: a short write each, so other requests are not held up on SQLite. */
const PRUNE_BATCH = 1000;
const DAY_MS = 86_400_000;

/**
 * WEBHOOK_RETENTION_DAYS: messages older than that go, with their deliveries
 * and attempts, once no delivery of theirs is pending. Run hourly from the
 * dispatcher's poll (the first a minute after start), so a process that does
 * not poll (WEBHOOK_POLL_INTERVAL_MS=0) does not prune either.
 */
export function createWebhookRetention(deps: { repo: WebhookMessagesRepo; clock: Clock; log: Logger; retentionDays: number }) {
  const { clock } = deps;
  let lastPrune = 0;

  async function prune(): Promise<number> {
    lastPrune = clock.nowMs();
    const cutoff = clock.nowMs() - deps.retentionDays * DAY_MS;
    let removed = 0;
    for (;;) {
      const deleted = await deps.repo.deleteMessagesBefore(cutoff, PRUNE_BATCH);
      removed += deleted;
      if (deleted < PRUNE_BATCH) return removed;
    }
  }

  return {
    /** Deletes the messages past their retention; returns how many. */
    prune,

    /** Prunes when an hour has passed since the last run; never throws (the next poll tries again). */
    async pruneIfDue(): Promise<void> {
      if (clock.nowMs() - lastPrune < PRUNE_EVERY_MS) return;
      await prune().catch((error: unknown) => deps.log.error({ err: error }, 'webhook prune failed'));
    },

    /** With the poll: the first run is due a minute after this. */
    start(): void {
      lastPrune = clock.nowMs() - PRUNE_EVERY_MS + 60_000;
    },
  };
}

export type WebhookRetention = ReturnType<typeof createWebhookRetention>;
