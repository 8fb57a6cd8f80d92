import type { Logger } from 'pino';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import type { Ids } from '../../lib/ids.js';
import type { Claimed, Work } from './delivery.js';
import type { Outcome } from './post-signed.js';
import type { DeliveryQueueRepo, DeliveryState } from './repos/delivery-queue.js';

/** Tries written by one transaction at most (bounds its statements' parameters and the time others wait for it on SQLite). */
const MAX_BATCH = 256;

/** A try that has its answer, to be recorded: the delivery's new state and an attempt row. */
export interface FinishedTry {
  row: Claimed;
  message: Work['message'];
  outcome: Outcome;
  durationMs: number;
  /** Unix ms: when the answer came. */
  at: number;
  state: DeliveryState;
  nextAttemptAt: number | null;
  /** This try ended the delivery's tries without success. */
  exhausted: boolean;
  /** Which try this was (1-based). */
  tries: number;
}

/** What recording a try did beyond its own rows. */
export interface Recorded {
  /** Other deliveries canceled because the endpoint answered 410 Gone. */
  canceled: number;
}

/**
 * Records finished tries by group commit: a try that finishes while a
 * transaction of records is being written waits for the next one, which
 * writes every try queued meanwhile. One try per transaction made the
 * commits, not the sends, the limit of delivery: on SQLite every
 * transaction waits its turn on the one connection (behind the requests
 * that add events), on PostgreSQL each costs round trips and a WAL flush.
 * Nothing waits on a timer: a try that finishes alone is written in the
 * same turn of the event loop, after the other answers that turn brought.
 *
 * Each row's write is still conditioned on its own lease (owner and
 * generation): a delivery resent or claimed again meanwhile keeps its new
 * schedule, exactly as when each try had its own transaction. A process that
 * dies before the transaction commits has recorded none of its tries: their
 * leases run out and they are sent again, as for a single try before.
 *
 * A transaction that fails is retried one try per transaction, so a try that
 * cannot be recorded does not take the others with it.
 */
export function createTryRecorder(deps: {
  repo: DeliveryQueueRepo;
  uow: UnitOfWork;
  ids: Ids;
  log: Logger;
  /** `message.attempt.exhausted` for a try that ended its delivery, inside the transaction. */
  reportExhausted(row: Claimed, message: Work['message'], attempts: number, lastResponseStatusCode: number | null): Promise<void>;
}) {
  const { repo } = deps;
  interface Queued {
    item: FinishedTry;
    resolve(recorded: Recorded): void;
    reject(error: unknown): void;
  }
  let queue: Queued[] = [];
  let writing: Promise<void> | undefined;
  let gathering = false;

  /** One transaction for `items`; what each one canceled, by position. */
  async function write(items: readonly FinishedTry[]): Promise<number[]> {
    const canceled = items.map(() => 0);
    await deps.uow.run(async () => {
      const settled = await repo.settleMany(
        items.map(({ row, state, nextAttemptAt }) => ({ lease: row, state, nextAttemptAt })),
        Math.max(...items.map((item) => item.at)),
      );
      // Not settled: resent meanwhile (its lease is ours, its generation is not) or no longer ours at all.
      const unsettled = items.filter(({ row }) => !settled.has(row.id)).map(({ row }) => row);
      const resent = await repo.unleaseMany(unsettled);
      const gone = unsettled.filter((row) => !resent.has(row.id));
      // Deleted meanwhile (with the endpoint or the message's document): nothing to record against.
      const remaining = await repo.existing(gone.map((row) => row.id));
      const recorded = items.filter(({ row }) => settled.has(row.id) || resent.has(row.id) || remaining.has(row.id));
      await repo.createAttempts(
        recorded.map(({ row, message, outcome, durationMs, at, nextAttemptAt }) => ({
          id: deps.ids.next('atmpt'),
          apiKeyId: message.apiKeyId,
          deliveryId: row.id,
          endpointId: row.endpointId,
          messageId: row.messageId,
          status: outcome.kind === 'failure' ? 'failed' : 'succeeded',
          responseStatusCode: outcome.status,
          response: outcome.response,
          durationMs,
          trigger: row.manual ? 'manual' : 'scheduled',
          nextAttemptAt: settled.has(row.id) ? nextAttemptAt : null,
          createdAt: at,
        })),
      );
      const written = new Set(recorded);
      for (const [i, item] of items.entries()) {
        if (!written.has(item)) continue;
        const { row, message, outcome, at, exhausted, tries } = item;
        if (outcome.kind === 'failure' && outcome.gone) {
          // 410 Gone: the receiver says it is gone for good (Svix does the same). Its other messages will not be
          // sent: canceled now, not only when each comes due (a retry may be hours away).
          canceled[i] = await repo.disableEndpoint(row.endpointId, row.id, at);
          deps.log.warn({ endpointId: row.endpointId }, 'webhook endpoint answered 410 Gone: disabled');
        }
        if (exhausted && settled.has(row.id)) await deps.reportExhausted(row, message, tries, outcome.status);
      }
    });
    return canceled;
  }

  async function flush(batch: Queued[]): Promise<void> {
    try {
      const canceled = await write(batch.map((queued) => queued.item));
      for (const [i, queued] of batch.entries()) queued.resolve({ canceled: canceled[i]! });
      return;
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
    }
    for (const queued of batch) {
      try {
        const [canceled] = await write([queued.item]);
        queued.resolve({ canceled: canceled! });
      } catch (error) {
        queued.reject(error);
      }
    }
  }

  function startWriting(): void {
    if (writing !== undefined || gathering || queue.length === 0) return;
    const batch = queue.slice(0, MAX_BATCH);
    queue = queue.slice(batch.length);
    writing = flush(batch).finally(() => {
      writing = undefined;
      startWriting();
    });
  }

  return {
    /** Queues a finished try; resolves once it is committed (rejects when it could not be recorded). */
    record(item: FinishedTry): Promise<Recorded> {
      return new Promise<Recorded>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        if (writing !== undefined || gathering) return;
        // The answers that came in the same turn of the event loop go into the same transaction: on SQLite a
        // transaction runs to its end without letting the event loop turn, so without this each would be alone.
        gathering = true;
        setImmediate(() => {
          gathering = false;
          startWriting();
        });
      });
    },

    /** Resolves once every try queued so far is written (or has failed to be). */
    async drain(): Promise<void> {
      while (writing !== undefined || gathering) await (writing ?? new Promise((resolve) => setImmediate(resolve)));
    },
  };
}

export type TryRecorder = ReturnType<typeof createTryRecorder>;
