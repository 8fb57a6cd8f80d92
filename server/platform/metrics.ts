import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Logger } from 'pino';

/**
 * The server's Prometheus metrics (served at GET /metrics, see
 * server/http/metrics.ts; every metric is listed in docs/operations.md,
 * "Metrics and logs"). One registry per server instance, so several servers in one process
 * (the tests) never share counters, plus one registry of process metrics per
 * process. Labels take only values from small fixed sets (operation names,
 * statuses, job kinds): never an ID, a URL or anything a caller chooses.
 */

/** What became of a claimed webhook delivery. */
export type WebhookOutcome =
  /** A try got a 2xx answer. */
  | 'delivered'
  /** A try failed; another is scheduled. */
  | 'failed_retrying'
  /** A try failed and no other will be made (its last try, or 410 Gone), or its tries could not be recorded. */
  | 'failed_final'
  /** Its endpoint was disabled when it came due, or answered another delivery's try with 410 Gone: no try. */
  | 'canceled'
  /** Given back without a try: the endpoint's rate limit, or too little lease left; due again shortly. */
  | 'deferred'
  /** The try's outcome could not be stored (the database failed): the delivery is claimed again when its lease runs out. */
  | 'unrecorded';

export interface WebhookMetrics {
  /** `lagMs`: on a delivered scheduled try, the time since its message was created. `count`: deliveries ended alike at once (default 1). */
  recordDelivery(outcome: WebhookOutcome, lagMs?: number, count?: number): void;
}

export interface JobQueueStats {
  kind: string;
  pending: number;
  running: number;
  /** How long the oldest pending job whose run time has come has waited; 0 when none. */
  oldestDueAgeMs: number;
}

export interface WebhookBacklogStats {
  /** Deliveries still to be made (in flight included). */
  pending: number;
  /** How long the oldest due delivery that no process is trying has waited; 0 when none. */
  oldestDueAgeMs: number;
}

export interface PoolStats {
  /** Connections open (SQLite: its one connection). */
  open: number;
  /** Of those, not serving a query or transaction (SQLite: its statement gate is free). */
  idle: number;
  /** Queries and transactions waiting for a connection (PostgreSQL: the pool's queue; SQLite: the statement gate's line, and those waiting out another connection's lock on the file). */
  waiting: number;
  /** The most connections the pool opens. */
  max: number;
}

export interface RealtimeStats {
  documents: number;
  /** WebSocket clients with at least one document open. */
  websocketConnections: number;
  /** Documents held open by the REST operations (CRDT reads and writes). */
  directConnections: number;
}

/** Where the gauges read at scrape time come from (nothing is counted on the request path for them). */
export interface MetricSources {
  jobs(): Promise<JobQueueStats[]>;
  webhookBacklog(): Promise<WebhookBacklogStats>;
  pool(): PoolStats;
  realtime(): RealtimeStats;
}

/**
 * Request latency, in seconds: most operations answer within milliseconds;
 * the long tail is Ask AI and bulk operations (up to AI_TIMEOUT_MS, 60 s).
 */
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Message creation to delivery: sub-second when the receiver is up, hours along the retry schedule when it was not. */
const WEBHOOK_LAG_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 7200, 21600, 86400];
/** A scrape answers within this even when the database does not: the gauges it could not read are left out. */
const SCRAPE_QUERY_TIMEOUT_MS = 2000;
/**
 * How long the values read from the database (job queue, webhook backlog) are
 * served again before the next read: however often Prometheus (or several of
 * them) scrapes, the database answers those queries at most this often.
 */
export const SCRAPE_CACHE_MS = 10_000;

export interface Metrics extends WebhookMetrics {
  readonly contentType: string;
  /** One request, once its response ended (or its client went away: status `aborted`). */
  recordRequest(operation: string, status: string, code: string, seconds: number): void;
  /** Adds the gauges read at scrape time; once per instance. `now` (Unix ms) times the reads kept for SCRAPE_CACHE_MS. */
  watch(sources: MetricSources, log: Logger, now: () => number): void;
  /** The exposition text: this instance's metrics and the process's. */
  text(): Promise<string>;
  /** This instance's metrics as objects (tests). */
  json(): ReturnType<Registry['getMetricsAsJSON']>;
}

