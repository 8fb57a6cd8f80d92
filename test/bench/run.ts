/**
 * `npm run bench`: throughput and latency of the built server against a bare
 * Express baseline. See test/bench/README.md for what is measured and the knobs.
 *
 * Both servers run as child processes on 127.0.0.1; this process only drives
 * autocannon. Children are killed and the temp dir removed on every exit path.
 */
import autocannon from 'autocannon';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { adminQuery } from '../helpers/database.js';
import { numberFromEnv, scenarios, type BenchContext, type BenchRequest, type ExtraServer, type Figure, type WorkspaceCredentials } from './scenarios.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SERVER_ENTRY = join(ROOT, 'dist', 'server', 'main.js');
const CLI_ENTRY = join(ROOT, 'dist', 'server', 'cli.js');
const BARE_ENTRY = join(ROOT, 'test', 'bench', 'bare-server.mjs');
const FLOOR_ENTRY = join(ROOT, 'test', 'bench', 'floor-server.mjs');
const RESULTS_DIR = join(ROOT, 'test', 'bench', 'results');
const HOST = '127.0.0.1';

const DURATION = numberFromEnv('BENCH_DURATION', 10, 1);
const WARMUP = numberFromEnv('BENCH_WARMUP', 2, 0);
const CONNECTIONS = numberFromEnv('BENCH_CONNECTIONS', 64, 1);
const ONLY = process.env.BENCH_ONLY?.toLowerCase();
// e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`: profiles of the server processes, written when they exit.
const SERVER_NODE_ARGS = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
/** A PostgreSQL server to bench against instead of SQLite; a fresh database is made on it and dropped after. */
const PG_SERVER_URL = process.env.BENCH_DATABASE_URL;
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL || 'warn';
/** A Redis for the scenarios that run several server processes. */
const REDIS_URL = process.env.BENCH_REDIS_URL || process.env.TEST_REDIS_URL || undefined;
const START_TIMEOUT_MS = 30_000;
const CLI_TIMEOUT_MS = 60_000;

interface Measurement {
  name: string;
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  peakRssMiB: number | null;
  /**
   * CPU time the server process used per 2xx response during the measured run (user + system, from
   * /proc/<pid>/stat), in ms. Unlike requests/s it hardly depends on what else the machine runs. On
   * SQLite it includes the queries (the driver runs in the process); on PostgreSQL the database's own
   * CPU is not in it.
   */
  cpuMsPerRequest: number | null;
  ok: boolean;
  /** Why the row is flagged, when it is. */
  problem?: string;
}

interface ScenarioResult extends Measurement {
  ratioToBare: number | null;
  /** p99 latency as a multiple of the bare baseline's p99 (the issue's target: at most 2). */
  p99RatioToBare: number | null;
  /** The floor (floor-server.mjs) on the same request, for scenarios that name one; null otherwise. */
  floor: Measurement | null;
  /** Server requests/s ÷ floor requests/s. */
  ratioToFloor: number | null;
}

/** A scenario that measured itself: its figures, or why it was skipped or failed. */
interface MeasuredResult {
  name: string;
  figures: Figure[];
  notes: string[];
  skipped?: string;
  ok: boolean;
  problem?: string;
}

// ---------------------------------------------------------------- cleanup

const children = new Set<ChildProcess>();
let tempDir: string | undefined;
let dropDatabase: (() => Promise<void>) | undefined;
let shuttingDown: Promise<void> | undefined;

function alive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** Last resort on `exit`: synchronous, so SIGKILL and rmSync. */
function cleanupSync(): void {
  for (const child of children) if (alive(child)) child.kill('SIGKILL');
  children.clear();
  if (tempDir) rmSync(tempDir, { recursive: true, force: true });
  tempDir = undefined;
}

