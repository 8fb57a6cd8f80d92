import { AsyncResource } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { providerOfClient, type Db } from '../db/client.js';
import { rawParams } from '../db/raw-params.js';
import type { UnitOfWork } from '../db/unit-of-work.js';
import type { Clock } from '../lib/clock.js';
import type { Ids } from '../lib/ids.js';
import type { JobQueueStats } from './metrics.js';

/**
 * Durable jobs on the application database (SQLite or PostgreSQL alike).
 *
 * - Enqueued inside the unit of work of the change that asks for them, so a
 *   rolled-back change leaves no job and a committed one never loses its job.
 * - Claimed with one conditional UPDATE that sets a lease (`FOR UPDATE SKIP
 *   LOCKED` on PostgreSQL): of two processes racing for a job, one updates a
 *   row and the other none, so a job never runs twice at the same time.
 * - A job whose worker died (crash, deploy) keeps its lease until it runs
 *   out, then any worker claims it again: work resumes after a restart.
 *   Handlers must therefore be idempotent (safe to run again after a partial run).
 * - A failure is retried with backoff until `maxAttempts`, then the job is
 *   `failed` with the last error as its reason.
 * - Tests call `runDue()` and move a test clock; nothing sleeps.
 */

export type JobState = 'pending' | 'running' | 'completed' | 'failed';

export interface JobDef<P> {
  kind: string;
  payload: z.ZodType<P>;
  /** Prefix of the job's ID (it is what callers see, e.g. a migrationId). */
  idPrefix?: string;
  /** How long a claim lasts without a heartbeat; the worker renews it while the job runs. Default 60 s. */
  leaseMs?: number;
  /** Runs in total before the job fails for good. Default 8. */
  maxAttempts?: number;
  /** Delay before the next try after `attempt` failed tries. Default: 1 s doubling, at most 5 min. */
  retryIn?(attempt: number): number;
  /**
   * Jobs of this kind at once in one process, in a lane of their own: a
   * long job (an agent run) then never holds up the other kinds (emails,
   * migrations), which share one lane and run one at a time.
   */
  concurrency?: number;
  /** Returns the job's result (stored as JSON). Throw to fail this attempt. */
  run(job: RunningJob<P>): Promise<unknown>;
  /**
   * Called once when the job fails for good (its last attempt threw, or its
   * worker stopped on every attempt), so that what the job stands for (an
   * agent run's row) is not left looking unfinished. Errors are logged.
   */
  failed?(payload: P, reason: string): Promise<void>;
}

export interface RunningJob<P> {
  id: string;
  payload: P;
  attempt: number;
  /** Aborted when the lease was lost (another worker may now run the job): stop as soon as possible. */
  signal: AbortSignal;
}

export interface JobRecord {
  id: string;
  kind: string;
  apiKeyId: string | null;
  state: JobState;
  attempts: number;
  runAt: number;
  lastError: string | null;
  result: unknown;
  payload: unknown;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
}

export interface EnqueueOptions {
  apiKeyId?: string;
  /** Unix ms; default now. */
  runAt?: number;
  /** Idempotency key: enqueueing again with the same key returns the first job's ID. */
  key?: string;
}

export interface Jobs {
  define<P>(def: JobDef<P>): JobDef<P>;
  enqueue<P>(def: JobDef<P>, payload: P, options?: EnqueueOptions): Promise<string>;
  get(id: string): Promise<JobRecord | null>;
  /** Claims and runs due jobs one after another until none is due (or `limit` ran); returns how many ran. */
  runDue(limit?: number): Promise<number>;
  /** Polls every `pollMs` and right after a unit of work enqueued a job. */
  start(): void;
  /** Stops polling and waits for the running job to finish. */
  stop(): Promise<void>;
  /** Unfinished jobs of every kind this process defines, for the metrics: index lookups per kind, one statement. */
  queueStats(): Promise<JobQueueStats[]>;
}

interface ClaimedRow {
  id: string;
  kind: string;
  payload: string;
  attempts: number | bigint;
  /** The lease the claim set (ms). */
  leaseMs?: number;
}

const DEFAULT_LEASE_MS = 60_000;
const DEFAULT_MAX_ATTEMPTS = 8;
const defaultRetryIn = (attempt: number) => Math.min(1000 * 2 ** (attempt - 1), 300_000);
/** Error text kept on a job: enough to diagnose, never a whole stack or payload. */
const MAX_ERROR_CHARS = 500;

