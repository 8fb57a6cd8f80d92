/**
 * Sizing of one server process, for the operator guide (docs/operations.md#sizing):
 * `BENCH_ONLY=sizing npm run bench`, once on SQLite and once with
 * BENCH_DATABASE_URL (and BENCH_REDIS_URL) on PostgreSQL.
 *
 * 1. Idle and under load: a fresh process of the built server; after
 *    BENCH_SIZING_SETTLE s without work, its RSS (VmRSS, and VmHWM: the peak
 *    while starting), open file descriptors and database connections; then
 *    the same sampled during BENCH_DURATION s of the mixed load on
 *    BENCH_CONNECTIONS connections (after BENCH_WARMUP s), and again
 *    BENCH_SIZING_SETTLE s after the load. On another fresh process, the
 *    same with BENCH_SIZING_SOCKETS WebSocket clients connected.
 * 2. Requests/s one process sustains: the mixed load and a cheap read, each
 *    on 1, 2, 4 … 64 connections (BENCH_SIZING_LEVELS) for BENCH_SIZING_STEP s:
 *    the most requests/s with p99 at most BENCH_SIZING_P99_MS, and the most
 *    at any latency. autocannon runs in this process on the same machine, so
 *    the CPU it takes is not the server's: each step says how much it used.
 * 3. Disk growth: BENCH_SIZING_EVENTS new comment threads (one domain event
 *    each, with everything the change writes beside it), or as many as
 *    BENCH_SIZING_WRITE_CAP s allow; the database size before and after, per
 *    table, extrapolated to a million events.
 *
 * Database connections are those PostgreSQL lists in pg_stat_activity under
 * the process's own application_name (set in its DATABASE_URL); SQLite has
 * one connection, inside the process.
 *
 * Knobs (defaults): BENCH_SIZING_SETTLE (10 s), BENCH_SIZING_SOCKETS (1000),
 * BENCH_SIZING_LEVELS (1,2,4,8,16,32,64), BENCH_SIZING_STEP (4 s),
 * BENCH_SIZING_P99_MS (100), BENCH_SIZING_EVENTS (20000),
 * BENCH_SIZING_WRITE_CAP (150 s); and the harness's BENCH_DURATION,
 * BENCH_WARMUP, BENCH_CONNECTIONS for the load of part 1.
 */
import autocannon from 'autocannon';
import Sqlite from 'better-sqlite3';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { DEFAULT_POOL_SIZE, providerOf, sqlitePath } from '../../server/db/adapter.js';
import { connectEditor, type LiveEditor } from '../helpers/live-client.js';
import { numberFromEnv, serviceHeaders, type BenchContext, type Figure, type Measured, type Scenario } from './scenarios.js';


// The harness's own knobs, read the way run.ts reads them.
const DURATION_S = numberFromEnv('BENCH_DURATION', 10, 1);
const WARMUP_S = numberFromEnv('BENCH_WARMUP', 2, 0);
const CONNECTIONS = numberFromEnv('BENCH_CONNECTIONS', 64, 1);

/** Seconds without work before the idle figures: V8's memory reducer shrinks the heap a few seconds after the last work. */
const SETTLE_S = numberFromEnv('BENCH_SIZING_SETTLE', 10, 0);
/** Seconds per concurrency level when looking for the most requests/s. */
const STEP_S = numberFromEnv('BENCH_SIZING_STEP', 4, 1);
const LEVELS = (process.env.BENCH_SIZING_LEVELS || '1,2,4,8,16,32,64').split(',').map((level) => {
  const value = Number(level);
  if (!Number.isInteger(value) || value < 1) throw new Error(`BENCH_SIZING_LEVELS must be positive integers separated by commas (got "${process.env.BENCH_SIZING_LEVELS}")`);
  return value;
});
/** The latency target of "sustains": p99 at most this. */
const P99_TARGET_MS = numberFromEnv('BENCH_SIZING_P99_MS', 100, 1);
/** Domain events written to measure the disk growth (comment threads: one event each). */
const EVENTS = numberFromEnv('BENCH_SIZING_EVENTS', 20_000, 10);
/** Seconds the disk phase may write for; it stops early (with fewer events, said in its row) past this, so a busy machine cannot stretch the run. */
const WRITE_CAP_S = numberFromEnv('BENCH_SIZING_WRITE_CAP', 150, 1);
/** WebSocket clients connected at once for the descriptor and memory figures; 0 skips them. */
const SOCKETS = numberFromEnv('BENCH_SIZING_SOCKETS', 1000, 0);

