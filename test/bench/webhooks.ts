/**
 * Benchmarks of webhook delivery: to 1 endpoint and to 50 endpoints, each a
 * local receiver in this process answering 204 at once. Events come from Add
 * Comment Annotations (one `comment_annotation.add` per thread) on the bench
 * server, so producing events and delivering them share the server and its
 * database, as they do in production.
 *
 * Two phases per scenario:
 * 1. Sustained throughput: events are produced whenever fewer than a set
 *    number of deliveries are outstanding, so the dispatcher always has work;
 *    deliveries per second counted at the receivers over BENCH_DURATION s
 *    (after 1 s not counted). Then what is outstanding drains with no events
 *    being added: the dispatcher's rate on its own.
 * 2. Lag: events at a steady rate of half that throughput for BENCH_DURATION
 *    s; the lag of a delivery is its arrival time minus the payload's
 *    `timestamp` (when the event was published), p50/p99/max.
 * Every message must arrive at every endpoint, each exactly once (no retries
 * are expected: a duplicate or a missing one fails the scenario).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serviceHeaders, type BenchContext, type Figure, type Measured, type Scenario } from './scenarios.js';

const DURATION_S = Number(process.env.BENCH_DURATION || 10);
const SKIP_S = 1;
const DRAIN_CAP_MS = 120_000;

interface Arrival {
  at: number;
  timestamp: number;
  key: string;
}

/** A local receiver: answers 204 and records each delivery's arrival, event time and (message, endpoint). */
async function startReceivers(count: number): Promise<{ urls: string[]; arrivals: Arrival[]; close(): Promise<void> }> {
  const arrivals: Arrival[] = [];
  const servers: Server[] = [];
  const urls: string[] = [];
  for (let i = 0; i < count; i++) {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const at = Date.now();
        res.writeHead(204).end();
        const payload = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { timestamp: number; webhookId: string };
        arrivals.push({ at, timestamp: payload.timestamp, key: `${payload.webhookId} ${i}` });
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

function webhookScenario(endpoints: number): Scenario {
  const organizationId = `bench-wh-${endpoints}`;
  const documentId = 'bench-wh-doc';
  // Threads per Add call (one transaction each): small, so the dispatcher's statements are not queued
  // behind long producer transactions (on SQLite every statement takes its turn on the one connection).
  const batch = endpoints === 1 ? 10 : 2;
  // Deliveries kept outstanding in the throughput phase: more than the dispatcher's slots (64), so it never idles.
  const outstanding = endpoints === 1 ? 200 : 1_000;
  let thread = 0;

  async function addThreads(ctx: BenchContext, n: number): Promise<void> {
    const commentAnnotations = Array.from({ length: n }, () => {
      const id = `${organizationId}-t${thread++}`;
      return { annotationId: id, from: { userId: 'bench-author' }, commentData: [{ commentText: `benchmark thread ${id}` }] };
    });
    await ctx.post('/v2/commentannotations/add', { data: { organizationId, documentId, commentAnnotations } }, serviceHeaders(ctx.workspace));
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
        for (const url of receivers.urls) {
          const created = await ctx.post('/v2/workspace/advancedwebhook/endpoints/create', { data: { url, channels: [`org:${organizationId}`] } }, headers);
          endpointIds.push(created.result.data.id);
        }
        const arrivals = receivers.arrivals;
        // The first Add creates the organization and document; concurrent first Adds would race to create them.
        await addThreads(ctx, 1);
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
            await addThreads(ctx, batch);
          }
        });
        await Promise.all(producers);
        while (Date.now() < countUntil) await delay(10);
        const counted = arrivals.filter((a) => a.at >= countFrom && a.at < countUntil).length;
        const throughput = counted / DURATION_S;
        const phase1Events = produced / endpoints;
        // What is left drains with no events being added: the dispatcher alone.
        const drainStart = Date.now();
        const backlog = produced - arrivals.length;
        while (arrivals.length < produced && Date.now() - drainStart < DRAIN_CAP_MS) await delay(5);
        if (arrivals.length < produced) throw new Error(`throughput phase: ${produced - arrivals.length} of ${produced} deliveries missing after ${DRAIN_CAP_MS / 1000} s`);
        const drainMs = Date.now() - drainStart;
        const phase1Arrivals = arrivals.length;

        // Phase 2: lag at half the sustained rate.
        const targetDeliveriesPerS = Math.max(endpoints, Math.floor(throughput / 2));
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
            posts.push(addThreads(ctx, n));
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

        const figures: Figure[] = [
          { name: 'sustained deliveries/s (work always queued)', value: round1(throughput), unit: 'deliveries/s' },
          { name: 'events produced in that phase', value: phase1Events, unit: 'events' },
          { name: 'draining what was left, no events added', value: round1(backlog / (drainMs / 1000)), unit: `deliveries/s (${backlog} in ${drainMs} ms)` },
          { name: 'lag phase: steady rate (half the sustained)', value: round1(eventsPerS * endpoints), unit: 'deliveries/s' },
          { name: 'lag event -> arrival p50', value: percentile(lags, 50), unit: 'ms' },
          { name: 'lag event -> arrival p99', value: percentile(lags, 99), unit: 'ms' },
          { name: 'lag event -> arrival max', value: lags[lags.length - 1] ?? Number.NaN, unit: 'ms' },
          { name: 'deliveries in the lag phase', value: lags.length, unit: '' },
        ];
        return {
          figures,
          notes: [
            `${endpoints} local receiver${endpoints === 1 ? '' : 's'} answering 204 at once; events from Add Comment Annotations (${batch} threads per call in the throughput phase) on the same server; every delivery arrived exactly once`,
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
