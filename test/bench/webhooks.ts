/**
 * Benchmarks of webhook delivery: to 1 endpoint and to 50 endpoints, each a
 * local receiver in this process answering 204 at once. Events come from Add
 * Comment Annotations (one `comment_annotation.add` per thread), so producing
 * events and delivering them share the database, as they do in production.
 *
 * Each scenario runs twice on the same endpoints: once with a server process
 * that adds the events and delivers them (the server, as deployed), once with
 * a server process that only adds them (WEBHOOK_CONCURRENCY=0) and the floor
 * (delivery-floor.mjs) delivering. The bench's main server delivers nothing
 * (run.ts starts it with WEBHOOK_CONCURRENCY=0), so each run has exactly one
 * deliverer. Two phases per run:
 * 1. Sustained throughput: events are produced whenever fewer than a set
 *    number of deliveries are outstanding, so the deliverer always has work;
 *    deliveries per second counted at the receivers over BENCH_DURATION s
 *    (after 1 s not counted). Then what is outstanding drains with no events
 *    being added: the deliverer's rate on its own.
 * 2. Lag: events at a steady rate of half the server's throughput (the same
 *    rate for the floor) for BENCH_DURATION s; the lag of a delivery is its
 *    arrival time minus the payload's `timestamp` (when the event was
 *    published), p50/p99/max.
 * Every message must arrive at every endpoint, each exactly once, every 50th
 * with a valid signature and the API key in its body, and each delivery must
 * end `succeeded` with exactly one recorded successful attempt (a duplicate,
 * a missing one or a wrong record fails the scenario).
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { openDatabase } from '../../server/db/client.js';
import { serviceHeaders, type BenchContext, type Figure, type Measured, type Scenario } from './scenarios.js';

const FLOOR_ENTRY = fileURLToPath(new URL('./delivery-floor.mjs', import.meta.url));

const DURATION_S = Number(process.env.BENCH_DURATION || 10);
const SKIP_S = 1;
const DRAIN_CAP_MS = 120_000;

interface Arrival {
  at: number;
  timestamp: number;
  key: string;
}

/** Local receivers: answer 204 and record each delivery's arrival, event time and (message, endpoint); every 50th is verified. */
async function startReceivers(count: number): Promise<{
  urls: string[];
  arrivals: Arrival[];
  /** Signing secrets by receiver index, and the API key the bodies must carry: set once known. */
  expect(secrets: string[], apiKey: string): void;
  /** Why a sampled delivery was wrong, if one was. */
  problem(): string | undefined;
  close(): Promise<void>;
}> {
  const arrivals: Arrival[] = [];
  const servers: Server[] = [];
  const urls: string[] = [];
  let verifiers: Webhook[] = [];
  let apiKey = '';
  let problem: string | undefined;
  let seen = 0;
  for (let i = 0; i < count; i++) {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const at = Date.now();
        res.writeHead(204).end();
        const raw = Buffer.concat(chunks).toString('utf8');
        const payload = JSON.parse(raw) as { timestamp: number; webhookId: string; metadata: { apiKey: string } };
        arrivals.push({ at, timestamp: payload.timestamp, key: `${payload.webhookId} ${i}` });
        if (seen++ % 50 === 0 && verifiers[i] !== undefined && problem === undefined) {
          try {
            verifiers[i]!.verify(raw, req.headers as Record<string, string>);
            if (payload.metadata.apiKey !== apiKey) problem = `delivery ${payload.webhookId} carries the wrong API key`;
          } catch (error) {
            problem = `delivery ${payload.webhookId}: ${error instanceof Error ? error.message : String(error)}`;
          }
        }
      });
    });
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
  }
  return {
    urls,
    arrivals,
    expect(secrets, key) {
      verifiers = secrets.map((secret) => new Webhook(secret));
      apiKey = key;
    },
    problem: () => problem,
    async close() {
      for (const server of servers) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const round1 = (value: number) => Math.round(value * 10) / 10;
const round2 = (value: number) => Math.round(value * 100) / 100;

async function postTo<T = any>(baseUrl: string, path: string, body: unknown, headers: Record<string, string>): Promise<T> {
  const response = await fetch(new URL(path, baseUrl), { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  if (response.status < 200 || response.status >= 300) throw new Error(`POST ${path} got ${response.status}: ${text.slice(0, 300)}`);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

/** The floor as a child process of this one; resolves once it runs. */
async function startFloor(env: NodeJS.ProcessEnv): Promise<{ stop(): Promise<void>; alive(): boolean; stderr(): string }> {
  const child = spawn(process.execPath, [FLOOR_ENTRY], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (chunk.includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the delivery floor exited at start (code ${code}): ${stderr}`)));
  });
  return {
    alive: () => child.exitCode === null && child.signalCode === null,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.stdin.end();
        const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
        await exited;
        clearTimeout(timer);
      }
      process.off('exit', killOnExit);
    },
  };
}

/** What one run (server or floor) measured. */
interface RunResult {
  throughput: number;
  events: number;
  backlog: number;
  drainMs: number;
  lagRate: number;
  lags: number[];
}

function webhookScenario(endpoints: number): Scenario {
  const organizationId = `bench-wh-${endpoints}`;
  const documentId = 'bench-wh-doc';
  // Threads per Add call (one transaction each): small, so the dispatcher's statements are not queued
  // behind long producer transactions (on SQLite every statement takes its turn on the one connection).
  const batch = endpoints === 1 ? 10 : 2;
  // Deliveries kept outstanding in the throughput phase: more than the dispatcher's slots (64), so it never idles.
  const outstanding = endpoints === 1 ? 200 : 1_000;
  let thread = 0;

  /** Both phases against the API at `apiUrl`, whoever delivers; the lag phase at `lagRate` deliveries/s (half the throughput when not given). */
  async function run(ctx: BenchContext, apiUrl: string, arrivals: Arrival[], lagRate?: number): Promise<RunResult> {
    const headers = serviceHeaders(ctx.workspace);
    const addThreads = async (n: number) => {
      const commentAnnotations = Array.from({ length: n }, () => {
        const id = `${organizationId}-t${thread++}`;
        return { annotationId: id, from: { userId: 'bench-author' }, commentData: [{ commentText: `benchmark thread ${id}` }] };
      });
      await postTo(apiUrl, '/v2/commentannotations/add', { data: { organizationId, documentId, commentAnnotations } }, headers);
    };
    arrivals.length = 0;
    // The first Add creates the organization and document; concurrent first Adds would race to create them.
    await addThreads(1);
    let produced = endpoints; // deliveries expected (events × endpoints)

    // Phase 1: sustained throughput with work always queued.
    const phase1Start = Date.now();
    const countFrom = phase1Start + SKIP_S * 1000;
    const countUntil = countFrom + DURATION_S * 1000;
    const producers = Array.from({ length: 2 }, async () => {
      while (Date.now() < countUntil) {
        if (produced - arrivals.length >= outstanding) {
          await delay(5);
          continue;
        }
        produced += batch * endpoints;
        await addThreads(batch);
      }
    });
    await Promise.all(producers);
    while (Date.now() < countUntil) await delay(10);
    const counted = arrivals.filter((a) => a.at >= countFrom && a.at < countUntil).length;
    const throughput = counted / DURATION_S;
    const events = produced / endpoints;
    // What is left drains with no events being added: the deliverer alone.
    const drainStart = Date.now();
    const backlog = produced - arrivals.length;
    while (arrivals.length < produced && Date.now() - drainStart < DRAIN_CAP_MS) await delay(5);
    if (arrivals.length < produced) throw new Error(`throughput phase: ${produced - arrivals.length} of ${produced} deliveries missing after ${DRAIN_CAP_MS / 1000} s`);
    const drainMs = Date.now() - drainStart;
    const phase1Arrivals = arrivals.length;

    // Phase 2: lag at a steady rate.
    const targetDeliveriesPerS = lagRate ?? Math.max(endpoints, Math.floor(throughput / 2));
    const eventsPerS = targetDeliveriesPerS / endpoints;
    const tickMs = 100;
    const phase2Start = Date.now();
    let due = 0;
    const posts: Promise<void>[] = [];
    for (let tick = 0; Date.now() < phase2Start + DURATION_S * 1000; tick++) {
      due += (eventsPerS * tickMs) / 1000;
      const n = Math.floor(due);
      if (n > 0) {
        due -= n;
        produced += n * endpoints;
        posts.push(addThreads(n));
      }
      await delay(Math.max(0, phase2Start + (tick + 1) * tickMs - Date.now()));
    }
    await Promise.all(posts);
    const lagDrainStart = Date.now();
    while (arrivals.length < produced && Date.now() - lagDrainStart < DRAIN_CAP_MS) await delay(20);
    if (arrivals.length < produced) throw new Error(`lag phase: ${produced - arrivals.length} deliveries missing after ${DRAIN_CAP_MS / 1000} s`);
    const lags = arrivals
      .slice(phase1Arrivals)
      .map((a) => a.at - a.timestamp)
      .sort((x, y) => x - y);
    const distinct = new Set(arrivals.map((a) => a.key)).size;
    if (distinct !== arrivals.length) throw new Error(`${arrivals.length - distinct} deliveries arrived twice`);
    return { throughput, events, backlog, drainMs, lagRate: eventsPerS * endpoints, lags };
  }

  /** Every delivery to these endpoints succeeded, with exactly one successful attempt each and no other. */
  async function checkRecords(databaseUrl: string, endpointIds: readonly string[]): Promise<string | undefined> {
    const database = await openDatabase(databaseUrl);
    try {
      const ids = endpointIds.map((id) => `'${id.replace(/'/g, "''")}'`).join(', ');
      const [row] = await database.db.$queryRawUnsafe<{ deliveries: bigint | number; unsucceeded: bigint | number; attempts: bigint | number; succeeded: bigint | number }[]>(
        `SELECT (SELECT COUNT(*) FROM "WebhookDelivery" WHERE "endpointId" IN (${ids})) AS "deliveries",
                (SELECT COUNT(*) FROM "WebhookDelivery" WHERE "endpointId" IN (${ids}) AND ("state" <> 'succeeded' OR "leaseOwner" IS NOT NULL)) AS "unsucceeded",
                (SELECT COUNT(*) FROM "WebhookAttempt" WHERE "endpointId" IN (${ids})) AS "attempts",
                (SELECT COUNT(DISTINCT "deliveryId") FROM "WebhookAttempt" WHERE "endpointId" IN (${ids}) AND "status" = 'succeeded') AS "succeeded"`,
      );
      const [deliveries, unsucceeded, attempts, succeeded] = [row!.deliveries, row!.unsucceeded, row!.attempts, row!.succeeded].map(Number);
      if (unsucceeded! > 0) return `${unsucceeded} of ${deliveries} deliveries not recorded as succeeded`;
      if (attempts !== deliveries || succeeded !== deliveries) return `${deliveries} deliveries, ${attempts} attempts recorded, ${succeeded} with a success`;
      return undefined;
    } finally {
      await database.close();
    }
  }

  return {
    name: `webhooks: ${endpoints} endpoint${endpoints === 1 ? '' : 's'}`,
    async measure(ctx): Promise<Measured> {
      const headers = serviceHeaders(ctx.workspace);
      const receivers = await startReceivers(endpoints);
      const endpointIds: string[] = [];
      try {
        await ctx.post('/v2/workspace/advancedwebhookconfig/update', { data: { isEnabled: true } }, headers);
        // Only this scenario's organization: other scenarios' events (and the other webhook scenario's) stay out.
        const secrets: string[] = [];
        for (const url of receivers.urls) {
          const created = await ctx.post('/v2/workspace/advancedwebhook/endpoints/create', { data: { url, channels: [`org:${organizationId}`] } }, headers);
          endpointIds.push(created.result.data.id);
          secrets.push((await ctx.post('/v2/workspace/advancedwebhook/endpoints/secret/get', { data: { endpointId: created.result.data.id } }, headers)).result.data.secret);
        }
        receivers.expect(secrets, ctx.workspace.apiKey);

        // The server: one process adding the events and delivering them.
        const server = await ctx.startServer();
        let ours: RunResult;
        try {
          ours = await run(ctx, server.url, receivers.arrivals);
        } finally {
          await server.stop();
        }
        const ourRecords = await checkRecords(ctx.databaseUrl, endpointIds);
        if (ourRecords !== undefined) throw new Error(`server: ${ourRecords}`);

        // The floor: a process adding the events without delivering, and the floor delivering them.
        const api = await ctx.startServer({ WEBHOOK_CONCURRENCY: '0' });
        const floor = await startFloor({
          DATABASE_URL: ctx.databaseUrl,
          FLOOR_API_KEY: ctx.workspace.apiKey,
          FLOOR_SECRETS: JSON.stringify(Object.fromEntries(endpointIds.map((id, i) => [id, secrets[i]]))),
        });
        let floors: RunResult;
        try {
          floors = await run(ctx, api.url, receivers.arrivals, ours.lagRate);
          if (!floor.alive()) throw new Error(`the delivery floor died: ${floor.stderr()}`);
        } finally {
          await floor.stop();
          await api.stop();
        }
        const floorRecords = await checkRecords(ctx.databaseUrl, endpointIds);
        if (floorRecords !== undefined) throw new Error(`floor: ${floorRecords}`);
        const wrong = receivers.problem();
        if (wrong !== undefined) throw new Error(wrong);

        const side = (label: string, r: RunResult): Figure[] => [
          { name: `${label}: sustained deliveries/s (work always queued)`, value: round1(r.throughput), unit: `deliveries/s (${r.events} events added)` },
          { name: `${label}: draining what was left, no events added`, value: round1(r.backlog / (r.drainMs / 1000)), unit: `deliveries/s (${r.backlog} in ${r.drainMs} ms)` },
          { name: `${label}: lag event -> arrival p50`, value: percentile(r.lags, 50), unit: 'ms' },
          { name: `${label}: lag event -> arrival p99`, value: percentile(r.lags, 99), unit: 'ms' },
          { name: `${label}: lag event -> arrival max`, value: r.lags[r.lags.length - 1] ?? Number.NaN, unit: `ms (${r.lags.length} deliveries)` },
        ];
        const figures: Figure[] = [
          ...side('server', ours),
          ...side('floor', floors),
          { name: 'lag phase: steady rate (half the server\'s sustained)', value: round1(ours.lagRate), unit: 'deliveries/s' },
          { name: 'x floor: sustained deliveries/s, server / floor', value: round2(ours.throughput / floors.throughput), unit: '' },
        ];
        return {
          figures,
          notes: [
            `${endpoints} local receiver${endpoints === 1 ? '' : 's'} answering 204 at once; events from Add Comment Annotations (${batch} threads per call in the throughput phase) on the delivering server, or on a server that does not deliver for the floor; every delivery arrived exactly once and was recorded as one success`,
          ],
        };
      } finally {
        for (const endpointId of endpointIds) {
          await ctx.post('/v2/workspace/advancedwebhook/endpoints/delete', { data: { endpointId } }, headers).catch(() => undefined);
        }
        // Later scenarios write no webhook messages.
        await ctx.post('/v2/workspace/advancedwebhookconfig/update', { data: { isEnabled: false } }, headers).catch(() => undefined);
        await receivers.close();
      }
    },
  };
}

export const webhookScenarios: Scenario[] = [webhookScenario(1), webhookScenario(50)];