const ORG = 'bench-sizing-org';
const DOCUMENTS = Array.from({ length: 5 }, (_, i) => `bench-sizing-d${i}`);
const USERS = Array.from({ length: 5 }, (_, i) => `bench-sizing-u${i}`);
const AUTHOR = USERS[0]!;
const MENTIONED = USERS[1]!;
const EDITORS = 20;
/** Threads per Add Comment Annotations request in the disk phase. */
const THREADS_PER_REQUEST = 10;
/** The server process's application_name on PostgreSQL, so its connections can be told from the others. */
const APPLICATION_NAME = 'collab-bench-sizing';

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;
const mib = (bytes: number) => round(bytes / 1024 / 1024);
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: number[]) => (values.length === 0 ? Number.NaN : [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!);

// ---------------------------------------------------------------- the process, from /proc

function statusKiB(pid: number, key: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match?.[1]) throw new Error(`no ${key} in /proc/${pid}/status`);
  return Number(match[1]);
}

/** Resets VmHWM to the current RSS (5 = reset the high-water mark); false where that is not permitted. */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

function openDescriptors(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** User + system CPU time of `pid` so far, in ms (USER_HZ = 100 ticks per second). */
function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The machine's busy and total CPU ticks so far (all cores), from /proc/stat. */
function machineTicks(): { busy: number; total: number } {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

// ---------------------------------------------------------------- the database

interface TableSize {
  rows: number;
  /** The table with its indexes. */
  bytes: number;
}

interface DatabaseProbe {
  provider: 'sqlite' | 'postgresql';
  /** The server process's connections (PostgreSQL), by state; null on SQLite. */
  connections(): Promise<{ total: number; active: number } | null>;
  /** Database size in bytes; on SQLite after a checkpoint, so the -wal file is folded in. */
  size(): Promise<{ bytes: number; note: string }>;
  tables(): Promise<Map<string, TableSize>>;
  close(): Promise<void>;
}

function openProbe(databaseUrl: string): DatabaseProbe {
  return providerOf(databaseUrl) === 'sqlite' ? sqliteProbe(databaseUrl) : postgresProbe(databaseUrl);
}

function sqliteProbe(databaseUrl: string): DatabaseProbe {
  const path = sqlitePath(databaseUrl);
  const db = new Sqlite(path);
  // The server may hold the lock for a moment; wait for it rather than fail.
  db.pragma('busy_timeout = 5000');
  const fileBytes = (file: string) => (existsSync(file) ? statSync(file).size : 0);
  return {
    provider: 'sqlite',
    connections: async () => null,
    async size() {
      const [checkpoint] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      const pages = Number(db.pragma('page_count', { simple: true }));
      const pageSize = Number(db.pragma('page_size', { simple: true }));
      const free = Number(db.pragma('freelist_count', { simple: true }));
      const files = fileBytes(path) + fileBytes(`${path}-wal`);
      return {
        bytes: pages * pageSize,
        note: `page_count × page_size ${mib(pages * pageSize)} MiB (${free} free pages); files with -wal ${mib(files)} MiB${checkpoint?.busy ? ' (checkpoint busy)' : ''}`,
      };
    },
    async tables() {
      const names = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '\\_prisma%' ESCAPE '\\'").all() as { name: string }[]).map((row) => row.name);
      // dbstat: bytes per b-tree (each table and each index), summed per table.
      const bytes = new Map<string, number>();
      for (const row of db.prepare("SELECT m.tbl_name AS name, SUM(s.pgsize) AS bytes FROM dbstat s JOIN sqlite_master m ON m.name = s.name GROUP BY m.tbl_name").all() as { name: string; bytes: number }[]) {
        bytes.set(row.name, row.bytes);
      }
      const result = new Map<string, TableSize>();
      for (const name of names) {
        const { count } = db.prepare(`SELECT COUNT(*) AS count FROM "${name}"`).get() as { count: number };
        result.set(name, { rows: count, bytes: bytes.get(name) ?? 0 });
      }
      return result;
    },
    async close() {
      db.close();
    },
  };
}

function postgresProbe(databaseUrl: string): DatabaseProbe {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'collab-bench-probe' });
  const connected = client.connect();
  const query = async <T extends pg.QueryResultRow>(sql: string, values: unknown[] = []) => {
    await connected;
    return (await client.query<T>(sql, values)).rows;
  };
  return {
    provider: 'postgresql',
    async connections() {
      const [row] = await query<{ total: string; active: string }>(
        "SELECT count(*) AS total, count(*) FILTER (WHERE state <> 'idle') AS active FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1",
        [APPLICATION_NAME],
      );
      return { total: Number(row?.total ?? 0), active: Number(row?.active ?? 0) };
    },
    async size() {
      const [row] = await query<{ bytes: string }>('SELECT pg_database_size(current_database()) AS bytes');
      return { bytes: Number(row?.bytes ?? 0), note: 'pg_database_size (tables, indexes, TOAST; not the WAL)' };
    },
    async tables() {
      const rows = await query<{ name: string; bytes: string }>(
        "SELECT c.relname AS name, pg_total_relation_size(c.oid) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname NOT LIKE '\\_prisma%'",
      );
      const result = new Map<string, TableSize>();
      for (const row of rows) {
        const [count] = await query<{ count: string }>(`SELECT count(*) AS count FROM "${row.name}"`);
        result.set(row.name, { rows: Number(count?.count ?? 0), bytes: Number(row.bytes) });
      }
      return result;
    },
    async close() {
      await connected.catch(() => undefined);
      await client.end();
    },
  };
}