/** SIGTERM each child, SIGKILL what is still there after 5 s, then remove the temp dir. */
function shutdown(): Promise<void> {
  shuttingDown ??= (async () => {
    await Promise.all(
      [...children].map(async (child) => {
        if (!alive(child)) return;
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }),
    );
    children.clear();
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    tempDir = undefined;
    await dropDatabase?.().catch((error: unknown) => log(`could not drop the bench database: ${String(error)}`));
    dropDatabase = undefined;
  })();
  return shuttingDown;
}

process.on('exit', cleanupSync);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    process.stderr.write(`\nbench: ${signal}, stopping servers\n`);
    void shutdown().finally(() => process.exit(130));
  });
}

// ---------------------------------------------------------------- helpers

/** A new, empty database on the PostgreSQL server, dropped on shutdown. */
async function freshPgDatabase(serverUrl: string): Promise<string> {
  const admin = (sql: string) => adminQuery(serverUrl, sql);
  const name = `collab_bench_${process.pid}_${Date.now()}`;
  await admin(`CREATE DATABASE "${name}"`);
  dropDatabase = () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}


function log(message: string): void {
  process.stderr.write(`bench: ${message}\n`);
}

function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Keeps the last few KiB a child wrote, for error messages; also drains the pipe. */
function tail(stream: NodeJS.ReadableStream | null, limit = 8_192): { text(): string } {
  let buffer = '';
  stream?.setEncoding('utf8');
  stream?.on('data', (chunk: string) => {
    buffer = (buffer + chunk).slice(-limit);
  });
  return { text: () => buffer.trim() };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, HOST, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function runCli(env: NodeJS.ProcessEnv, args: string[]): Promise<any> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CLI_ENTRY, ...args], { env, cwd: ROOT, timeout: CLI_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`cli ${args.join(' ')} failed: ${stderr.trim() || error.message}`));
      try {
        resolve(JSON.parse(stdout));
      } catch {
        reject(new Error(`cli ${args.join(' ')} printed non-JSON: ${stdout.slice(0, 500)}`));
      }
    });
  });
}

function encodeBody(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  return typeof body === 'string' ? body : JSON.stringify(body);
}

// ---------------------------------------------------------------- processes

interface Started {
  child: ChildProcess;
  url: string;
  /** The last few KiB the process wrote to stderr, for a row that fails because it died. */
  stderr(): string;
}

/**
 * Spawns a server and resolves with its URL: parsed from a `listening on URL`
 * line on stdout when one comes, or `fallbackUrl` once it answers HTTP (the
 * real server logs that line at info level, which the bench turns off).
 */
function startChild(label: string, args: string[], env: NodeJS.ProcessEnv, fallbackUrl?: string): Promise<Started> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const stderr = tail(child.stderr);
  const stdout = tail(child.stdout);

  return new Promise<Started>((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | undefined, url?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      if (error) {
        if (alive(child)) child.kill('SIGKILL');
        reject(error);
      } else resolve({ child, url: url!, stderr: () => stderr.text() });
    };
    const timer = setTimeout(
      () => finish(new Error(`${label} did not start within ${START_TIMEOUT_MS / 1000} s\n${stderr.text()}\n${stdout.text()}`)),
      START_TIMEOUT_MS,
    );
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      finish(new Error(`${label} exited before listening (code ${code}, signal ${signal})\n${stderr.text()}\n${stdout.text()}`));
    const onData = (chunk: string) => {
      const match = /listening on (https?:\/\/[^\s"\\]+)/.exec(chunk);
      if (match?.[1]) finish(undefined, match[1]);
    };
    child.stdout?.on('data', onData);
    child.once('exit', onExit);

    if (fallbackUrl) {
      void (async () => {
        while (!settled) {
          try {
            await fetch(`${fallbackUrl}/`, { signal: AbortSignal.timeout(1_000) });
            finish(undefined, fallbackUrl);
          } catch {
            await delay(100);
          }
        }
      })();
    }
  });
}

