import type { Logger } from 'pino';
import type { Db } from '../db/client.js';
import type { Clock } from '../lib/clock.js';

const PRUNE_EVERY_MS = 3_600_000;
/** The first run after start: not in the middle of a start-up's own work. */
const FIRST_PRUNE_AFTER_MS = 60_000;
/** Events deleted per statement: a short write each, so other requests are not held up on SQLite. */
const PRUNE_BATCH = 1000;
const DAY_MS = 86_400_000;

/**
 * EVENT_RETENTION_DAYS: outbox rows (DomainEvent) older than that are
 * deleted, so the outbox does not grow without bound. A setting of its own:
 * webhook messages, which copy what they send, follow WEBHOOK_RETENTION_DAYS.
 * Each server process prunes hourly; the CLI never starts this.
 */
export function createEventRetention(deps: { db: Db; clock: Clock; log: Logger; retentionDays: number }) {
  const { db, clock } = deps;
  let timer: NodeJS.Timeout | undefined;
  let pruning: Promise<unknown> | undefined;
  let stopped = false;

  async function prune(): Promise<number> {
    const cutoff = BigInt(clock.nowMs() - deps.retentionDays * DAY_MS);
    let removed = 0;
    for (;;) {
      const events = await db.domainEvent.findMany({ where: { occurredAt: { lt: cutoff } }, select: { id: true }, take: PRUNE_BATCH });
      if (events.length > 0) await db.domainEvent.deleteMany({ where: { id: { in: events.map((e) => e.id) } } });
      removed += events.length;
      if (events.length < PRUNE_BATCH) return removed;
    }
  }

  function schedule(delayMs: number) {
    timer = setTimeout(() => {
      pruning = prune()
        .catch((error: unknown) => deps.log.error({ err: error }, 'domain event prune failed'))
        .finally(() => {
          pruning = undefined;
          if (!stopped) schedule(PRUNE_EVERY_MS);
        });
    }, delayMs);
    timer.unref();
  }

  return {
    /** Deletes the events past their retention; returns how many. */
    prune,

    /** Prunes a minute from now, then hourly. */
    start(): void {
      if (timer !== undefined || stopped) return;
      schedule(FIRST_PRUNE_AFTER_MS);
    },

    /** Stops the schedule and waits for a run under way. */
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      await pruning;
    },
  };
}

export type EventRetention = ReturnType<typeof createEventRetention>;