/** The server's DATABASE_URL for the measured process: on PostgreSQL with an application_name that marks its connections. */
function sizingDatabaseUrl(databaseUrl: string): string {
  if (providerOf(databaseUrl) === 'sqlite') return databaseUrl;
  const url = new URL(databaseUrl);
  url.searchParams.set('application_name', APPLICATION_NAME);
  return url.toString();
}

/** A fresh server process for the figures: PostgreSQL with Redis when the bench has one (a deployment of several processes); SQLite alone. */
function startMeasured(ctx: BenchContext) {
  const postgres = providerOf(ctx.databaseUrl) === 'postgresql';
  return ctx.startServer({ DATABASE_URL: sizingDatabaseUrl(ctx.databaseUrl), ...(postgres && ctx.redisUrl ? { REDIS_URL: ctx.redisUrl } : {}) });
}

function deploymentNote(ctx: BenchContext): string {
  if (providerOf(ctx.databaseUrl) === 'sqlite') return 'SQLite: one database connection, inside the process (no Redis)';
  const pool = Number(process.env.DATABASE_POOL_SIZE || DEFAULT_POOL_SIZE);
  return `PostgreSQL, DATABASE_POOL_SIZE ${pool}${ctx.redisUrl ? ', with Redis' : ', without Redis (set BENCH_REDIS_URL)'}`;
}

// ---------------------------------------------------------------- the loads

let seeded: Promise<void> | undefined;

/**
 * One organization: 5 documents, 5 members, 20 CRDT editors of ~1 KB text on
 * the first document; and activity logs on for the bench workspace (off by
 * default), so each event also writes its activity record, as it does for an
 * application that shows activity. Left on: sizing runs last.
 */
function seed(ctx: BenchContext): Promise<void> {
  seeded ??= (async () => {
    const headers = serviceHeaders(ctx.workspace);
    await ctx.post('/v2/workspace/activityconfig/update', { data: { isEnabled: true } }, headers);
    await ctx.post('/v2/organizations/add', { data: { organizationId: ORG } }, headers);
    for (const documentId of DOCUMENTS) await ctx.post('/v2/organizations/documents/add', { data: { organizationId: ORG, documentId } }, headers);
    await ctx.post('/v2/users/add', { data: { organizationId: ORG, users: USERS.map((userId, i) => ({ userId, name: `Sizing ${i}`, email: `${userId}@example.com` })) } }, headers);
    for (let i = 0; i < EDITORS; i++) {
      await ctx.post('/v2/crdt/add', { data: { organizationId: ORG, documentId: DOCUMENTS[0]!, editorId: `sizing-e${i}`, type: 'text', data: editorText(0) } }, headers);
    }
  })();
  return seeded;
}