async function startRealServer(env: NodeJS.ProcessEnv): Promise<Started> {
  // PORT=0 would only be discoverable from the info-level log line, and info
  // level also logs every request; so pick a free port here and retry on a race.
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    try {
      return await startChild('server', [...SERVER_NODE_ARGS, SERVER_ENTRY], { ...env, PORT: String(port) }, `http://${HOST}:${port}`);
    } catch (error) {
      lastError = error;
      if (!String(error).includes('EADDRINUSE')) break;
    }
  }
  throw lastError;
}

// ---------------------------------------------------------------- measurement

/** Peak RSS of `pid` while running: resets the kernel's high-water mark, then samples every 100 ms. */
function rssSampler(pid: number): { stop(): number | null } {
  const status = `/proc/${pid}/status`;
  if (!existsSync(status)) return { stop: () => null };
  let hwmReset = false;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5'); // 5 = reset VmHWM to current RSS
    hwmReset = true;
  } catch {
    // Not permitted here: fall back to sampled VmRSS alone.
  }
  let peakKiB = 0;
  const sample = () => {
    try {
      const text = readFileSync(status, 'utf8');
      for (const key of hwmReset ? ['VmRSS', 'VmHWM'] : ['VmRSS']) {
        const match = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text);
        if (match?.[1]) peakKiB = Math.max(peakKiB, Number(match[1]));
      }
    } catch {
      // Process gone; keep what was seen.
    }
  };
  sample();
  const timer = setInterval(sample, 100);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peakKiB > 0 ? round(peakKiB / 1024, 1) : null;
    },
  };
}

/** User + system CPU time `pid` has used so far, in ms (Linux /proc); null elsewhere. */
function cpuMs(pid: number): number | null {
  try {
    // Fields after the command name (which may hold spaces, so split after its closing parenthesis): utime is the 12th, stime the 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / CLOCK_TICKS_PER_SECOND : null;
  } catch {
    return null;
  }
}

/** USER_HZ: /proc reports CPU times in these ticks, 100 per second on Linux. */
const CLOCK_TICKS_PER_SECOND = 100;

function cannon(url: string, request: BenchRequest, seconds: number, connections = CONNECTIONS): Promise<autocannon.Result> {
  return autocannon({
    url: new URL(request.path, url).toString(),
    method: request.method ?? 'POST',
    headers: request.headers,
    ...(request.bodies ? { requests: request.bodies.map((body) => ({ body: encodeBody(body) })) } : { body: encodeBody(request.body) }),
    connections,
    duration: seconds,
    timeout: 10,
  });
}

