/**
 * Suggest Decision over 50,000 judgments in one workspace (see README.md):
 * judgments with a varied vocabulary seeded in bulk with the rows Add
 * Judgment writes (server/domains/memory/shapes.ts, stored as its repo
 * stores them) and the revision it
 * bumps; then autocannon on Suggest Decision with varied queries and scopes,
 * and a measured rebuild of the search index after a change.
 */
import { readFileSync } from 'node:fs';
import { openDatabase } from '../../server/db/client.js';
import { createJudgmentsRepo, judgmentRowOf } from '../../server/domains/memory/repo.js';
import { benchJudgments, benchQueries, JUDGMENTS } from './judgments-data.js';
import { serviceHeaders, type BenchContext, type Scenario } from './scenarios.js';

let seeded: Promise<void> | undefined;

/** Writes the judgments and the revision Add Judgment keeps, straight into the server's database. */
async function seedJudgments(ctx: BenchContext): Promise<void> {
  const apiKeyId = (await ctx.cli(['workspace', 'get', '--api-key', ctx.workspace.apiKey])).apiKey.id as string;
  const database = await openDatabase(ctx.databaseUrl);
  try {
    const repo = createJudgmentsRepo(database.db);
    const judgments = benchJudgments(apiKeyId);
    for (let from = 0; from < judgments.length; from += 2_000) await database.db.judgment.createMany({ data: judgments.slice(from, from + 2_000).map(judgmentRowOf) });
    await repo.bump(apiKeyId, judgments.length, judgments.reduce((sum, judgment) => sum + judgment.postings, 0));
    if (database.provider === 'postgresql') await database.db.$executeRawUnsafe('ANALYZE "Judgment"');
    else await database.db.$executeRawUnsafe('ANALYZE');
  } finally {
    await database.close();
  }
  // The SQLite driver is synchronous: let fetch see keep-alive connections the server closed meanwhile (see scenarios.ts).
  await new Promise((resolve) => setTimeout(resolve, 50));
}

function seed(ctx: BenchContext): Promise<void> {
  seeded ??= seedJudgments(ctx);
  return seeded;
}

const suggestPath = '/v2/memory/suggest';

/** A query that fails unless the index has judgments: the probe of the scenarios, and the first build. */
async function expectAnswer(ctx: BenchContext): Promise<void> {
  const body = await ctx.post(suggestPath, { data: { query: 'Renew the hosting vendor contract' } }, serviceHeaders(ctx.workspace));
  if (body?.result?.primary === null || body?.result?.primary === undefined) throw new Error(`Suggest Decision found nothing among ${JUDGMENTS} judgments`);
}

/** The server's resident set size in MiB, from /proc. */
function rssMiB(pid: number): number {
  const kib = Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return Math.round((kib / 1024) * 10) / 10;
}

const REBUILDS = 3;

/**
 * After a change (one Add Judgment), the next suggestion rebuilds the index
 * from the 50,000 rows. Meanwhile one client sends GET /healthz back to back:
 * its slowest answer is the longest the event loop was held, which is what
 * every other request of the process waited at worst.
 */
async function measureRebuild(ctx: BenchContext) {
  const headers = serviceHeaders(ctx.workspace);
  await seed(ctx);
  await expectAnswer(ctx);
  const rebuilds: number[] = [];
  const warm: number[] = [];
  const stalls: number[] = [];
  let probes = 0;
  for (let round = 0; round < REBUILDS; round++) {
    const added = await ctx.post('/v2/memory/judgments/add', { data: { subject: `Bench change ${round}`, decision: 'approve', reason: 'bench', reviewerId: 'bench-reviewer-0' } }, headers);
    let building = true;
    const watcher = (async () => {
      while (building) {
        const started = performance.now();
        await (await fetch(new URL('/healthz', ctx.baseUrl))).text();
        stalls.push(performance.now() - started);
        probes += 1;
      }
    })();
    let started = performance.now();
    await expectAnswer(ctx);
    rebuilds.push(performance.now() - started);
    building = false;
    await watcher;
    started = performance.now();
    await expectAnswer(ctx);
    warm.push(performance.now() - started);
    await ctx.post('/v2/memory/judgments/delete', { data: { judgmentIds: [added.result.data.judgmentId] } }, headers);
  }
  await expectAnswer(ctx);
  const round1 = (ms: number) => Math.round(ms * 10) / 10;
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  return {
    figures: [
      { name: 'first suggestion after a change (rebuild), median', value: round1(median(rebuilds)), unit: 'ms' },
      { name: 'first suggestion after a change (rebuild), worst', value: round1(Math.max(...rebuilds)), unit: 'ms' },
      { name: 'next suggestion (index current)', value: round1(median(warm)), unit: 'ms' },
      { name: 'slowest /healthz answer during rebuilds', value: round1(Math.max(...stalls)), unit: 'ms' },
      { name: 'server RSS after', value: rssMiB(ctx.serverPid), unit: 'MiB' },
    ],
    notes: [`${REBUILDS} rebuilds of ${JUDGMENTS + 1} judgments; ${probes} /healthz requests answered while they ran`],
  };
}

export const memoryScenarios: Scenario[] = [
  {
    name: `Suggest Decision (${JUDGMENTS.toLocaleString('en-US')} judgments)`,
    async setup(ctx) {
      await seed(ctx);
      // Builds the index once; the run then measures suggestions, not the build.
      await expectAnswer(ctx);
    },
    request: (ctx) => ({
      path: suggestPath,
      headers: serviceHeaders(ctx.workspace),
      bodies: benchQueries().map((data) => ({ data })),
    }),
  },
  {
    name: `Suggest Decision index rebuild (${JUDGMENTS.toLocaleString('en-US')} judgments)`,
    measure: measureRebuild,
  },
];
