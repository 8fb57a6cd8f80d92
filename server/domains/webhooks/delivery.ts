import type { Logger } from 'pino';
import { EXHAUSTED_EVENT } from '../../../contract/webhooks/payload.js';
import type { WebhookConfig } from '../../config.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import type { Clock } from '../../lib/clock.js';
import type { Sealer } from '../../lib/crypto.js';
import type { Ids } from '../../lib/ids.js';
import type { EventBus } from '../../platform/events.js';
import type { WebhookMetrics, WebhookOutcome } from '../../platform/metrics.js';
import { withApiKey } from './messages.js';
import type { PostSigned } from './post-signed.js';
import { createTryRecorder } from './recorder.js';
import type { DeliveryQueueRepo, DeliveryTarget, LeasedDelivery } from './repos/delivery-queue.js';

/** Delays after the 1st…7th failed try (the first try is immediate); the 8th failure exhausts the delivery. */
export const RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as const;
export const MAX_TRIES = RETRY_SCHEDULE_MS.length + 1;
/** A try starts only with at least its timeout plus this left on its lease. */
const LEASE_MARGIN_MS = 2_000;

/** A delivery claimed by this process. */
export interface Claimed extends LeasedDelivery {
  /** Unix ms: when its lease began. */
  claimedAt: number;
}

/** A claimed delivery with what its try needs. */
export interface Work extends DeliveryTarget {
  row: Claimed;
}

/**
 * One delivery's try: whether it may go now (endpoint enabled, tries left,
 * lease long enough, the endpoint's per-second budget), the signed POST, and
 * its record: an attempt row with the delivery's new state, in one
 * transaction with the other tries that finished meanwhile (recorder.ts). A
 * process that dies after sending and before recording sends again:
 * receivers de-duplicate on `webhook-id`.
 */