/** Sends a scenario's probe request (its last body when it has several) to one server. */
async function sendProbe(url: string, request: BenchRequest, timeoutMs = 10_000): Promise<{ status: number; text: string }> {
  const response = await fetch(new URL(request.path, url), {
    method: request.method ?? 'POST',
    headers: request.headers,
    body: encodeBody(request.bodies ? request.bodies[request.bodies.length - 1] : request.body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: response.status, text: await response.text() };
}

/**
 * Waits until a server has run what autocannon left in flight at the end of a run (it closes the
 * connections; the server still runs their requests): one more request, answered after those, since
 * SQLite's gate and the PostgreSQL pool both queue in order. Otherwise they share the next run: the
 * CPU, and for a write the database's write lock.
 */
async function drain(url: string, request: BenchRequest): Promise<void> {
  await sendProbe(url, request, 120_000).catch((error: unknown) => log(`could not drain ${url}: ${String(error)}`));
}

/** One request first, so a broken scenario fails with the server's answer rather than a wall of non-2xx. */
async function probe(url: string, request: BenchRequest): Promise<string | undefined> {
  const { status, text } = await sendProbe(url, request);
  if (status >= 200 && status < 300) return undefined;
  return `probe request got ${status}: ${text.slice(0, 300)}`;
}

/**
 * An answer made comparable between the server and its floor: `result.message` dropped (the wording
 * is free), a page token reduced to whether there is one (each side's tokens are its own), and the
 * values at the scenario's `compareIgnoring` paths (what each side generates: IDs, times) reduced to
 * their type; object keys sorted, so key order does not count. Array order does.
 */
function comparable(value: unknown, ignoring: RegExp[] = [], path: string[] = []): unknown {
  if (path.length > 0 && ignoring.some((pattern) => pattern.test(path.join('.')))) return `<generated ${value === null ? 'null' : typeof value}>`;
  if (Array.isArray(value)) return value.map((item, i) => comparable(item, ignoring, [...path, String(i)]));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const at = [...path, key].join('.');
    if (at === 'result.message') continue;
    const item = (value as Record<string, unknown>)[key];
    out[key] = at === 'result.pageToken' ? (typeof item === 'string' ? '<a token>' : item) : comparable(item, ignoring, [...path, key]);
  }
  return out;
}

/** A `compareIgnoring` path as a pattern of whole paths: dotted, `*` for any one key or array index. */
function pathPattern(path: string): RegExp {
  return new RegExp(`^${path.split('.').map((part) => (part === '*' ? '[^.]+' : part.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&'))).join('\\.')}$`);
}

/** The first place two comparable answers differ, as `path: server … floor …`; undefined when equal. */
function firstDifference(a: unknown, b: unknown, path = ''): string | undefined {
  if (JSON.stringify(a) === JSON.stringify(b)) return undefined;
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    for (const key of keys) {
      const found = firstDifference((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], path ? `${path}.${key}` : key);
      if (found) return found;
    }
  }
  const show = (v: unknown) => (v === undefined ? 'absent' : JSON.stringify(v).slice(0, 200));
  return `${path || '(root)'}: server ${show(a)}, floor ${show(b)}`;
}

/** Sends the scenario's probe to the server and its floor; why they differ, or undefined when they answer the same. */
async function sameAnswer(serverUrl: string, floorUrl: string, request: BenchRequest, compareIgnoring: string[] = []): Promise<string | undefined> {
  const ignoring = compareIgnoring.map(pathPattern);
  const answer = async (url: string) => {
    const { status, text } = await sendProbe(url, request);
    if (status < 200 || status >= 300) throw new Error(`${url} answered ${status}: ${text.slice(0, 300)}`);
    return comparable(JSON.parse(text), ignoring);
  };
  const [server, floor] = await Promise.all([answer(serverUrl), answer(floorUrl)]);
  const difference = firstDifference(server, floor);
  return difference === undefined ? undefined : `the floor's answer differs from the server's at ${difference}`;
}

async function measure(name: string, url: string, pid: number, request: BenchRequest, connections = CONNECTIONS): Promise<Measurement> {
  const problem = await probe(url, request);
  if (problem) {
    return { name, requestsPerSec: 0, p50Ms: 0, p99Ms: 0, non2xx: 0, errors: 0, timeouts: 0, peakRssMiB: null, cpuMsPerRequest: null, ok: false, problem };
  }
  if (WARMUP > 0) {
    log(`${name}: warm-up ${WARMUP} s`);
    await cannon(url, request, WARMUP, connections);
  }
  log(`${name}: ${connections} connections for ${DURATION} s`);
  const rss = rssSampler(pid);
  const cpuBefore = cpuMs(pid);
  const result = await cannon(url, request, DURATION, connections);
  const cpuAfter = cpuMs(pid);
  const peakRssMiB = rss.stop();
  const served = result['2xx'];
  const measurement: Measurement = {
    name,
    requestsPerSec: round(result.requests.mean, 1),
    p50Ms: round(result.latency.p50),
    p99Ms: round(result.latency.p99),
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    peakRssMiB,
    cpuMsPerRequest: cpuBefore !== null && cpuAfter !== null && served > 0 ? round((cpuAfter - cpuBefore) / served, 3) : null,
    ok: true,
  };
  const problems: string[] = [];
  if (result.non2xx > 0) {
    const codes = Object.entries(result.statusCodeStats ?? {})
      .filter(([code]) => !code.startsWith('2'))
      .map(([code, stat]) => `${code}×${stat.count ?? 0}`);
    problems.push(`${result.non2xx} non-2xx (${codes.join(', ')})`);
  }
  if (result.errors > 0) problems.push(`${result.errors} errors (${result.timeouts} timeouts)`);
  if (result['2xx'] === 0) problems.push('no 2xx responses');
  if (problems.length > 0) {
    measurement.ok = false;
    measurement.problem = problems.join('; ');
  }
  return measurement;
}

