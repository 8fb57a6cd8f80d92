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
/** Claim candidates looked at per free slot (other processes may take some). */
const CANDIDATES_PER_SLOT = 2;
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
}

interface Claimed {
  id: string;
  endpointId: string;
  messageId: string;
  attempts: number | bigint;
  manual: boolean | number;
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
  message: { body: string; eventType: string; apiKeyId: string; organizationId: string | null; documentId: string | null };
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
  allowPrivateUrls: boolean;
  options: WebhookConfig;
}): WebhookDispatcher {
  const { db, clock, options } = deps;
  const owner = `whd_${randomBytes(8).toString('hex')}`;
  const postgres = providerOfClient(db) === 'postgresql';
  const leaseMs = options.timeoutMs * 2 + 5_000;
  const agents = guardedAgent({ maxSockets: Math.max(options.perEndpointConcurrency, 1) });
  const inFlight = new Map<string, number>(); // endpointId → tries running here
  const running = new Set<Promise<void>>();
  let total = 0;
  let started = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  /** The claim loop running now, if any: runDue and stop wait for what it is about to launch. */
  let pumpRun: Promise<void> | undefined;
  let pumpAgain = false;
  let lastPrune = 0;

  const sql = () => {
    const params: unknown[] = [];
    const bind = (value: unknown) => {
      params.push(value);
      return postgres ? `$${params.length}` : '?';
    };
    return { params, bind };
  };

  /**
   * Up to `slots` due deliveries, at most perEndpointConcurrency − running per
   * endpoint, leased to this process, with their endpoint and message.
   */
  async function claim(slots: number): Promise<Work[]> {
    if (slots <= 0) return [];
    const now = clock.nowMs();
    const q = sql();
    // Endpoints already at their cap here are left out of the candidates: their backlog (oldest first)
    // would otherwise fill the LIMIT and starve every other endpoint until one of their tries ends.
    const saturated = [...inFlight].filter(([, n]) => n >= options.perEndpointConcurrency).map(([endpointId]) => endpointId);
    // Placeholders in the order they appear in the text (SQLite's `?` are positional).
    const dueAt = q.bind(now);
    const leaseFree = q.bind(now);
    const notSaturated = saturated.length === 0 ? '' : ` AND "endpointId" NOT IN (${saturated.map((id) => q.bind(id)).join(', ')})`;
    // Oldest due first, read through the (state, nextAttemptAt) index: the cost is the LIMIT, not the backlog.
    // An endpoint below its cap can hold at most perEndpointConcurrency candidates it cannot take, so the
    // LIMIT leaves room past them; candidates are only candidates, the conditional UPDATE below decides.
    const candidates = await db.$queryRawUnsafe<{ id: string; endpointId: string }[]>(
      `SELECT "id", "endpointId" FROM "WebhookDelivery"
       WHERE "state" = 'pending' AND "nextAttemptAt" <= ${dueAt} AND COALESCE("leaseUntil", 0) < ${leaseFree}${notSaturated}
       ORDER BY "nextAttemptAt", "id" LIMIT ${q.bind(slots * CANDIDATES_PER_SLOT + options.perEndpointConcurrency)}`,
      ...q.params,
    );
    const chosen: string[] = [];
    const taken = new Map<string, number>();
    for (const row of candidates) {
      if (chosen.length >= slots) break;
      const busy = (inFlight.get(row.endpointId) ?? 0) + (taken.get(row.endpointId) ?? 0);
      if (busy >= options.perEndpointConcurrency) continue;
      taken.set(row.endpointId, (taken.get(row.endpointId) ?? 0) + 1);
      chosen.push(row.id);
    }
    if (chosen.length === 0) return [];
    const u = sql();
    const rows = await db.$queryRawUnsafe<Claimed[]>(
      `UPDATE "WebhookDelivery" SET "leaseOwner" = ${u.bind(owner)}, "leaseUntil" = ${u.bind(now + leaseMs)}, "updatedAt" = ${u.bind(now)}
       WHERE "id" IN (${chosen.map((id) => u.bind(id)).join(', ')}) AND "state" = 'pending' AND "nextAttemptAt" <= ${u.bind(now)} AND COALESCE("leaseUntil", 0) < ${u.bind(now)}
       RETURNING "id", "endpointId", "messageId", "attempts", "manual"`,
      ...u.params,
    );
    if (rows.length === 0) return [];
    // Endpoints and messages of the whole claim in one statement, not two per try (on SQLite each statement waits its turn).
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
      }[]
    >(
      `SELECT d."id", e."url", e."disabled", e."rateLimit", e."secretSealed", e."previousSecretSealed", e."previousSecretUntil",
              m."body", m."eventType", m."apiKeyId", m."organizationId", m."documentId"
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
          message: { body: x.body, eventType: x.eventType, apiKeyId: x.apiKeyId, organizationId: x.organizationId, documentId: x.documentId },
        },
      ];
    });
  }

  /** Gives a delivery back without a try (rate limit): due again at `at`. */
  async function release(row: Claimed, at: number): Promise<void> {
    await db.webhookDelivery.updateMany({
      where: { id: row.id, leaseOwner: owner },
      data: { leaseOwner: null, leaseUntil: null, nextAttemptAt: BigInt(at), updatedAt: BigInt(clock.nowMs()) },
    });
  }

  /**
   * One slot of the endpoint's per-second budget, counted on the endpoint row
   * so every process shares it: a fixed one-second window, taken by one
   * conditional UPDATE. The window only moves forward: a process whose second
   * is already past (it read the clock just before another process opened
   * the next window) gets no slot, rather than resetting the newer window's count.
   * `at` is when the try starts: its webhook-timestamp is in the window it counts in.
   */
  async function takeRateSlot(endpointId: string, limit: number, at: number): Promise<{ taken: boolean; second: number }> {
    const second = Math.floor(at / 1000);
    const q = sql();
    const rows = await db.$queryRawUnsafe<{ id: string }[]>(
      `UPDATE "WebhookEndpoint"
       SET "rateCount" = CASE WHEN "rateWindow" = ${q.bind(second)} THEN "rateCount" + 1 ELSE 1 END, "rateWindow" = ${q.bind(second)}
       WHERE "id" = ${q.bind(endpointId)} AND ("rateWindow" < ${q.bind(second)} OR ("rateWindow" = ${q.bind(second)} AND "rateCount" < ${q.bind(limit)}))
       RETURNING "id"`,
      ...q.params,
    );
    return { taken: rows.length === 1, second };
  }

  async function send(url: string, secrets: string[], messageId: string, body: string, startAt: number): Promise<{ outcome: Outcome; durationMs: number }> {
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
        agents,
      });
    } catch (error) {
      const durationMs = Math.round(performance.now() - started);
      if (!(error instanceof OutboundError)) throw error;
      if (error.kind === 'blocked' || error.kind === 'network') deps.log.warn({ messageId, ...error.detail }, `webhook delivery failed: ${error.message}`);
      return { outcome: { kind: 'failure', status: null, response: error.message, retryAfterMs: null, gone: false }, durationMs };
    }
    const durationMs = Math.round(performance.now() - started);
    const response = result.text.slice(0, RESPONSE_EXCERPT_CHARS);
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

  const opened = new Map<string, { sealed: string; secret: string }>();
  const open = (sealed: string) => {
    const known = opened.get(sealed);
    if (known) return known.secret;
    const secret = deps.sealer.open(sealed);
    if (opened.size > 10_000) opened.clear();
    opened.set(sealed, { sealed, secret });
    return secret;
  };

  async function deliver({ row, endpoint, message }: Work): Promise<void> {
    const now = clock.nowMs();
    if (endpoint.disabled) {
      await db.webhookDelivery.updateMany({
        where: { id: row.id, leaseOwner: owner },
        data: { state: 'canceled', leaseOwner: null, leaseUntil: null, nextAttemptAt: null, updatedAt: BigInt(now) },
      });
      return;
    }
    // The try's start: its rate-limit window and its webhook-timestamp.
    const startAt = clock.nowMs();
    if (endpoint.rateLimit !== null) {
      const slot = await takeRateSlot(row.endpointId, endpoint.rateLimit, startAt);
      if (!slot.taken) {
        await release(row, (slot.second + 1) * 1000);
        return;
      }
    }
    const secrets = [open(endpoint.secretSealed)];
    if (endpoint.previousSecretSealed !== null && Number(endpoint.previousSecretUntil ?? 0) > now) secrets.push(open(endpoint.previousSecretSealed));

    const { outcome, durationMs } = await send(endpoint.url, secrets, row.messageId, message.body, startAt);

    const tries = Number(row.attempts) + 1;
    const at = clock.nowMs();
    const failed = outcome.kind === 'failure';
    const exhausted = failed && (outcome.gone || tries >= MAX_TRIES);
    const nextAt =
      failed && !exhausted
        ? at + Math.max(Math.round(RETRY_SCHEDULE_MS[tries - 1]! * options.retryScale), outcome.retryAfterMs ?? 0)
        : null;
    await deps.uow.run(async () => {
      const { count } = await db.webhookDelivery.updateMany({
        where: { id: row.id, leaseOwner: owner },
        data: {
          state: !failed ? 'succeeded' : exhausted ? 'failed' : 'pending',
          attempts: tries,
          manual: false,
          nextAttemptAt: nextAt === null ? null : BigInt(nextAt),
          leaseOwner: null,
          leaseUntil: null,
          updatedAt: BigInt(at),
        },
      });
      // Deleted meanwhile (with the endpoint or the message's document): nothing to record against.
      if (count === 0 && !(await db.webhookDelivery.findUnique({ where: { id: row.id }, select: { id: true } }))) return;
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
          nextAttemptAt: nextAt === null ? null : BigInt(nextAt),
          createdAt: BigInt(at),
        },
      });
      if (failed && outcome.gone) {
        // 410 Gone: the receiver says it is gone for good (Svix does the same).
        await db.webhookEndpoint.updateMany({ where: { id: row.endpointId }, data: { disabled: true, updatedAt: BigInt(at) } });
        // Its other messages will not be sent: canceled now, not only when each comes due (a retry may be
        // hours away). A try in flight elsewhere keeps its lease; its next claim finds the endpoint disabled.
        await db.webhookDelivery.updateMany({
          where: { endpointId: row.endpointId, state: 'pending', id: { not: row.id }, OR: [{ leaseUntil: null }, { leaseUntil: { lt: BigInt(at) } }] },
          data: { state: 'canceled', nextAttemptAt: null, leaseOwner: null, leaseUntil: null, updatedAt: BigInt(at) },
        });
        deps.log.warn({ endpointId: row.endpointId }, 'webhook endpoint answered 410 Gone: disabled');
      }
      if (exhausted && count === 1 && message.eventType !== EXHAUSTED_EVENT) {
        await deps.events.publish({
          type: EXHAUSTED_EVENT,
          apiKeyId: message.apiKeyId,
          ...(message.organizationId === null ? {} : { organizationId: message.organizationId }),
          ...(message.documentId === null ? {} : { documentId: message.documentId }),
          payload: {
            endpointId: row.endpointId,
            messageId: row.messageId,
            eventType: message.eventType,
            attempts: tries,
            lastResponseStatusCode: outcome.status,
          },
        });
      }
    });
  }

  function launch(work: Work): Promise<void> {
    const { row } = work;
    inFlight.set(row.endpointId, (inFlight.get(row.endpointId) ?? 0) + 1);
    total += 1;
    const task = deliver(work)
      .catch((error: unknown) => {
        // The lease runs out and the delivery is tried again: nothing is lost.
        deps.log.error({ err: error, deliveryId: row.id }, 'webhook delivery could not be recorded');
      })
      .finally(() => {
        total -= 1;
        const left = (inFlight.get(row.endpointId) ?? 1) - 1;
        if (left === 0) inFlight.delete(row.endpointId);
        else inFlight.set(row.endpointId, left);
        running.delete(task);
        if (started && !stopped) void pump();
      });
    running.add(task);
    return task;
  }

  /** Fills free slots until nothing more is due; one pump at a time, re-run when asked meanwhile. */
  function pump(): Promise<void> {
    if (pumpRun !== undefined) {
      pumpAgain = true;
      return pumpRun;
    }
    pumpRun = (async () => {
      try {
        do {
          pumpAgain = false;
          if (stopped) break;
          const free = options.concurrency - total;
          const rows = await claim(free);
          for (const row of rows) void launch(row);
          if (rows.length > 0 && rows.length === free) pumpAgain = false; // slots refill through launch's finally
        } while (pumpAgain);
      } catch (error) {
        deps.log.error({ err: error }, 'webhook dispatcher poll failed');
      } finally {
        pumpRun = undefined;
      }
    })();
    return pumpRun;
  }

  function schedule() {
    if (!started || stopped || options.pollMs <= 0) return;
    timer = setTimeout(() => {
      void (async () => {
        await pump();
        if (clock.nowMs() - lastPrune >= PRUNE_EVERY_MS) await dispatcher.prune().catch((error: unknown) => deps.log.error({ err: error }, 'webhook prune failed'));
        schedule();
      })();
    }, options.pollMs);
    timer.unref();
  }

  const dispatcher: WebhookDispatcher = {
    wake() {
      if (started && !stopped) void pump();
    },

    async runDue() {
      let tries = 0;
      for (;;) {
        // A claim of the background pump (woken by a commit) may hold rows it has not launched yet:
        // wait for it, or this would see nothing due and nothing running, and return too early.
        if (pumpRun !== undefined) await pumpRun;
        const rows = await claim(options.concurrency - total);
        if (rows.length === 0) {
          if (pumpRun !== undefined) continue;
          if (running.size === 0) return tries;
          await Promise.race(running);
          continue;
        }
        tries += rows.length;
        await Promise.all(rows.map(launch));
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
      // A claim in progress launches what it took: wait for it, then for every try.
      if (pumpRun !== undefined) await pumpRun;
      while (running.size > 0) await Promise.allSettled([...running]);
      agents.http.destroy();
      agents.https.destroy();
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
