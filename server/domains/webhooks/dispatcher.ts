import { AsyncResource } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { RESPONSE_EXCERPT_CHARS } from '../../../contract/webhooks/schemas.js';
import { EXHAUSTED_EVENT } from '../../../contract/webhooks/payload.js';
import type { WebhookConfig } from '../../config.js';
import { providerOfClient, type Db } from '../../db/client.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import type { Clock } from '../../lib/clock.js';
import type { Sealer } from '../../lib/crypto.js';
import type { Ids } from '../../lib/ids.js';
import { guardedAgent, OutboundError, postBytes, type PostBytesResult } from '../../lib/outbound-http.js';
import type { EventBus } from '../../platform/events.js';
import type { WebhookBacklogStats, WebhookMetrics, WebhookOutcome } from '../../platform/metrics.js';
import { withApiKey } from './messages.js';
import { signatureHeader } from './secrets.js';

/**
 * Delivers webhook messages: at least once, signed, retried on the Svix
 * schedule, shared by every server process on one database.
 *
 * - A delivery (message × endpoint) is claimed with a lease by one
 *   conditional UPDATE, like jobs: two processes never hold the same delivery,
 *   and a delivery whose process died is claimed again when its lease runs out
 *   (the lease outlasts a try twice over, so a live try is never doubled).
 * - Claims take at most `perEndpointConcurrency` deliveries of one endpoint
 *   per process, so a slow endpoint's backlog cannot take every slot.
 * - Each try is recorded (attempt row) with the delivery's new state in one
 *   transaction; a process that dies after sending and before recording sends
 *   again: receivers de-duplicate on `webhook-id`.
 */

/** Delays after the 1st…7th failed try (the first try is immediate); the 8th failure exhausts the delivery. */
export const RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as const;
export const MAX_TRIES = RETRY_SCHEDULE_MS.length + 1;
/** A Retry-After longer than this is treated as this. */
const MAX_RETRY_AFTER_MS = 24 * 3_600_000;
/** Bytes of a receiver's answer read; the rest is dropped. */
const RESPONSE_READ_BYTES = 4096;
const USER_AGENT = 'Collab-Backend-Webhooks/1.0';
/** A try starts only with at least its timeout plus this left on its lease. */
const LEASE_MARGIN_MS = 2_000;
/** Claim candidates looked at per free slot (other processes may take some). */
const CANDIDATES_PER_SLOT = 2;
/** Candidate queries per claim: each round leaves out the endpoints the previous one filled. */
const CLAIM_ROUNDS = 4;
/** Connection pools kept (one per endpoint recently delivered to). */
const MAX_POOLS = 1000;
/** An idle pooled connection is closed after this (receivers often close theirs at about 5 s). */
const IDLE_SOCKET_MS = 4_000;
const PRUNE_EVERY_MS = 3_600_000;
const PRUNE_BATCH = 1000;

export interface WebhookDispatcher {
  /** Looks for due deliveries now (after a commit that created some). */
  wake(): void;
  /** Tries every due delivery, waiting for each; returns how many tries were made. For tests and benchmarks. */
  runDue(): Promise<number>;
  /** Polls every `pollMs` (when > 0) and on wake. */
  start(): void;
  /** Stops claiming and waits for the tries in flight. */
  stop(): Promise<void>;
  /** Deletes messages and events past their retention (also run hourly by the poll). */
  prune(): Promise<number>;
  /** Deliveries still to be made, for the metrics: two index lookups in one statement. */
  backlog(): Promise<WebhookBacklogStats>;
}

interface Claimed {
  id: string;
  endpointId: string;
  messageId: string;
  /** Tries so far, this one included (counted when claimed, so a try that never gets recorded still counts). */
  attempts: number | bigint;
  manual: boolean | number;
  generation: number | bigint;
  /** This claim's lease token. */
  leaseOwner: string;
  claimedAt: number;
}