export function createJobs(deps: { db: Db; uow: UnitOfWork; ids: Ids; clock: Clock; log: Logger; pollMs: number }): Jobs {
  const { db, clock } = deps;
  const owner = `worker_${randomBytes(8).toString('hex')}`;
  const defs = new Map<string, JobDef<unknown>>();
  let timer: NodeJS.Timeout | undefined;
  let started = false;
  let stopping = false;
  // The worker runs in the async context it was made in, not in that of the request whose commit
  // woke it: its log lines are not that request's (see server/http/logging.ts).
  const detached = AsyncResource.bind((work: () => void) => work());

  async function claim(kinds: readonly string[]): Promise<ClaimedRow | null> {
    if (kinds.length === 0) return null;
    const now = clock.nowMs();
    // The shortest lease of the kinds claimed, renewed to the claimed kind's own right after: a worker that
    // dies in between leaves the job to others no later than its kind allows (a clock moved between the
    // claim and that renewal cannot leave it held past its own lease).
    const leaseMs = Math.min(...kinds.map((kind) => defs.get(kind)?.leaseMs ?? DEFAULT_LEASE_MS));
    const lease = now + leaseMs;
    const postgres = providerOfClient(db) === 'postgresql';
    const { params, bind } = rawParams(db);
    // One statement: of two racing workers one updates the row, the other zero rows.
    const sql = `UPDATE "Job" SET "state" = 'running', "leaseOwner" = ${bind(owner)}, "leaseUntil" = ${bind(lease)}, "attempts" = "attempts" + 1, "updatedAt" = ${bind(now)}
      WHERE "id" = (SELECT "id" FROM "Job" WHERE "state" IN ('pending', 'running') AND "runAt" <= ${bind(now)} AND COALESCE("leaseUntil", 0) < ${bind(now)}
        AND "kind" IN (${kinds.map(bind).join(', ')}) ORDER BY "runAt", "id" LIMIT 1${postgres ? ' FOR UPDATE SKIP LOCKED' : ''})
      AND "state" IN ('pending', 'running') AND COALESCE("leaseUntil", 0) < ${bind(now)}
      RETURNING "id", "kind", "payload", "attempts"`;
    const rows = await db.$queryRawUnsafe<ClaimedRow[]>(sql, ...params);
    return rows[0] === undefined ? null : { ...rows[0], leaseMs };
  }

  async function runOne(row: ClaimedRow): Promise<void> {
    const def = defs.get(row.kind);
    if (def === undefined) return;
    const leaseMs = def.leaseMs ?? DEFAULT_LEASE_MS;
    const attempt = Number(row.attempts);
    const maxAttempts = def.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    if (attempt > maxAttempts) {
      // Claimed again after its lease ran out every time: the job takes its worker down
      // (out of memory, a crash) or never finishes. Running it again would loop for ever.
      const now = BigInt(clock.nowMs());
      await db.job.updateMany({
        where: { id: row.id, leaseOwner: owner },
        data: { state: 'failed', leaseOwner: null, leaseUntil: null, lastError: `its worker stopped before it finished, ${maxAttempts} times`, finishedAt: now, updatedAt: now },
      });
      deps.log.error({ jobId: row.id, kind: row.kind, attempts: maxAttempts }, 'job failed: its worker stopped on every attempt');
      await giveUp(def, row, `its worker stopped before it finished, ${maxAttempts} times`);
      return;
    }
    const controller = new AbortController();
    const renew = async () => {
      const { count } = await db.job.updateMany({
        where: { id: row.id, leaseOwner: owner },
        data: { leaseUntil: BigInt(clock.nowMs() + leaseMs), updatedAt: BigInt(clock.nowMs()) },
      });
      if (count === 0) controller.abort(new Error('lease lost'));
    };
    // The claim set the shortest lease of its kinds: this kind's own unless another is shorter.
    if (row.leaseMs !== leaseMs) await renew();
    const heartbeat = setInterval(() => void renew().catch(() => undefined), Math.max(1000, Math.floor(leaseMs / 3)));
    heartbeat.unref();
    try {
      const payload = def.payload.parse(JSON.parse(row.payload));
      const result = await def.run({ id: row.id, payload, attempt, signal: controller.signal });
      const at = BigInt(clock.nowMs());
      await db.job.updateMany({
        where: { id: row.id, leaseOwner: owner },
        data: { state: 'completed', leaseOwner: null, leaseUntil: null, result: JSON.stringify(result ?? null), lastError: null, finishedAt: at, updatedAt: at },
      });
    } catch (error) {
      const message = (error instanceof Error ? error.message : String(error)).slice(0, MAX_ERROR_CHARS);
      const now = clock.nowMs();
      const last = attempt >= maxAttempts;
      deps.log.warn({ jobId: row.id, kind: row.kind, attempt, giveUp: last, err: message }, 'job attempt failed');
      const { count } = await db.job.updateMany({
        where: { id: row.id, leaseOwner: owner },
        data: last
          ? { state: 'failed', leaseOwner: null, leaseUntil: null, lastError: message, finishedAt: BigInt(now), updatedAt: BigInt(now) }
          : { state: 'pending', leaseOwner: null, leaseUntil: null, lastError: message, runAt: BigInt(now + (def.retryIn ?? defaultRetryIn)(attempt)), updatedAt: BigInt(now) },
      });
      if (last && count > 0) await giveUp(def, row, message);
    } finally {
      clearInterval(heartbeat);
    }
  }

  async function giveUp(def: JobDef<unknown>, row: ClaimedRow, reason: string): Promise<void> {
    if (def.failed === undefined) return;
    try {
      await def.failed(def.payload.parse(JSON.parse(row.payload)), reason);
    } catch (error) {
      deps.log.error({ jobId: row.id, kind: row.kind, err: error }, 'job failure hook failed');
    }
  }

  /**
   * A lane: the kinds it claims and how many of its jobs run at once. Kinds
   * without `concurrency` share the first lane, one job at a time.
   */
  interface Lane {
    kinds: string[];
    width: number;
    loops: Set<Promise<number>>;
    /** Asked to run while its loops were busy: a loop that finds nothing due looks once more. */
    again: boolean;
  }
  const shared: Lane = { kinds: [], width: 1, loops: new Set(), again: false };
  const lanes: Lane[] = [shared];

  async function loop(lane: Lane, limit: { left: number }): Promise<number> {
    let ran = 0;
    // A stopping worker finishes the job it runs and claims no more (a backlog, e.g. emails to a relay that is down, would hold shutdown).
    while (limit.left > 0 && !stopping) {
      lane.again = false;
      const row = await claim(lane.kinds);
      if (row === null) {
        if (lane.again) continue;
        break;
      }
      limit.left -= 1;
      await runOne(row);
      ran += 1;
    }
    return ran;
  }

  /** Starts loops up to the lane's width; resolves with the jobs its loops ran once they have all ended. */
  async function drainLane(lane: Lane, limit: { left: number }): Promise<number> {
    lane.again = true;
    while (lane.loops.size < lane.width && !stopping) {
      const running: Promise<number> = loop(lane, limit).finally(() => lane.loops.delete(running));
      lane.loops.add(running);
    }
    let ran = 0;
    // Loops started meanwhile (another runDue) are waited for too.
    while (lane.loops.size > 0) ran += (await Promise.all([...lane.loops])).reduce((sum, n) => sum + n, 0);
    return ran;
  }

  // When the pending timer fires; a later request never pushes an earlier one
  // back (a poll finishing must not cancel the wake-up a commit just asked for).
  let timerAt = Number.POSITIVE_INFINITY;
  function schedule(delay: number) {
    if (!started || deps.pollMs <= 0) return;
    const at = performance.now() + delay;
    if (at >= timerAt) return;
    clearTimeout(timer);
    timerAt = at;
    detached(() => {
      timer = setTimeout(() => {
        timerAt = Number.POSITIVE_INFINITY;
        jobs.runDue().then(
          () => schedule(deps.pollMs),
          (error: unknown) => {
            deps.log.error({ err: error }, 'job worker poll failed');
            schedule(deps.pollMs);
          },
        );
      }, delay);
      timer.unref();
    });
  }

  const jobs: Jobs = {
    define(def) {
      if (defs.has(def.kind)) throw new Error(`job kind ${def.kind} is defined twice`);
      defs.set(def.kind, def as JobDef<unknown>);
      if (def.concurrency === undefined) shared.kinds.push(def.kind);
      else lanes.push({ kinds: [def.kind], width: Math.max(1, def.concurrency), loops: new Set(), again: false });
      return def;
    },

    async enqueue(def, payload, options = {}) {
      if (!defs.has(def.kind)) throw new Error(`job kind ${def.kind} is not defined`);
      const now = clock.nowMs();
      // Keys are per application: another application's key never returns this one's job.
      const key = options.key === undefined ? undefined : `${options.apiKeyId ?? ''}\n${options.key}`;
      const data = {
        id: deps.ids.next(def.idPrefix ?? 'job'),
        kind: def.kind,
        apiKeyId: options.apiKeyId ?? null,
        key: key ?? null,
        payload: JSON.stringify(def.payload.parse(payload)),
        state: 'pending',
        runAt: BigInt(options.runAt ?? now),
        createdAt: BigInt(now),
        updatedAt: BigInt(now),
      };
      const row =
        key === undefined
          ? await db.job.create({ data, select: { id: true } })
          : await db.job.upsert({ where: { key }, create: data, update: {}, select: { id: true } });
      deps.uow.afterCommit(() => schedule(0));
      return row.id;
    },

    async get(id) {
      const row = await db.job.findUnique({ where: { id } });
      if (row === null) return null;
      return {
        id: row.id,
        kind: row.kind,
        apiKeyId: row.apiKeyId,
        state: row.state as JobState,
        attempts: row.attempts,
        runAt: Number(row.runAt),
        lastError: row.lastError,
        result: row.result === null ? null : (JSON.parse(row.result) as unknown),
        payload: JSON.parse(row.payload) as unknown,
        createdAt: Number(row.createdAt),
        updatedAt: Number(row.updatedAt),
        finishedAt: row.finishedAt === null ? null : Number(row.finishedAt),
      };
    },

    async runDue(limit = Number.POSITIVE_INFINITY) {
      // Each lane at most its width at once; a caller while a lane is busy waits for its loops, which look again before they end.
      const left = { left: limit };
      const ran = await Promise.all(lanes.map((lane) => drainLane(lane, left)));
      return ran.reduce((sum, n) => sum + n, 0);
    },

    start() {
      started = true;
      schedule(0);
    },

    async stop() {
      stopping = true;
      started = false;
      clearTimeout(timer);
      timerAt = Number.POSITIVE_INFINITY;
      await Promise.all(lanes.flatMap((lane) => [...lane.loops].map((running) => running.catch(() => 0))));
    },

    async queueStats() {
      const kinds = [...defs.keys()];
      if (kinds.length === 0) return [];
      const now = clock.nowMs();
      const { params, bind } = rawParams(db);
      // Per kind, lookups the (state, kind, runAt) index answers alone: two counts of one index
      // range each and the range's first runAt. Not one GROUP BY over every unfinished job: that
      // reads each row, and on SQLite (synchronous) a long read stops the whole process.
      // One statement: on SQLite each statement waits its turn for the connection.
      const rows = await db.$queryRawUnsafe<{ i: number | bigint; pending: number | bigint; running: number | bigint; oldest: number | bigint | null }[]>(
        kinds
          .map(
            (kind, i) =>
              `SELECT ${i} AS "i",
                 (SELECT COUNT(*) FROM "Job" WHERE "state" = 'pending' AND "kind" = ${bind(kind)}) AS "pending",
                 (SELECT COUNT(*) FROM "Job" WHERE "state" = 'running' AND "kind" = ${bind(kind)}) AS "running",
                 (SELECT "runAt" FROM "Job" WHERE "state" = 'pending' AND "kind" = ${bind(kind)} ORDER BY "runAt" LIMIT 1) AS "oldest"`,
          )
          .join(' UNION ALL '),
        ...params,
      );
      // Every kind this process runs, idle ones at 0, so their series do not vanish between scrapes.
      return rows
        .map((row) => {
          const oldest = row.oldest === null ? null : Number(row.oldest);
          return {
            kind: kinds[Number(row.i)]!,
            pending: Number(row.pending),
            running: Number(row.running),
            // The earliest pending job is due or none is.
            oldestDueAgeMs: oldest !== null && oldest <= now ? now - oldest : 0,
          };
        })
        .sort((x, y) => x.kind.localeCompare(y.kind));
    },
  };
  return jobs;
}
