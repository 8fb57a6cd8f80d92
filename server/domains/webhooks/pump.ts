import { AsyncResource } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { WebhookConfig } from '../../config.js';
import type { Clock } from '../../lib/clock.js';
import type { WebhookMetrics } from '../../platform/metrics.js';
import type { Claimed, Delivery, Work } from './delivery.js';
import type { DeliveryQueueRepo } from './repos/delivery-queue.js';

/** Claim candidates looked at per free slot (other processes may take some). */
const CANDIDATES_PER_SLOT = 2;
/** Candidate queries per claim: each round leaves out the endpoints the previous one filled. */
const CLAIM_ROUNDS = 4;

/**
 * Keeps this process's delivery slots full: claims due deliveries with a
 * lease, at most `concurrency` in flight and `perEndpointConcurrency` per
 * endpoint (so a slow endpoint's backlog cannot take every slot), and starts
 * each one's try. Runs when woken (a commit created deliveries, a try
 * ended), every `pollMs`, or when a test asks (runDue).
 */
export function createPump(deps: {
  repo: DeliveryQueueRepo;
  clock: Clock;
  log: Logger;
  metrics: WebhookMetrics;
  delivery: Delivery;
  options: Pick<WebhookConfig, 'concurrency' | 'perEndpointConcurrency' | 'pollMs'>;
  leaseMs: number;
  /** Runs after each poll, before the next is scheduled (the hourly retention). */
  afterPoll(): Promise<void>;
}) {
  const { repo, clock, options, delivery } = deps;
  const owner = `whd_${randomBytes(8).toString('hex')}`;
  const inFlight = new Map<string, number>(); // endpointId → tries running here
  const inFlightIds = new Set<string>(); // delivery IDs running here
  const running = new Set<Promise<void>>();
  let claims = 0;
  let total = 0;
  let started = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let pumping: Promise<void> | undefined;
  let pumpAgain = false;
  let polling: Promise<void> | undefined;
  // Tries run in the async context the pump was made in, not in that of the request
  // whose commit woke it: their log lines are not that request's (see server/http/logging.ts).
  const detached = AsyncResource.bind((work: () => void) => work());

  /**
   * Up to `slots` due deliveries, at most perEndpointConcurrency running per
   * endpoint here, leased to this process. Candidates leave out endpoints
   * that are full or out of budget; the conditional UPDATE decides.
   */
  async function claim(slots: number): Promise<Claimed[]> {
    const claimed: Claimed[] = [];
    const taken = new Map<string, number>();
    const room = (endpointId: string) => options.perEndpointConcurrency - (inFlight.get(endpointId) ?? 0) - (taken.get(endpointId) ?? 0);
    for (let round = 0; round < CLAIM_ROUNDS && claimed.length < slots && !stopped; round++) {
      const now = clock.nowMs();
      const excluded = new Set(delivery.outOfBudget(now));
      for (const endpointId of new Set([...inFlight.keys(), ...taken.keys()])) if (room(endpointId) <= 0) excluded.add(endpointId);
      const want = slots - claimed.length;
      const candidates = await repo.dueCandidates(now, excluded, want * CANDIDATES_PER_SLOT);
      const chosen: string[] = [];
      for (const row of candidates) {
        if (chosen.length >= want) break;
        // A try of ours that outlived its lease is not claimed again alongside itself.
        if (inFlightIds.has(row.id) || room(row.endpointId) <= 0) continue;
        taken.set(row.endpointId, (taken.get(row.endpointId) ?? 0) + 1);
        chosen.push(row.id);
      }
      if (chosen.length === 0) break;
      const rows = await repo.leaseDue(chosen, `${owner}:${++claims}`, now, now + deps.leaseMs);
      // What another process took first frees its room again.
      taken.clear();
      for (const row of [...claimed, ...rows]) taken.set(row.endpointId, (taken.get(row.endpointId) ?? 0) + 1);
      claimed.push(...rows.map((row) => ({ ...row, claimedAt: now })));
      if (candidates.length < want * CANDIDATES_PER_SLOT) break; // nothing more is due
    }
    return claimed;
  }

  /** The endpoints and messages of claimed deliveries; one deleted meanwhile has nothing left to try. */
  async function loadWork(rows: readonly Claimed[]): Promise<Work[]> {
    const targets = await repo.targetsOf(rows.map((row) => row.id));
    return rows.flatMap((row): Work[] => {
      const target = targets.get(row.id);
      return target === undefined ? [] : [{ row, ...target }];
    });
  }

  function launch(work: Work): Promise<void> {
    const { row } = work;
    inFlight.set(row.endpointId, (inFlight.get(row.endpointId) ?? 0) + 1);
    inFlightIds.add(row.id);
    total += 1;
    const task = delivery
      .deliver(work)
      .catch((error: unknown) => {
        // The lease runs out and the delivery is tried again: nothing is lost.
        deps.metrics.recordDelivery('unrecorded');
        deps.log.error({ err: error, deliveryId: row.id }, 'webhook delivery could not be recorded');
      })
      .finally(() => {
        total -= 1;
        inFlightIds.delete(row.id);
        const left = (inFlight.get(row.endpointId) ?? 1) - 1;
        if (left === 0) inFlight.delete(row.endpointId);
        else inFlight.set(row.endpointId, left);
        running.delete(task);
        if (started && !stopped) pumpSoon();
      });
    running.add(task);
    return task;
  }

  /** Claims for the free slots and launches; anything claimed after stop() began is given back. */
  async function claimAndLaunch(): Promise<Work[]> {
    const rows = await claim(options.concurrency - total);
    if (stopped) {
      await delivery.giveBack(rows, clock.nowMs());
      return [];
    }
    const work = await loadWork(rows);
    for (const item of work) void launch(item);
    return work;
  }

  /** Fills free slots; one pump at a time, run again when asked meanwhile (a try finished, a commit woke it). */
  function pump(): Promise<void> {
    if (pumping !== undefined) {
      pumpAgain = true;
      return pumping;
    }
    pumping = (async () => {
      try {
        do {
          pumpAgain = false;
          if (stopped) break;
          await claimAndLaunch();
        } while (pumpAgain);
      } catch (error) {
        deps.log.error({ err: error }, 'webhook dispatcher poll failed');
      } finally {
        pumping = undefined;
      }
    })();
    return pumping;
  }

  /**
   * Pumps once the tries that ended in this turn of the event loop have all
   * freed their slots: a batch of records ends many tries at once, and one
   * claim then fills all their slots instead of one claim per slot.
   */
  let pumpQueued = false;
  function pumpSoon(): void {
    if (pumpQueued) return;
    pumpQueued = true;
    setImmediate(() => {
      pumpQueued = false;
      if (started && !stopped) void pump();
    });
  }

  function schedule() {
    if (!started || stopped || options.pollMs <= 0) return;
    timer = setTimeout(() => {
      polling = (async () => {
        await pump();
        if (!stopped) await deps.afterPoll();
        polling = undefined;
        schedule();
      })();
    }, options.pollMs);
    timer.unref();
  }

  return {
    wake() {
      if (started && !stopped) detached(() => void pump());
    },

    async runDue(): Promise<number> {
      let tries = 0;
      for (;;) {
        if (stopped) return tries;
        // A claim of the background pump (woken by a commit) may hold rows it has not launched yet:
        // wait for it, or this would see nothing due and nothing running, and return too early.
        if (pumping !== undefined) await pumping;
        const rows = await claimAndLaunch();
        if (rows.length === 0) {
          if (pumping !== undefined) continue;
          if (running.size === 0) return tries;
          await Promise.race(running);
          continue;
        }
        tries += rows.length;
        await Promise.all([...running]);
      }
    },

    start() {
      if (started) return;
      started = true;
      schedule();
      void pump();
    },

    /** Stops claiming and waits for the claim, the poll and the tries under way. */
    async stop() {
      stopped = true;
      clearTimeout(timer);
      // A claim under way gives back what it got (claimAndLaunch); tries in flight finish (bounded by their timeout).
      await pumping;
      await polling;
      while (running.size > 0) await Promise.allSettled([...running]);
      // Every try's record is committed before stop() returns (each try waits for its own; this says so).
      await delivery.drain();
    },
  };
}