export function createDelivery(deps: {
  repo: DeliveryQueueRepo;
  uow: UnitOfWork;
  ids: Ids;
  clock: Clock;
  log: Logger;
  events: EventBus;
  sealer: Sealer;
  /** The application's API key, for the payload's metadata.apiKey. */
  apiKeyOf(apiKeyId: string): Promise<string>;
  postSigned: PostSigned;
  metrics: WebhookMetrics;
  options: Pick<WebhookConfig, 'timeoutMs' | 'retryScale'>;
  leaseMs: number;
}) {
  const { repo, clock, options } = deps;
  // Endpoints whose per-second budget is spent, until the given ms: left out of claims meanwhile.
  const blockedUntil = new Map<string, number>();

  const opened = new Map<string, string>();
  const open = (sealed: string) => {
    const known = opened.get(sealed);
    if (known !== undefined) return known;
    const secret = deps.sealer.open(sealed);
    if (opened.size >= 10_000) opened.clear();
    opened.set(sealed, secret);
    return secret;
  };

  /** Gives deliveries back without a try (rate limit, shutdown): due again at `at`, the claim's count undone. */
  async function giveBack(rows: readonly Claimed[], at: number): Promise<void> {
    for (const row of rows) {
      // Resent meanwhile: its own count and schedule stand; only the lease goes, and it was not deferred by us.
      if (await repo.release(row, at, clock.nowMs())) deps.metrics.recordDelivery('deferred');
      else await repo.unlease(row);
    }
  }

  /** `message.attempt.exhausted`, in the caller's unit of work; never about a report itself (no loops). */
  async function reportExhausted(row: Claimed, message: Work['message'], attempts: number, lastResponseStatusCode: number | null): Promise<void> {
    if (message.eventType === EXHAUSTED_EVENT) return;
    await deps.events.publish({
      type: EXHAUSTED_EVENT,
      apiKeyId: message.apiKeyId,
      ...(message.organizationId === null ? {} : { organizationId: message.organizationId }),
      ...(message.documentId === null ? {} : { documentId: message.documentId }),
      payload: { endpointId: row.endpointId, messageId: row.messageId, eventType: message.eventType, attempts, lastResponseStatusCode },
    });
  }

  /** Ends a delivery without a try: its endpoint was disabled (canceled, no try counted) or its tries could not be recorded (failed). */
  async function finishWithout({ row, message }: Work, state: 'canceled' | 'failed'): Promise<void> {
    const ended = await deps.uow.run(async () => {
      if (!(await repo.endWithoutTry(row, state, clock.nowMs()))) {
        await repo.unlease(row); // resent meanwhile: the resend's schedule stands, and this one did not end
        return false;
      }
      if (state === 'failed') await reportExhausted(row, message, row.attempts - 1, null);
      return true;
    });
    if (ended) deps.metrics.recordDelivery(state === 'canceled' ? 'canceled' : 'failed_final');
  }

  const recorder = createTryRecorder({ repo, uow: deps.uow, ids: deps.ids, log: deps.log, reportExhausted });

  async function deliver(work: Work): Promise<void> {
    const { row, endpoint, message } = work;
    if (endpoint.disabled) return finishWithout(work, 'canceled');
    // At least 1: a count brought below by concurrent resends and releases must not index the schedule out of range.
    const tries = Math.max(row.attempts, 1);
    if (tries > MAX_TRIES) {
      // Claimed more often than it may be tried: its tries could not be recorded (each one's lease ran out). Stop here.
      deps.log.error({ deliveryId: row.id, endpointId: row.endpointId }, 'webhook delivery failed: its tries could not be recorded');
      return finishWithout(work, 'failed');
    }
    // The try's start: its rate-limit window and its webhook-timestamp.
    const now = clock.nowMs();
    // Too little lease left for a whole try (the claim waited): give it back rather than risk a second copy running.
    if (row.claimedAt + deps.leaseMs - now < options.timeoutMs + LEASE_MARGIN_MS) return giveBack([row], now);
    if (endpoint.rateLimit !== null) {
      // The try counts in the window it starts in: its webhook-timestamp is in that second.
      const second = Math.floor(now / 1000);
      if (!(await repo.takeRateSlot(row.endpointId, endpoint.rateLimit, second))) {
        const nextSecond = (second + 1) * 1000;
        blockedUntil.set(row.endpointId, nextSecond);
        return giveBack([row], nextSecond);
      }
    }
    const secrets = [open(endpoint.secretSealed)];
    if (endpoint.previousSecretSealed !== null && (endpoint.previousSecretUntil ?? 0) > now) secrets.push(open(endpoint.previousSecretSealed));
    const apiKey = await deps.apiKeyOf(message.apiKeyId);
    const body = withApiKey(message.body, apiKey);

    const { outcome, durationMs } = await deps.postSigned({ endpointId: row.endpointId, url: endpoint.url, secrets, messageId: row.messageId, body, startAt: now });
    // A receiver that echoes what it got must not make the stored excerpt a copy of the API key.
    if (apiKey !== '') outcome.response = outcome.response.replaceAll(apiKey, '[apiKey]');

    const at = clock.nowMs();
    const failed = outcome.kind === 'failure';
    const exhausted = failed && (outcome.gone || tries >= MAX_TRIES);
    const nextAt =
      failed && !exhausted
        ? at + Math.max(Math.round(RETRY_SCHEDULE_MS[tries - 1]! * options.retryScale), outcome.retryAfterMs ?? 0)
        : null;
    const { canceled } = await recorder.record({
      row,
      message,
      outcome,
      durationMs,
      at,
      state: !failed ? 'succeeded' : exhausted ? 'failed' : 'pending',
      nextAttemptAt: nextAt,
      exhausted,
      tries,
    });
    // Counted once recorded: a try whose recording failed counts as unrecorded (see the pump).
    const result: WebhookOutcome = !failed ? 'delivered' : exhausted ? 'failed_final' : 'failed_retrying';
    // A manual resend's lag would be the age of the message it resends, not a delay of the pipeline.
    deps.metrics.recordDelivery(result, result === 'delivered' && !row.manual ? at - message.createdAt : undefined);
    if (canceled > 0) deps.metrics.recordDelivery('canceled', undefined, canceled);
  }

  return {
    deliver,
    giveBack,
    /** Waits for the records of finished tries to be written. */
    drain: () => recorder.drain(),
    /** Endpoints out of their per-second budget at `now`: not worth claiming for. */
    outOfBudget(now: number): string[] {
      for (const [endpointId, until] of blockedUntil) if (until <= now) blockedUntil.delete(endpointId);
      return [...blockedUntil.keys()];
    },
  };
}

export type Delivery = ReturnType<typeof createDelivery>;