/** ~1 KB of text; the two variants differ in one sentence, so an update alternating them always changes the text. */
function editorText(variant: number): string {
  const lines = Array.from({ length: 12 }, (_, line) => `Paragraph ${line}: notes on the plan with a few more words.`);
  lines[6] = variant % 2 === 0 ? 'The launch moves to the second week of the quarter.' : 'The launch stays in the first week of the quarter.';
  return lines.join('\n');
}

const threadText = (i: number) => `Could you check the figures in section ${i % 97}? The totals differ from last week's report by a few percent.`;

/**
 * The mixed load: each connection cycles through four reads and three writes.
 * Reads: Get Permissions (5 users × 5 documents), Get Notifications (20 per
 * page), Get Activity Logs (20 per page), Get Permissions (1 × 1). Writes:
 * Add Users (5 users, upserted), Add Comment Annotations (a new thread whose
 * comment mentions a member: a domain event, an activity record, a
 * notification), Update CRDT Data (one sentence of ~1 KB text changed, on one
 * of 20 editors in turn: a domain event and an activity record).
 */
function mixedRequests(ctx: BenchContext): autocannon.Request[] {
  const headers = serviceHeaders(ctx.workspace);
  const post = (path: string, data: unknown): autocannon.Request => ({ method: 'POST', path, headers, body: JSON.stringify({ data }) });
  let crdtTurn = 0;
  return [
    post('/v2/auth/permissions/get', { organizationId: ORG, userIds: USERS, documentIds: DOCUMENTS }),
    post('/v2/notifications/get', { organizationId: ORG, userId: MENTIONED, pageSize: 20 }),
    post('/v2/activities/get', { organizationId: ORG, documentId: DOCUMENTS[1]!, pageSize: 20 }),
    post('/v2/auth/permissions/get', { organizationId: ORG, userIds: [USERS[2]!], documentIds: [DOCUMENTS[2]!] }),
    post('/v2/users/add', { organizationId: ORG, users: USERS.map((userId, i) => ({ userId, name: `Sizing ${i}`, email: `${userId}@example.com` })) }),
    post('/v2/commentannotations/add', {
      organizationId: ORG,
      documentId: DOCUMENTS[1]!,
      commentAnnotations: [{ from: { userId: AUTHOR }, commentData: [{ commentText: threadText(0), taggedUserContacts: [{ userId: MENTIONED }] }] }],
    }),
    {
      ...post('/v2/crdt/update', {}),
      // Editor k gets turns k, k + 20, k + 40 …, which alternate the two texts.
      setupRequest: (request) => {
        const turn = crdtTurn++;
        const data = { organizationId: ORG, documentId: DOCUMENTS[0]!, editorId: `sizing-e${turn % EDITORS}`, type: 'text', data: editorText(Math.floor(turn / EDITORS)) };
        return { ...request, body: JSON.stringify({ data }) };
      },
    },
  ];
}

/** The cheap read: Get Permissions of one user on one document. */
function cheapRequests(ctx: BenchContext): autocannon.Request[] {
  return [{ method: 'POST', path: '/v2/auth/permissions/get', headers: serviceHeaders(ctx.workspace), body: JSON.stringify({ data: { organizationId: ORG, userIds: [USERS[2]!], documentIds: [DOCUMENTS[2]!] } }) }];
}

function run(url: string, requests: autocannon.Request[], connections: number, seconds: number): Promise<autocannon.Result> {
  return autocannon({ url, requests, connections, duration: seconds, timeout: 10 });
}

/**
 * Fails on any non-2xx answer: a sizing figure from failing requests would
 * flatter the server. Requests unanswered within autocannon's 10 s are let
 * through when `timeoutsAllowed` (a saturated server queues; the caller
 * reports them) and fail otherwise, as do connection errors.
 */