// ---------------------------------------------------------------- output

function table(bare: Measurement, rows: ScenarioResult[]): string {
  const header = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'non2xx', 'errors', 'x bare', 'p99 x bare', 'floor req/s', 'floor p99', 'x floor', 'CPU ms/req', 'floor CPU', 'peak RSS MiB', ''];
  const line = (m: Measurement, ratio: number | null, p99Ratio: number | null, floor: Measurement | null = null, floorRatio: number | null = null) => [
    m.name,
    m.requestsPerSec.toFixed(0),
    m.p50Ms.toFixed(2),
    m.p99Ms.toFixed(2),
    String(m.non2xx),
    String(m.errors),
    ratio === null ? '-' : ratio.toFixed(3),
    p99Ratio === null ? '-' : p99Ratio.toFixed(2),
    floor === null ? '-' : floor.requestsPerSec.toFixed(0),
    floor === null ? '-' : floor.p99Ms.toFixed(2),
    floorRatio === null ? '-' : floorRatio.toFixed(3),
    m.cpuMsPerRequest === null ? '-' : m.cpuMsPerRequest.toFixed(2),
    // The floor's CPU ms per request: on a shared machine, server CPU ÷ floor CPU moves less than the req/s ratio.
    floor?.cpuMsPerRequest == null ? '-' : floor.cpuMsPerRequest.toFixed(2),
    m.peakRssMiB === null ? '-' : m.peakRssMiB.toFixed(1),
    m.ok ? '' : `FAILED: ${m.problem ?? ''}`,
  ];
  const body = [line(bare, 1, 1), ...rows.map((r) => line(r, r.ratioToBare, r.p99RatioToBare, r.floor, r.ratioToFloor))];
  const last = header.length - 1;
  const widths = header.map((h, i) => (i === last ? 0 : Math.max(h.length, ...body.map((r) => (r[i] ?? '').length))));
  const format = (cells: string[]) =>
    cells
      .map((cell, i) => (i === last ? cell : i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [format(header), format(header.map((_, i) => '-'.repeat(widths[i] ?? 0))), ...body.map(format)].join('\n');
}

function measuredTable(rows: MeasuredResult[]): string {
  const lines: string[] = [];
  for (const row of rows) {
    lines.push(row.ok ? (row.skipped ? `${row.name}: skipped (${row.skipped})` : `${row.name}:`) : `${row.name}: FAILED: ${row.problem ?? ''}`);
    const width = Math.max(0, ...row.figures.map((f) => f.name.length));
    for (const figure of row.figures) lines.push(`  ${figure.name.padEnd(width)}  ${String(figure.value).padStart(10)} ${figure.unit}`);
    for (const note of row.notes) lines.push(`  note: ${note}`);
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------- main

async function main(): Promise<number> {
  // `a|b` selects the scenarios matching either.
  const selected = scenarios.filter((s) => !ONLY || ONLY.split('|').some((part) => s.name.toLowerCase().includes(part)));
  if (selected.length === 0) throw new Error(`no scenario matches BENCH_ONLY="${process.env.BENCH_ONLY}"`);

  // Hard bound: every phase plus generous slack for start-up and setup().
  const budgetMs = (selected.length + 1) * (WARMUP + DURATION + 60) * 1000 + 120_000;
  const watchdog = setTimeout(() => {
    log(`gave up after ${budgetMs / 1000} s`);
    void shutdown().finally(() => process.exit(1));
  }, budgetMs);
  watchdog.unref();

  const startedAt = new Date().toISOString();
  tempDir = mkdtempSync(join(tmpdir(), 'collab-bench-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOST,
    DATABASE_URL: PG_SERVER_URL ? await freshPgDatabase(PG_SERVER_URL) : `file:${join(tempDir, 'bench.db')}`,
    COLLAB_DATA_DIR: tempDir,
    LOG_LEVEL,
    RATE_LIMIT_PER_MINUTE: '1000000000',
    NODE_ENV: 'production',
    // The webhook scenarios' receivers listen on 127.0.0.1.
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  };

  log('seeding workspace');
  const workspace = (await runCli(env, ['workspace', 'create', '--owner-email', 'bench-owner@example.com'])) as WorkspaceCredentials;

  log('starting servers');
  const wantsFloor = selected.some((s) => 'request' in s && s.floor);
  const [server, bareServer, floorServer] = await Promise.all([
    // The bench server delivers no webhooks: the webhook scenarios start their own deliverer (webhooks.ts).
    startRealServer({ ...env, WEBHOOK_CONCURRENCY: '0' }),
    startChild('bare server', [BARE_ENTRY], { ...process.env, PORT: '0', HOST, NODE_ENV: 'production' }),
    wantsFloor
      ? startChild('floor server', [FLOOR_ENTRY], { ...process.env, PORT: '0', HOST, NODE_ENV: 'production', DATABASE_URL: env.DATABASE_URL })
      : undefined,
  ]);
  log(
    `server ${server.url} (pid ${server.child.pid}), bare ${bareServer.url} (pid ${bareServer.child.pid})` +
      (floorServer ? `, floor ${floorServer.url} (pid ${floorServer.child.pid})` : ''),
  );

  const ctx: BenchContext = {
    baseUrl: server.url,
    serverPid: server.child.pid!,
    redisUrl: REDIS_URL,
    async startServer(extra = {}): Promise<ExtraServer> {
      const started = await startRealServer({ ...env, ...extra });
      return {
        url: started.url,
        pid: started.child.pid!,
        async stop() {
          if (!alive(started.child)) return;
          const exited = new Promise<void>((resolve) => started.child.once('exit', () => resolve()));
          started.child.kill('SIGTERM');
          const timer = setTimeout(() => started.child.kill('SIGKILL'), 10_000);
          await exited;
          clearTimeout(timer);
        },
      };
    },
    cli: (args) => runCli(env, args),
    async post(path, body, headers = {}) {
      const response = await fetch(new URL(path, server.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: encodeBody(body),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      if (response.status < 200 || response.status >= 300) throw new Error(`POST ${path} got ${response.status}: ${text.slice(0, 300)}`);
      return text === '' ? undefined : JSON.parse(text);
    },
    workspace,
    databaseUrl: env.DATABASE_URL!,
  };

  const bare = await measure('bare express', bareServer.url, bareServer.child.pid!, {
    path: '/v2/workspace/activityconfig/get',
    headers: { 'content-type': 'application/json' },
    body: { data: {} },
  });

  const died = () =>
    `server process died (code ${server.child.exitCode}, signal ${server.child.signalCode})${server.stderr() ? `: ${server.stderr().slice(-2_000)}` : ''}`;
  const results: ScenarioResult[] = [];
  const measured: MeasuredResult[] = [];
  for (const scenario of selected) {
    if ('measure' in scenario) {
      const row: MeasuredResult = { name: scenario.name, figures: [], notes: [], ok: true };
      try {
        if (scenario.setup) {
          log(`${scenario.name}: setup`);
          await scenario.setup(ctx);
        }
        log(`${scenario.name}: measuring`);
        const outcome = await scenario.measure(ctx);
        if ('skipped' in outcome) row.skipped = outcome.skipped;
        else {
          row.figures = outcome.figures;
          row.notes = outcome.notes ?? [];
        }
      } catch (error) {
        row.ok = false;
        row.problem = error instanceof Error ? error.message : String(error);
      }
      if (!alive(server.child)) {
        row.ok = false;
        row.problem = [row.problem, died()].filter(Boolean).join('; ');
      }
      measured.push(row);
      if (!alive(server.child)) break;
      continue;
    }
    let measurement: Measurement;
    let floor: Measurement | null = null;
    try {
      if (scenario.setup) {
        log(`${scenario.name}: setup`);
        await scenario.setup(ctx);
      }
      const request = scenario.request(ctx);
      const differs = scenario.floor && floorServer ? await sameAnswer(server.url, floorServer.url, request, scenario.compareIgnoring) : undefined;
      if (differs) throw new Error(differs);
      measurement = await measure(scenario.name, server.url, server.child.pid!, request, scenario.connections);
      // Right after the server, on the same request and connections, each run drained before the next.
      if (scenario.floor && floorServer) {
        await drain(server.url, request);
        floor = await measure(`${scenario.name} (floor)`, floorServer.url, floorServer.child.pid!, request, scenario.connections);
        await drain(floorServer.url, request);
      }
      if (floor && !floor.ok) {
        measurement.ok = false;
        measurement.problem = [measurement.problem, `floor: ${floor.problem ?? ''}`].filter(Boolean).join('; ');
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      measurement = { name: scenario.name, requestsPerSec: 0, p50Ms: 0, p99Ms: 0, non2xx: 0, errors: 0, timeouts: 0, peakRssMiB: null, cpuMsPerRequest: null, ok: false, problem: message };
    }
    if (!alive(server.child)) {
      measurement.ok = false;
      measurement.problem = [measurement.problem, died()].filter(Boolean).join('; ');
    }
    results.push({
      ...measurement,
      ratioToBare: bare.requestsPerSec > 0 && measurement.ok ? round(measurement.requestsPerSec / bare.requestsPerSec, 3) : null,
      // Bulk writes run on fewer connections than the baseline, so their p99 is not comparable to its.
      p99RatioToBare:
        bare.p99Ms > 0 && measurement.ok && (scenario.connections ?? CONNECTIONS) === CONNECTIONS ? round(measurement.p99Ms / bare.p99Ms, 2) : null,
      floor,
      ratioToFloor: floor && floor.ok && measurement.ok && floor.requestsPerSec > 0 ? round(measurement.requestsPerSec / floor.requestsPerSec, 3) : null,
    });
    if (!alive(server.child)) break;
  }

  const report = {
    machine: { node: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memGiB: round(totalmem() / 1024 ** 3, 1) },
    startedAt,
    durationSec: DURATION,
    warmupSec: WARMUP,
    connections: CONNECTIONS,
    bare,
    scenarios: results,
    measured,
  };
  mkdirSync(RESULTS_DIR, { recursive: true });
  const out = join(RESULTS_DIR, 'latest.json');
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);

  process.stdout.write(`\n${table(bare, results)}\n\n`);
  if (measured.length > 0) process.stdout.write(`${measuredTable(measured)}\n\n`);
  process.stdout.write(
    `node ${report.machine.node}, ${report.machine.cpus} CPUs (${report.machine.cpuModel}), ${report.machine.memGiB} GiB; ` +
      `${CONNECTIONS} connections, ${DURATION} s per scenario after ${WARMUP} s warm-up\nwritten to ${out}\n`,
  );

  const failed = [bare, ...results, ...measured].filter((m) => !m.ok);
  for (const m of failed) log(`FAILED ${m.name}: ${m.problem ?? ''}`);
  return failed.length > 0 ? 1 : 0;
}

main()
  .then(
    (code) => code,
    (error: unknown) => {
      log(`error: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
      return 1;
    },
  )
  .then(async (code) => {
    await shutdown();
    process.exit(code);
  });