export function createMetrics(options: { processMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  const registers = [registry];
  const requests = new Counter({
    name: 'collab_http_requests_total',
    help: 'HTTP requests by contract operation (operationId; unmatched: no operation), envelope status (success, an error status, or aborted) and HTTP code.',
    labelNames: ['operation', 'status', 'code'] as const,
    registers,
  });
  const duration = new Histogram({
    name: 'collab_http_request_duration_seconds',
    help: 'Time from receiving a request to the end of its response, by operation, status and HTTP code.',
    labelNames: ['operation', 'status', 'code'] as const,
    buckets: REQUEST_BUCKETS,
    registers,
  });
  const deliveries = new Counter({
    name: 'collab_webhook_deliveries_total',
    help: 'Claimed webhook deliveries by outcome: delivered, failed_retrying, failed_final, canceled, deferred, unrecorded.',
    labelNames: ['outcome'] as const,
    registers,
  });
  const lag = new Histogram({
    name: 'collab_webhook_delivery_lag_seconds',
    help: 'Time from the creation of a webhook message to its successful delivery (scheduled tries; manual resends are left out).',
    buckets: WEBHOOK_LAG_BUCKETS,
    registers,
  });
  const processRegistry = options.processMetrics ? processMetrics() : undefined;
  let watching = false;

  return {
    contentType: registry.contentType,
    recordRequest(operation, status, code, seconds) {
      const labels = { operation, status, code };
      requests.inc(labels);
      duration.observe(labels, seconds);
    },
    recordDelivery(outcome, lagMs, count = 1) {
      deliveries.inc({ outcome }, count);
      if (lagMs !== undefined) lag.observe(Math.max(lagMs, 0) / 1000);
    },
    watch(sources, log, now) {
      if (watching) throw new Error('metric sources are watched once per instance');
      watching = true;

      const sourceUp = new Gauge({
        name: 'collab_metrics_source_up',
        help: 'Whether the last read of a database source of gauges succeeded (1) or failed (0): jobs, webhooks. While 0 its gauges are left out.',
        labelNames: ['source'] as const,
        registers,
        collect: async () => {
          await Promise.all([readJobs(), readBacklog()]);
        },
      });
      /**
       * One read of a database source, its result kept for SCRAPE_CACHE_MS:
       * whatever asks meanwhile (the source's other gauges in the same
       * scrape, the next scrapes) gets the same values. A failed read leaves
       * its gauges without samples and the source at 0, never at a 0 value
       * that would look like an empty queue.
       */
      const source = <T>(name: string, what: string, gauges: Gauge[], read: () => Promise<T>, show: (value: T) => void): (() => Promise<void>) =>
        cachedFor(SCRAPE_CACHE_MS, now, async () => {
          try {
            const value = await withTimeout(read(), what);
            for (const gauge of gauges) gauge.reset();
            show(value);
            sourceUp.set({ source: name }, 1);
          } catch (error) {
            for (const gauge of gauges) leaveOut(gauge);
            sourceUp.set({ source: name }, 0);
            log.warn({ err: error, source: name }, 'metrics: a gauge could not be read; it is left out until a read succeeds');
          }
        });

      const depth = new Gauge({
        name: 'collab_job_queue_depth',
        help: 'Durable jobs not finished, by kind and state (pending: waiting for its run time or a worker; running: claimed by a worker).',
        labelNames: ['kind', 'state'] as const,
        registers,
        collect: (): Promise<void> => readJobs(),
      });
      const oldestJob = new Gauge({
        name: 'collab_job_queue_oldest_due_age_seconds',
        help: 'By kind, how long the oldest pending job whose run time has come has waited for a worker (0: none).',
        labelNames: ['kind'] as const,
        registers,
        collect: (): Promise<void> => readJobs(),
      });
      const readJobs: () => Promise<void> = source('jobs', 'the job queue', [depth, oldestJob], () => sources.jobs(), (stats) => {
        for (const kind of stats) {
          depth.set({ kind: kind.kind, state: 'pending' }, kind.pending);
          depth.set({ kind: kind.kind, state: 'running' }, kind.running);
          oldestJob.set({ kind: kind.kind }, kind.oldestDueAgeMs / 1000);
        }
      });

      const pendingDeliveries = new Gauge({
        name: 'collab_webhook_deliveries_pending',
        help: 'Webhook deliveries still to be made, by every process on this database (tries in flight included).',
        registers,
        collect: (): Promise<void> => readBacklog(),
      });
      const oldestDelivery = new Gauge({
        name: 'collab_webhook_oldest_due_age_seconds',
        help: 'How long the oldest due webhook delivery that no process is trying has waited (0: none).',
        registers,
        collect: (): Promise<void> => readBacklog(),
      });
      const readBacklog: () => Promise<void> = source('webhooks', 'the webhook deliveries', [pendingDeliveries, oldestDelivery], () => sources.webhookBacklog(), (backlog) => {
        pendingDeliveries.set(backlog.pending);
        oldestDelivery.set(backlog.oldestDueAgeMs / 1000);
      });

      new Gauge({
        name: 'collab_db_pool_connections',
        help: 'Database connections of this process by state (in_use, idle); SQLite has one, in use while a statement or transaction holds it.',
        labelNames: ['state'] as const,
        registers,
        collect() {
          const pool = sources.pool();
          this.set({ state: 'in_use' }, pool.open - pool.idle);
          this.set({ state: 'idle' }, pool.idle);
        },
      });
      new Gauge({
        name: 'collab_db_pool_max_connections',
        help: 'The most database connections this process opens (DATABASE_POOL_SIZE on PostgreSQL; 1 on SQLite).',
        registers,
        collect() {
          this.set(sources.pool().max);
        },
      });
      new Gauge({
        name: 'collab_db_pool_waiting_requests',
        help: "Queries and transactions waiting for a database connection (PostgreSQL: the pool's queue; SQLite: the line for its one connection).",
        registers,
        collect() {
          this.set(sources.pool().waiting);
        },
      });

      new Gauge({
        name: 'collab_crdt_documents_loaded',
        help: 'Collaborative documents loaded in this process (open over WebSocket or by a recent REST operation).',
        registers,
        collect() {
          this.set(sources.realtime().documents);
        },
      });
      new Gauge({
        name: 'collab_crdt_connections',
        help: 'Connections to loaded collaborative documents by kind (websocket: a client socket with a document open; direct: a document held by the REST operations).',
        labelNames: ['kind'] as const,
        registers,
        collect() {
          const stats = sources.realtime();
          this.set({ kind: 'websocket' }, stats.websocketConnections);
          this.set({ kind: 'direct' }, stats.directConnections);
        },
      });
    },
    async text() {
      const own = await registry.metrics();
      return processRegistry === undefined ? own : `${await processRegistry.metrics()}\n${own}`;
    },
    json: () => registry.getMetricsAsJSON(),
  };
}

/**
 * `load` at most once per `ttlMs` (by `now`), and once at a time: the
 * registry asks every gauge of a scrape at once, so they share one load.
 */
function cachedFor(ttlMs: number, now: () => number, load: () => Promise<void>): () => Promise<void> {
  let current: Promise<void> | undefined;
  let loadedAt = Number.NEGATIVE_INFINITY;
  return () => {
    const at = now();
    if (current === undefined || at - loadedAt >= ttlMs || at < loadedAt) {
      loadedAt = at;
      current = load();
    }
    return current;
  };
}

/**
 * No sample at all: reset() leaves nothing of a labelled gauge but puts an
 * unlabelled one back at 0 (prom-client 15); removing the series without
 * labels takes that 0 out (and is a no-op on a labelled gauge).
 */
function leaveOut(gauge: Gauge): void {
  gauge.reset();
  gauge.remove({});
}

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer about ${what} within ${SCRAPE_QUERY_TIMEOUT_MS} ms`)), SCRAPE_QUERY_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// Process metrics (CPU, memory, event loop lag, GC, handles) describe the
// process, not a server instance, and prom-client's collectors for them
// (a GC observer, an event-loop delay monitor) cannot be stopped: made once
// per process, even when this module is evaluated again (test runners).
const PROCESS_REGISTRY = Symbol.for('collab-backend.process-metrics');

function processMetrics(): Registry {
  const global = globalThis as { [PROCESS_REGISTRY]?: Registry };
  let registry = global[PROCESS_REGISTRY];
  if (registry === undefined) {
    registry = new Registry();
    collectDefaultMetrics({ register: registry });
    global[PROCESS_REGISTRY] = registry;
  }
  return registry;
}