function check(label: string, result: autocannon.Result, timeoutsAllowed = false): void {
  const errors = timeoutsAllowed ? result.errors - result.timeouts : result.errors;
  if (result.non2xx > 0 || errors > 0 || result['2xx'] === 0) {
    const codes = Object.entries(result.statusCodeStats ?? {})
      .filter(([code]) => !code.startsWith('2'))
      .map(([code, stat]) => `${code}×${stat.count ?? 0}`);
    throw new Error(`${label}: ${result.non2xx} non-2xx (${codes.join(', ')}), ${result.errors} errors (${result.timeouts} timeouts), ${result['2xx']} 2xx`);
  }
}

// ---------------------------------------------------------------- 1. idle and under load

interface Snapshot {
  rssMiB: number;
  descriptors: number;
  connections: { total: number; active: number } | null;
}

async function snapshot(pid: number, probe: DatabaseProbe): Promise<Snapshot> {
  return { rssMiB: round(statusKiB(pid, 'VmRSS') / 1024), descriptors: openDescriptors(pid), connections: await probe.connections() };
}

/** Samples every `everyMs` until stopped: RSS, descriptors, database connections. */
function sampler(pid: number, probe: DatabaseProbe, everyMs: number) {
  const samples: { at: number; snapshot: Snapshot }[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      samples.push({ at: performance.now(), snapshot: await snapshot(pid, probe) });
      await delay(everyMs);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return samples;
    },
  };
}

/** The most seen over a short while: PostgreSQL's pool lets an idle connection go after 10 s, so one reading could miss a connection a poll had just opened. */
async function idleFigures(label: string, pid: number, probe: DatabaseProbe): Promise<Figure[]> {
  const samples: Snapshot[] = [];
  for (let i = 0; i < 8; i++) {
    samples.push(await snapshot(pid, probe));
    await delay(250);
  }
  const figures: Figure[] = [
    { name: `${label}: RSS`, value: median(samples.map((s) => s.rssMiB)), unit: 'MiB' },
    { name: `${label}: open file descriptors`, value: Math.max(...samples.map((s) => s.descriptors)), unit: '' },
  ];
  if (probe.provider === 'postgresql') figures.push({ name: `${label}: PostgreSQL connections`, value: Math.max(...samples.map((s) => s.connections?.total ?? 0)), unit: '' });
  return figures;
}

async function measureIdleAndLoaded(ctx: BenchContext): Promise<Measured> {
  await seed(ctx);
  const probe = openProbe(ctx.databaseUrl);
  const server = await startMeasured(ctx);
  const figures: Figure[] = [];
  const notes = [deploymentNote(ctx)];
  try {
    await delay(SETTLE_S * 1000);
    figures.push(...(await idleFigures(`idle ${SETTLE_S} s after start`, server.pid, probe)));
    figures.push({ name: 'peak RSS while starting (VmHWM)', value: round(statusKiB(server.pid, 'VmHWM') / 1024), unit: 'MiB' });

    const requests = mixedRequests(ctx);
    if (WARMUP_S > 0) check('mixed load warm-up', await run(server.url, requests, CONNECTIONS, WARMUP_S), true);
    const peakReset = resetPeak(server.pid);
    const samples = sampler(server.pid, probe, 250);
    const started = performance.now();
    const result = await run(server.url, requests, CONNECTIONS, DURATION_S);
    const taken = await samples.stop();
    check('mixed load', result, true);
    // Steady: the second half of the run, when the heap has grown to what the load needs.
    const steady = taken.filter((s) => s.at >= started + (DURATION_S * 1000) / 2).map((s) => s.snapshot);
    const all = taken.map((s) => s.snapshot);
    figures.push(
      { name: `mixed load on ${CONNECTIONS} connections: requests/s`, value: round(result.requests.mean, 0), unit: 'req/s' },
      { name: 'mixed load: p50 / p99 latency', value: result.latency.p50, unit: `/ ${result.latency.p99} ms` },
      { name: 'mixed load: requests unanswered within 10 s', value: result.timeouts, unit: `of ${result.requests.sent}` },
      { name: 'under load: RSS, steady (median of the second half)', value: median(steady.map((s) => s.rssMiB)), unit: 'MiB' },
      { name: `under load: RSS, peak (${peakReset ? 'VmHWM' : 'sampled VmRSS'})`, value: round(Math.max(peakReset ? statusKiB(server.pid, 'VmHWM') / 1024 : 0, ...all.map((s) => s.rssMiB))), unit: 'MiB' },
      { name: 'under load: open file descriptors, median / most', value: median(all.map((s) => s.descriptors)), unit: `/ ${Math.max(...all.map((s) => s.descriptors))}` },
    );
    if (probe.provider === 'postgresql') {
      const totals = all.map((s) => s.connections?.total ?? 0);
      figures.push(
        { name: 'under load: PostgreSQL connections, median / most', value: median(totals), unit: `/ ${Math.max(...totals)}` },
        { name: 'under load: connections running a statement, most', value: Math.max(...all.map((s) => s.connections?.active ?? 0)), unit: '' },
      );
    }
    notes.push(`mixed load: ${requests.length} requests per cycle on each connection (4 reads, 3 writes: see sizing.ts); samples every 250 ms`);

    await delay(SETTLE_S * 1000);
    figures.push(...(await idleFigures(`idle ${SETTLE_S} s after the load`, server.pid, probe)));
  } finally {
    await server.stop();
    await probe.close();
  }
  return { figures, notes };
}