/** A claimed delivery with what its try needs, read for the whole claim in one go. */
interface Work {
  row: Claimed;
  endpoint: {
    url: string;
    disabled: boolean;
    rateLimit: number | null;
    secretSealed: string;
    previousSecretSealed: string | null;
    /** Unix ms. */
    previousSecretUntil: number | null;
  };
  message: { body: string; eventType: string; apiKeyId: string; organizationId: string | null; documentId: string | null; createdAt: number };
}

type Outcome =
  | { kind: 'success'; status: number; response: string }
  | { kind: 'failure'; status: number | null; response: string; retryAfterMs: number | null; gone: boolean };

/** Retry-After as milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterMs(value: string | string[] | undefined, nowMs: number): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined || raw.trim() === '') return null;
  const text = raw.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(at - nowMs, 0), MAX_RETRY_AFTER_MS);
}

export function createWebhookDispatcher(deps: {
  db: Db;
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
  const { db, clock, options } = deps;
  const owner = `whd_${randomBytes(8).toString('hex')}`;
  const postgres = providerOfClient(db) === 'postgresql';
  const leaseMs = options.timeoutMs * 2 + 5_000;
  const pools = new Map<string, ReturnType<typeof guardedAgent>>(); // endpointId → its own connections
  const inFlight = new Map<string, number>(); // endpointId → tries running here
  const inFlightIds = new Set<string>(); // delivery IDs running here
  // Endpoints whose per-second budget is spent, until the given ms: left out of claims meanwhile.
  const blockedUntil = new Map<string, number>();
  const running = new Set<Promise<void>>();
  let claims = 0;
  let total = 0;
  let started = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let pumping: Promise<void> | undefined;
  let pumpAgain = false;
  let pruning: Promise<unknown> | undefined;
  let lastPrune = 0;
  // Deliveries run in the async context the dispatcher was made in, not in that of the request
  // whose commit woke it: their log lines are not that request's (see server/http/logging.ts).
  const detached = AsyncResource.bind((work: () => void) => work());

  /**
   * Connections per endpoint, never shared with another endpoint (nor
   * another application's on the same host): the dispatcher runs at most
   * perEndpointConcurrency tries per endpoint, so a try never waits for a
   * socket and its timeout is all its own.
   */
  function poolOf(endpointId: string) {
    let pool = pools.get(endpointId);
    if (pool === undefined) {
      if (pools.size >= MAX_POOLS) {
        // The least recently used pool with no try in flight (destroying an agent also ends its busy sockets).
        for (const [id, idle] of pools) {
          if (inFlight.has(id)) continue;
          idle.http.destroy();
          idle.https.destroy();
          pools.delete(id);
          break;
        }
      }
      pool = guardedAgent({ maxSockets: options.perEndpointConcurrency, idleMs: IDLE_SOCKET_MS });
    } else {
      pools.delete(endpointId); // re-inserted below: most recently used last
    }
    pools.set(endpointId, pool);
    return pool;
  }

  const sql = () => {
    const params: unknown[] = [];
    const bind = (value: unknown) => {
      params.push(value);
      return postgres ? `$${params.length}` : '?';
    };
    return { params, bind };
  };

  /**
   * Up to `slots` due deliveries, at most perEndpointConcurrency running per
   * endpoint here, leased to this process. Candidates come oldest first from
   * the (state, nextAttemptAt) index, leaving out endpoints that are full or
   * out of budget; the conditional UPDATE decides (SKIP LOCKED on PostgreSQL:
   * two processes never wait on each other's rows).
   */
  async function claim(slots: number): Promise<Claimed[]> {
    const claimed: Claimed[] = [];
    const taken = new Map<string, number>();
    const room = (endpointId: string) => options.perEndpointConcurrency - (inFlight.get(endpointId) ?? 0) - (taken.get(endpointId) ?? 0);
    for (let round = 0; round < CLAIM_ROUNDS && claimed.length < slots && !stopped; round++) {
      const now = clock.nowMs();
      for (const [endpointId, until] of blockedUntil) if (until <= now) blockedUntil.delete(endpointId);
      const excluded = new Set(blockedUntil.keys());
      for (const endpointId of new Set([...inFlight.keys(), ...taken.keys()])) if (room(endpointId) <= 0) excluded.add(endpointId);
      const want = slots - claimed.length;
      const q = sql();
      const candidates = await db.$queryRawUnsafe<{ id: string; endpointId: string }[]>(
        `SELECT "id", "endpointId" FROM "WebhookDelivery"
         WHERE "state" = 'pending' AND "nextAttemptAt" <= ${q.bind(now)} AND COALESCE("leaseUntil", 0) < ${q.bind(now)}
         ${excluded.size > 0 ? `AND "endpointId" NOT IN (${[...excluded].map(q.bind).join(', ')})` : ''}
         ORDER BY "nextAttemptAt", "id" LIMIT ${q.bind(want * CANDIDATES_PER_SLOT)}`,
        ...q.params,
      );
      const chosen: string[] = [];
      for (const row of candidates) {
        if (chosen.length >= want) break;
        // A try of ours that outlived its lease is not claimed again alongside itself.
        if (inFlightIds.has(row.id) || room(row.endpointId) <= 0) continue;
        taken.set(row.endpointId, (taken.get(row.endpointId) ?? 0) + 1);
        chosen.push(row.id);
      }
      if (chosen.length === 0) break;
      const u = sql();
      const token = `${owner}:${++claims}`;
      const rows = await db.$queryRawUnsafe<Claimed[]>(
        `UPDATE "WebhookDelivery" SET "leaseOwner" = ${u.bind(token)}, "leaseUntil" = ${u.bind(now + leaseMs)}, "attempts" = "attempts" + 1, "updatedAt" = ${u.bind(now)}
         WHERE "id" IN (SELECT "id" FROM "WebhookDelivery"
           WHERE "id" IN (${chosen.map(u.bind).join(', ')}) AND "state" = 'pending' AND "nextAttemptAt" <= ${u.bind(now)} AND COALESCE("leaseUntil", 0) < ${u.bind(now)}${postgres ? ' FOR UPDATE SKIP LOCKED' : ''})
         RETURNING "id", "endpointId", "messageId", "attempts", "manual", "generation", "leaseOwner"`,
        ...u.params,
      );
      // What another process took first frees its room again.
      taken.clear();
      for (const row of [...claimed, ...rows]) taken.set(row.endpointId, (taken.get(row.endpointId) ?? 0) + 1);
      claimed.push(...rows.map((row) => ({ ...row, claimedAt: now })));
      if (candidates.length < want * CANDIDATES_PER_SLOT) break; // nothing more is due
    }
    return claimed;
  }

  /** The endpoints and messages of claimed deliveries, in one statement (on SQLite each statement waits its turn). */
  async function loadWork(rows: readonly Claimed[]): Promise<Work[]> {
    if (rows.length === 0) return [];
    const d = sql();
    const details = await db.$queryRawUnsafe<
      {
        id: string;
        url: string;
        disabled: boolean | number | bigint;
        rateLimit: number | bigint | null;
        secretSealed: string;
        previousSecretSealed: string | null;
        previousSecretUntil: number | bigint | null;
        body: string;
        eventType: string;
        apiKeyId: string;
        organizationId: string | null;
        documentId: string | null;
        createdAt: number | bigint;
      }[]
    >(
      `SELECT d."id", e."url", e."disabled", e."rateLimit", e."secretSealed", e."previousSecretSealed", e."previousSecretUntil",
              m."body", m."eventType", m."apiKeyId", m."organizationId", m."documentId", m."createdAt"
       FROM "WebhookDelivery" d
       JOIN "WebhookEndpoint" e ON e."id" = d."endpointId"
       JOIN "WebhookMessage" m ON m."id" = d."messageId"
       WHERE d."id" IN (${rows.map((row) => d.bind(row.id)).join(', ')})`,
      ...d.params,
    );
    const byId = new Map(details.map((detail) => [detail.id, detail]));
    // A delivery deleted meanwhile (with its endpoint or its message's document) has nothing left to try.
    return rows.flatMap((row): Work[] => {
      const x = byId.get(row.id);
      if (x === undefined) return [];
      return [
        {
          row,
          endpoint: {
            url: x.url,
            disabled: Boolean(x.disabled),
            rateLimit: x.rateLimit === null ? null : Number(x.rateLimit),
            secretSealed: x.secretSealed,
            previousSecretSealed: x.previousSecretSealed,
            previousSecretUntil: x.previousSecretUntil === null ? null : Number(x.previousSecretUntil),
          },
          message: {
            body: x.body,
            eventType: x.eventType,
            apiKeyId: x.apiKeyId,
            organizationId: x.organizationId,
            documentId: x.documentId,
            createdAt: Number(x.createdAt),
          },
        },
      ];
    });
  }

  /** Gives deliveries back without a try (rate limit, shutdown): due again at `at`, the claim's count undone. */
  async function release(rows: readonly Claimed[], at: number): Promise<void> {
    for (const row of rows) {
      const { count } = await db.webhookDelivery.updateMany({
        where: { id: row.id, leaseOwner: row.leaseOwner, generation: Number(row.generation) },
        data: { leaseOwner: null, leaseUntil: null, attempts: { decrement: 1 }, nextAttemptAt: BigInt(at), updatedAt: BigInt(clock.nowMs()) },
      });
      // Resent meanwhile: its own count and schedule stand; only the lease goes, and it was not deferred by us.
      if (count === 0) await unlease(row);
      else deps.metrics.recordDelivery('deferred');
    }
  }

  async function unlease(row: Claimed): Promise<number> {
    const { count } = await db.webhookDelivery.updateMany({ where: { id: row.id, leaseOwner: row.leaseOwner }, data: { leaseOwner: null, leaseUntil: null } });
    return count;
  }

  /**
   * One slot of the endpoint's per-second budget, counted on the endpoint row
   * so every process shares it: a fixed one-second window, taken by one
   * conditional UPDATE. The window only moves forward: a process whose clock
   * is behind (or whose try started in the previous second) is refused
   * rather than resetting a newer window's count. `at` is when the try
   * starts: its webhook-timestamp is in the window it counts in.
   */
  async function takeRateSlot(endpointId: string, limit: number, at: number): Promise<{ taken: boolean; second: number }> {
    const second = Math.floor(at / 1000);
    const q = sql();
    const rows = await db.$queryRawUnsafe<{ id: string }[]>(
      `UPDATE "WebhookEndpoint"
       SET "rateCount" = CASE WHEN "rateWindow" = ${q.bind(second)} THEN "rateCount" + 1 ELSE 1 END,
           "rateWindow" = ${q.bind(second)}
       WHERE "id" = ${q.bind(endpointId)} AND ("rateWindow" < ${q.bind(second)} OR ("rateWindow" = ${q.bind(second)} AND "rateCount" < ${q.bind(limit)}))
       RETURNING "id"`,
      ...q.params,
    );
    return { taken: rows.length === 1, second };
  }

  async function send(endpointId: string, url: string, secrets: string[], messageId: string, body: string, startAt: number): Promise<{ outcome: Outcome; durationMs: number }> {
    const at = new Date(startAt);
    const headers = {
      'user-agent': USER_AGENT,
      'webhook-id': messageId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signatureHeader(secrets, messageId, at, body),
    };
    const started = performance.now();
    let result: PostBytesResult;
    try {
      result = await postBytes(url, Buffer.from(body, 'utf8'), {
        headers,
        timeoutMs: options.timeoutMs,
        allowPrivate: deps.allowPrivateUrls,
        maxResponseBytes: RESPONSE_READ_BYTES,
        truncateResponse: true,
        agents: poolOf(endpointId),
      });
    } catch (error) {
      const durationMs = Math.round(performance.now() - started);
      if (!(error instanceof OutboundError)) throw error;
      if (error.kind === 'blocked' || error.kind === 'network') deps.log.warn({ messageId, endpointId, ...error.detail }, `webhook delivery failed: ${error.message}`);
      return { outcome: { kind: 'failure', status: null, response: error.message, retryAfterMs: null, gone: false }, durationMs };
    }
    const durationMs = Math.round(performance.now() - started);
    // PostgreSQL text cannot hold NUL: an answer with one would make the try unrecordable (and repeated).
    const response = result.text.slice(0, RESPONSE_EXCERPT_CHARS).replaceAll('\u0000', '\uFFFD');
    // 2xx only: a redirect is a failure (following it would skip the address guard).
    if (result.status >= 200 && result.status < 300) return { outcome: { kind: 'success', status: result.status, response }, durationMs };
    return {
      outcome: {
        kind: 'failure',
        status: result.status,
        response,
        retryAfterMs: retryAfterMs(result.headers['retry-after'], clock.nowMs()),
        gone: result.status === 410,
      },
      durationMs,
    };
  }

  const opened = new Map<string, string>();
  const open = (sealed: string) => {
    const known = opened.get(sealed);
    if (known !== undefined) return known;
    const secret = deps.sealer.open(sealed);
    if (opened.size >= 10_000) opened.clear();
    opened.set(sealed, secret);
    return secret;
  };

  /** Ends a delivery without a try: its endpoint was disabled (canceled, no try counted) or its tries could not be recorded (failed). */
  async function finishWithout(work: Work, state: 'canceled' | 'failed'): Promise<void> {
    const { row, message } = work;
    const ended = await deps.uow.run(async () => {
      const { count } = await db.webhookDelivery.updateMany({
        where: { id: row.id, leaseOwner: row.leaseOwner, generation: Number(row.generation) },
        data: { state, leaseOwner: null, leaseUntil: null, nextAttemptAt: null, updatedAt: BigInt(clock.nowMs()), ...(state === 'canceled' ? { attempts: { decrement: 1 } } : {}) },
      });
      if (count === 0) {
        await unlease(row); // resent meanwhile: the resend's schedule stands, and this one did not end
        return false;
      }
      if (state === 'failed') await reportExhausted(row, message, Number(row.attempts) - 1, null);
      return true;
    });
    if (ended) deps.metrics.recordDelivery(state === 'canceled' ? 'canceled' : 'failed_final');
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

  async function deliver({ row, endpoint, message }: Work): Promise<void> {
    if (endpoint.disabled) return finishWithout({ row, endpoint, message }, 'canceled');
    // At least 1: a count brought below by concurrent resends and releases must not index the schedule out of range.
    const tries = Math.max(Number(row.attempts), 1);
    if (tries > MAX_TRIES) {
      // Claimed more often than it may be tried: its tries could not be recorded (each one's lease ran out). Stop here.
      deps.log.error({ deliveryId: row.id, endpointId: row.endpointId }, 'webhook delivery failed: its tries could not be recorded');
      return finishWithout({ row, endpoint, message }, 'failed');
    }
    // The try's start: its rate-limit window and its webhook-timestamp.
    const now = clock.nowMs();
    // Too little lease left for a whole try (the claim waited): give it back rather than risk a second copy running.
    if (row.claimedAt + leaseMs - now < options.timeoutMs + LEASE_MARGIN_MS) return release([row], now);
    if (endpoint.rateLimit !== null) {
      const slot = await takeRateSlot(row.endpointId, endpoint.rateLimit, now);
      if (!slot.taken) {
        const nextSecond = (slot.second + 1) * 1000;
        blockedUntil.set(row.endpointId, nextSecond);
        return release([row], nextSecond);
      }
    }
    const secrets = [open(endpoint.secretSealed)];
    if (endpoint.previousSecretSealed !== null && Number(endpoint.previousSecretUntil ?? 0) > now) secrets.push(open(endpoint.previousSecretSealed));
    const apiKey = await deps.apiKeyOf(message.apiKeyId);
    const body = withApiKey(message.body, apiKey);

    const { outcome, durationMs } = await send(row.endpointId, endpoint.url, secrets, row.messageId, body, now);
    // A receiver that echoes what it got must not make the stored excerpt a copy of the API key.
    if (apiKey !== '') outcome.response = outcome.response.replaceAll(apiKey, '[apiKey]');

    const at = clock.nowMs();
    const failed = outcome.kind === 'failure';
    const exhausted = failed && (outcome.gone || tries >= MAX_TRIES);
    const nextAt =
      failed && !exhausted
        ? at + Math.max(Math.round(RETRY_SCHEDULE_MS[tries - 1]! * options.retryScale), outcome.retryAfterMs ?? 0)
        : null;
    let canceled = 0;
    await deps.uow.run(async () => {
      const { count } = await db.webhookDelivery.updateMany({
        // A resend meanwhile bumped the generation: its fresh schedule stands.
        where: { id: row.id, leaseOwner: row.leaseOwner, generation: Number(row.generation) },
        data: {
          state: !failed ? 'succeeded' : exhausted ? 'failed' : 'pending',
          manual: false,
          nextAttemptAt: nextAt === null ? null : BigInt(nextAt),
          leaseOwner: null,
          leaseUntil: null,
          updatedAt: BigInt(at),
        },
      });
      if (count === 0) {
        const { count: resent } = await db.webhookDelivery.updateMany({ where: { id: row.id, leaseOwner: row.leaseOwner }, data: { leaseOwner: null, leaseUntil: null } });
        // Deleted meanwhile (with the endpoint or the message's document), or no longer ours: nothing to record against.
        if (resent === 0 && !(await db.webhookDelivery.findUnique({ where: { id: row.id }, select: { id: true } }))) return;
      }
      await db.webhookAttempt.create({
        data: {
          id: deps.ids.next('atmpt'),
          apiKeyId: message.apiKeyId,
          deliveryId: row.id,
          endpointId: row.endpointId,
          messageId: row.messageId,
          status: failed ? 'failed' : 'succeeded',
          responseStatusCode: outcome.status,
          response: outcome.response,
          durationMs,
          trigger: row.manual ? 'manual' : 'scheduled',
          nextAttemptAt: count === 1 && nextAt !== null ? BigInt(nextAt) : null,
          createdAt: BigInt(at),
        },
      });
      if (failed && outcome.gone) {
        // 410 Gone: the receiver says it is gone for good (Svix does the same).
        await db.webhookEndpoint.updateMany({ where: { id: row.endpointId }, data: { disabled: true, updatedAt: BigInt(at) } });
        // Its other messages will not be sent: canceled now, not only when each comes due (a retry may be
        // hours away). A try in flight elsewhere keeps its lease; its next claim finds the endpoint disabled.
        ({ count: canceled } = await db.webhookDelivery.updateMany({
          where: { endpointId: row.endpointId, state: 'pending', id: { not: row.id }, OR: [{ leaseUntil: null }, { leaseUntil: { lt: BigInt(at) } }] },
          data: { state: 'canceled', nextAttemptAt: null, leaseOwner: null, leaseUntil: null, updatedAt: BigInt(at) },
        }));
        deps.log.warn({ endpointId: row.endpointId }, 'webhook endpoint answered 410 Gone: disabled');
      }
      if (exhausted && count === 1) await reportExhausted(row, message, tries, outcome.status);
    });
    // Counted once recorded: a try whose recording failed counts as unrecorded (see launch).
    const result: WebhookOutcome = !failed ? 'delivered' : exhausted ? 'failed_final' : 'failed_retrying';
    // A manual resend's lag would be the age of the message it resends, not a delay of the pipeline.
    deps.metrics.recordDelivery(result, result === 'delivered' && !row.manual ? at - message.createdAt : undefined);
    if (canceled > 0) deps.metrics.recordDelivery('canceled', undefined, canceled);
  }

  function launch(work: Work): Promise<void> {
    const { row } = work;
    inFlight.set(row.endpointId, (inFlight.get(row.endpointId) ?? 0) + 1);
    inFlightIds.add(row.id);
    total += 1;
    const task = deliver(work)
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
        if (started && !stopped) void pump();
      });
    running.add(task);
    return task;
  }

  /** Claims for the free slots and launches; anything claimed after stop() began is given back. */
  async function claimAndLaunch(): Promise<Work[]> {
    const rows = await claim(options.concurrency - total);
    if (stopped) {
      await release(rows, clock.nowMs());
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

  function schedule() {
    if (!started || stopped || options.pollMs <= 0) return;
    timer = setTimeout(() => {
      void (async () => {
        await pump();
        if (!stopped && clock.nowMs() - lastPrune >= PRUNE_EVERY_MS) {
          pruning = dispatcher.prune().catch((error: unknown) => deps.log.error({ err: error }, 'webhook prune failed'));
          await pruning;
        }
        schedule();
      })();
    }, options.pollMs);
    timer.unref();
  }

  const dispatcher: WebhookDispatcher = {
    wake() {
      if (started && !stopped) detached(() => void pump());
    },

    async runDue() {
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
      lastPrune = clock.nowMs() - PRUNE_EVERY_MS + 60_000; // first prune a minute after start
      schedule();
      void pump();
    },

    async stop() {
      stopped = true;
      clearTimeout(timer);
      // A claim under way gives back what it got (claimAndLaunch); tries in flight finish (bounded by their timeout).
      await pumping;
      await pruning;
      while (running.size > 0) await Promise.allSettled([...running]);
      for (const pool of pools.values()) {
        pool.http.destroy();
        pool.https.destroy();
      }
      pools.clear();
    },

    async backlog() {
      const now = clock.nowMs();
      const q = sql();
      // Both from the (state, nextAttemptAt, id) index: a count of its pending range, and that range
      // in order up to the first due delivery no process holds (past at most the tries in flight).
      // Not one MIN over the range with the lease in the condition: that reads every pending row.
      const [row] = await db.$queryRawUnsafe<{ pending: number | bigint; oldestDue: number | bigint | null }[]>(
        `SELECT (SELECT COUNT(*) FROM "WebhookDelivery" WHERE "state" = 'pending') AS "pending",
                (SELECT "nextAttemptAt" FROM "WebhookDelivery"
                 WHERE "state" = 'pending' AND "nextAttemptAt" <= ${q.bind(now)} AND COALESCE("leaseUntil", 0) < ${q.bind(now)}
                 ORDER BY "nextAttemptAt" LIMIT 1) AS "oldestDue"`,
        ...q.params,
      );
      return {
        pending: Number(row?.pending ?? 0),
        oldestDueAgeMs: row?.oldestDue === null || row?.oldestDue === undefined ? 0 : Math.max(now - Number(row.oldestDue), 0),
      };
    },

    async prune() {
      lastPrune = clock.nowMs();
      const cutoff = BigInt(clock.nowMs() - options.retentionDays * 86_400_000);
      let removed = 0;
      for (;;) {
        // Old messages with no delivery still pending (a pending one is kept until it ends).
        const old = await db.webhookMessage.findMany({
          where: { createdAt: { lt: cutoff }, deliveries: { none: { state: 'pending' } } },
          select: { id: true },
          take: PRUNE_BATCH,
        });
        if (old.length > 0) await db.webhookMessage.deleteMany({ where: { id: { in: old.map((m) => m.id) } } });
        const events = await db.domainEvent.findMany({ where: { occurredAt: { lt: cutoff } }, select: { id: true }, take: PRUNE_BATCH });
        if (events.length > 0) await db.domainEvent.deleteMany({ where: { id: { in: events.map((e) => e.id) } } });
        removed += old.length + events.length;
        if (old.length < PRUNE_BATCH && events.length < PRUNE_BATCH) return removed;
      }
    },
  };
  return dispatcher;
}