/**
 * SOCKETS WebSocket clients on a fresh process of their own (after a load,
 * garbage V8 collects meanwhile would blur a few MiB of sockets), each on its
 * own socket with one of the 20 editors open; first 20 clients alone (and
 * closed), so the figures count the sockets rather than the first
 * connections' code paths and the loaded documents.
 */
async function measureSockets(ctx: BenchContext): Promise<Measured> {
  if (SOCKETS === 0) return { skipped: 'BENCH_SIZING_SOCKETS=0' };
  await seed(ctx);
  const server = await startMeasured(ctx);
  try {
    await delay(SETTLE_S * 1000);
    return { figures: await withSockets(ctx, server.url, server.pid), notes: [deploymentNote(ctx), 'RSS moves with garbage collection by a few MiB either way, which is much of the per-client figure'] };
  } finally {
    await server.stop();
  }
}

async function withSockets(ctx: BenchContext, url: string, pid: number): Promise<Figure[]> {
  const { result } = await ctx.post<{ result: { data: { token: string } } }>(
    '/v2/auth/generate_token',
    { data: { userId: AUTHOR, userProperties: { name: 'Sizing 0', email: `${AUTHOR}@example.com` }, permissions: { resources: [{ type: 'organization', id: ORG, accessRole: 'editor' }] } } },
    serviceHeaders(ctx.workspace),
  );
  const connect = (count: number) => Array.from({ length: count }, (_, i) => connectEditor(url, { organizationId: ORG, documentId: DOCUMENTS[0]!, editorId: `sizing-e${i % EDITORS}` }, result.data.token));
  const allReady = async (editors: LiveEditor[]) => {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(editors.map((editor) => editor.ready)),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`not all ${editors.length} WebSocket clients synced within 30 s`)), 30_000))),
    ]).finally(() => clearTimeout(timer));
  };
  const editors: LiveEditor[] = [];
  try {
    editors.push(...connect(EDITORS));
    await allReady(editors);
    for (const editor of editors.splice(0)) editor.close();
    await delay(1000);
    const beforeRss = statusKiB(pid, 'VmRSS');
    const beforeDescriptors = openDescriptors(pid);
    editors.push(...connect(SOCKETS));
    await allReady(editors);
    await delay(1000);
    const descriptors = openDescriptors(pid);
    const rss = statusKiB(pid, 'VmRSS');
    return [
      { name: 'before: open file descriptors', value: beforeDescriptors, unit: '' },
      { name: 'before: RSS', value: round(beforeRss / 1024), unit: 'MiB' },
      { name: `with ${SOCKETS} WebSocket clients: open file descriptors`, value: descriptors, unit: `(+${descriptors - beforeDescriptors})` },
      { name: `with ${SOCKETS} WebSocket clients: RSS`, value: round(rss / 1024), unit: `MiB (+${Math.round((rss - beforeRss) / SOCKETS)} KiB per client)` },
    ];
  } finally {
    for (const editor of editors) editor.close();
  }
}

// ---------------------------------------------------------------- 2. requests/s one process sustains

interface Step {
  connections: number;
  requestsPerSec: number;
  p50: number;
  p99: number;
  /** % of one core. */
  serverCpu: number;
  /** Server CPU time per response, ms. */
  serverCpuMsPerRequest: number;
  /** Requests unanswered within 10 s: not in the latencies, so such a level is never within the target. */
  timeouts: number;
  benchCpu: number;
  /** % of all cores. */
  machineCpu: number;
}

async function steps(label: string, url: string, pid: number, requests: autocannon.Request[]): Promise<Step[]> {
  const result: Step[] = [];
  for (const connections of LEVELS) {
    const server0 = processCpuMs(pid);
    const own0 = process.cpuUsage();
    const machine0 = machineTicks();
    const started = performance.now();
    const outcome = await run(url, requests, connections, STEP_S);
    const wallMs = performance.now() - started;
    const serverMs = processCpuMs(pid) - server0;
    const own = process.cpuUsage(own0);
    const machine1 = machineTicks();
    check(`${label} on ${connections} connections`, outcome, true);
    result.push({
      connections,
      requestsPerSec: round(outcome.requests.mean, 0),
      p50: outcome.latency.p50,
      p99: outcome.latency.p99,
      serverCpu: Math.round((serverMs / wallMs) * 100),
      serverCpuMsPerRequest: round(serverMs / outcome['2xx'], 2),
      timeouts: outcome.timeouts,
      benchCpu: Math.round(((own.user + own.system) / 1000 / wallMs) * 100),
      machineCpu: Math.round(((machine1.busy - machine0.busy) / (machine1.total - machine0.total)) * 100),
    });
  }
  return result;
}

function summarize(label: string, result: Step[]): { figures: Figure[]; note: string } {
  const withinTarget = result.filter((step) => step.p99 <= P99_TARGET_MS && step.timeouts === 0);
  const best = withinTarget.reduce<Step | undefined>((top, step) => (top === undefined || step.requestsPerSec > top.requestsPerSec ? step : top), undefined);
  const most = result.reduce((top, step) => (step.requestsPerSec > top.requestsPerSec ? step : top));
  const figures: Figure[] = [
    { name: `${label}: most req/s with p99 ≤ ${P99_TARGET_MS} ms`, value: best?.requestsPerSec ?? 0, unit: best ? `req/s (${best.connections} connections, p99 ${best.p99} ms)` : 'req/s (no level within the target)' },
    { name: `${label}: most req/s at any latency`, value: most.requestsPerSec, unit: `req/s (${most.connections} connections, p99 ${most.p99} ms)` },
  ];
  const levels = result.map((s) => `${s.connections}: ${s.requestsPerSec}/s p50 ${s.p50} p99 ${s.p99} ms${s.timeouts > 0 ? ` (${s.timeouts} unanswered within 10 s)` : ''}, server ${s.serverCpu}% (${s.serverCpuMsPerRequest} ms/req), bench ${s.benchCpu}%, machine ${s.machineCpu}%`);
  return { figures, note: `${label} by connections (CPU: server and bench process in % of one core, machine in % of all cores): ${levels.join('; ')}` };
}

async function measureSustained(ctx: BenchContext): Promise<Measured> {
  await seed(ctx);
  const server = await startMeasured(ctx);
  const figures: Figure[] = [];
  const notes = [deploymentNote(ctx), `${STEP_S} s per level; autocannon runs in the bench process on the same machine, so its CPU is not the server's`];
  try {
    const mixed = mixedRequests(ctx);
    const cheap = cheapRequests(ctx);
    if (WARMUP_S > 0) {
      check('mixed load warm-up', await run(server.url, mixed, 8, WARMUP_S), true);
      check('cheap read warm-up', await run(server.url, cheap, 8, WARMUP_S), true);
    }
    for (const [label, requests] of [['mixed load', mixed], ['Get Permissions 1 × 1', cheap]] as const) {
      const summary = summarize(label, await steps(label, server.url, server.pid, requests));
      figures.push(...summary.figures);
      notes.push(summary.note);
    }
  } finally {
    await server.stop();
  }
  return { figures, notes };
}

// ---------------------------------------------------------------- 3. disk growth

async function measureDiskGrowth(ctx: BenchContext): Promise<Measured> {
  await seed(ctx);
  const probe = openProbe(ctx.databaseUrl);
  const headers = serviceHeaders(ctx.workspace);
  try {
    const sizeBefore = await probe.size();
    const tablesBefore = await probe.tables();
    const requests = Math.ceil(EVENTS / THREADS_PER_REQUEST);
    const started = performance.now();
    const stopAt = started + WRITE_CAP_S * 1000;
    let next = 0;
    // A few requests in flight (PostgreSQL runs them side by side), on the bench server, with no other load.
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < requests && performance.now() < stopAt) {
          const i = next++;
          await ctx.post(
            '/v2/commentannotations/add',
            {
              data: {
                organizationId: ORG,
                documentId: DOCUMENTS[i % DOCUMENTS.length]!,
                commentAnnotations: Array.from({ length: THREADS_PER_REQUEST }, (_, t) => ({
                  from: { userId: AUTHOR },
                  commentData: [{ commentText: threadText(i * THREADS_PER_REQUEST + t), taggedUserContacts: [{ userId: MENTIONED }] }],
                })),
              },
            },
            headers,
          );
        }
      }),
    );
    const writeMs = performance.now() - started;
    const sizeAfter = await probe.size();
    const tablesAfter = await probe.tables();

    const grown = [...tablesAfter]
      .map(([name, after]) => ({ name, rows: after.rows - (tablesBefore.get(name)?.rows ?? 0), bytes: after.bytes - (tablesBefore.get(name)?.bytes ?? 0) }))
      .filter((table) => table.rows !== 0 || table.bytes !== 0)
      .sort((a, b) => b.bytes - a.bytes);
    const events = grown.find((table) => table.name === 'DomainEvent')?.rows ?? 0;
    if (events <= 0) throw new Error('no domain events were written');
    const growth = sizeAfter.bytes - sizeBefore.bytes;
    const perEvent = growth / events;
    const figures: Figure[] = [
      { name: 'domain events written', value: events, unit: `(${next} requests of ${THREADS_PER_REQUEST} threads in ${round(writeMs / 1000)} s${next < requests ? `: stopped at the ${WRITE_CAP_S} s cap` : ''})` },
      { name: 'database growth', value: mib(growth), unit: 'MiB' },
      { name: 'per event, all tables', value: Math.round(perEvent), unit: 'bytes' },
      { name: 'per million events, all tables', value: round((perEvent * 1e6) / 1024 ** 3, 2), unit: 'GiB' },
    ];
    const outbox = grown.find((table) => table.name === 'DomainEvent');
    if (outbox) figures.push({ name: 'per million events, the outbox alone (DomainEvent)', value: round(((outbox.bytes / events) * 1e6) / 1024 ** 3, 2), unit: 'GiB' });
    return {
      figures,
      notes: [
        `each event: comment_annotation.add of a new thread whose comment (~110 characters) mentions a member, with everything that change writes beside it; webhooks off`,
        `per table, rows and bytes with indexes: ${grown.map((table) => `${table.name} +${table.rows} rows ${mib(table.bytes)} MiB`).join('; ')}`,
        `size before: ${sizeBefore.note}; after: ${sizeAfter.note}`,
      ],
    };
  } finally {
    await probe.close();
  }
}

export const sizingScenarios: Scenario[] = [
  { name: 'Sizing: one process idle and under the mixed load', measure: measureIdleAndLoaded },
  { name: `Sizing: ${SOCKETS.toLocaleString('en-US')} WebSocket clients on one process`, measure: measureSockets },
  { name: 'Sizing: requests/s one process sustains', measure: measureSustained },
  { name: 'Sizing: disk growth per million events', measure: measureDiskGrowth },
];
