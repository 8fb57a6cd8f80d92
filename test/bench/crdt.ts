/**
 * Benchmarks of collaborative documents (Yjs over REST and Hocuspocus on
 * /crdt): a REST Update on a large text, the fan-out of one change to 200
 * connected clients (in one process, and through Redis across two), and the
 * memory of 1,000 loaded documents. The clients are Hocuspocus providers in
 * this process, each on its own socket unless said otherwise.
 */
import { readFileSync } from 'node:fs';
import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import * as Y from 'yjs';
import { documentNameOf, type EditorKey } from '../../contract/crdt/document-name.js';
import { connectEditor, liveUrl, NodeWebSocket, type LiveEditor } from '../helpers/live-client.js';
import { serviceHeaders, type BenchContext, type Figure, type Measured, type Scenario } from './scenarios.js';

const ORG = 'bench-crdt-org';

let organizationAdded: Promise<void> | undefined;
function withOrganization(ctx: BenchContext): Promise<void> {
  organizationAdded ??= ctx.post('/v2/organizations/add', { data: { organizationId: ORG } }, serviceHeaders(ctx.workspace));
  return organizationAdded;
}

/** User tokens (Generate Token) for users who are editors of every document of the organization. */
async function tokensFor(ctx: BenchContext, userIds: string[]): Promise<string[]> {
  return parallel(userIds, 16, async (userId) => {
    const body = await ctx.post<{ result: { data: { token: string } } }>(
      '/v2/auth/generate_token',
      { data: { userId, userProperties: { name: userId, email: `${userId}@example.com` }, permissions: { resources: [{ type: 'organization', id: ORG, accessRole: 'editor' }] } } },
      serviceHeaders(ctx.workspace),
    );
    return body.result.data.token;
  });
}

/** `work` over every item, at most `limit` at a time; results in input order. */
async function parallel<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!, index);
      }
    }),
  );
  return results;
}

/** Resident set size of a process in MiB (Linux /proc), or NaN elsewhere. */
function rssMiB(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const round1 = (value: number) => Math.round(value * 10) / 10;

/** Rejects with `message` when `promise` has not settled by `deadline` (performance.now() time). */
function before<T>(promise: Promise<T>, deadline: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), Math.max(0, deadline - performance.now()));
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

// ---------------------------------------------------------------- REST Update on a 100 KB text

/**
 * About 100 KB of text in ~1,300 sentences; the sentence in the middle is
 * one of two variants, so alternating between them changes one sentence per
 * request.
 */
function largeText(variant: 0 | 1): string {
  const sentences: string[] = [];
  for (let i = 0; sentences.join(' ').length < 100_000; i++) {
    sentences.push(`Sentence ${i} of the benchmark text describes item ${i} of the inventory in a few plain words.`);
  }
  const middle = Math.floor(sentences.length / 2);
  sentences[middle] = variant === 0 ? 'The quick brown fox jumps over the lazy dog by the river bank.' : 'A slow red fox walks around the sleepy cat near the old mill.';
  return sentences.join(' ');
}

const TEXT_KEY: EditorKey = { organizationId: ORG, documentId: 'bench-crdt-text', editorId: 'main' };

const updateLargeText: Scenario = {
  name: 'CRDT Update 100 KB text, one sentence changed',
  // One document: the server runs REST operations on it one after the other, so more connections only queue.
  // With one connection the two bodies strictly alternate, so every request changes the text.
  connections: 1,
  async setup(ctx) {
    await withOrganization(ctx);
    const headers = serviceHeaders(ctx.workspace);
    await ctx.post('/v2/organizations/documents/add', { data: { organizationId: ORG, documentId: TEXT_KEY.documentId } }, headers);
    await ctx.post('/v2/crdt/add', { data: { ...TEXT_KEY, type: 'text', data: largeText(0) } }, headers);
  },
  request: (ctx) => ({
    path: '/v2/crdt/update',
    headers: serviceHeaders(ctx.workspace),
    // The probe sends the last body (the value Add stored); the run then starts with the other.
    bodies: [1, 0].map((variant) => ({ data: { ...TEXT_KEY, type: 'text', data: largeText(variant as 0 | 1) } })),
  }),
};

// ---------------------------------------------------------------- Get on a 4 KB text

const GET_KEY: EditorKey = { organizationId: ORG, documentId: 'bench-crdt-get', editorId: 'main' };

/** About 4 KB of text in 60 lines. */
function fourKbText(): string {
  return Array.from({ length: 60 }, (_, i) => `Paragraph ${i} notes what the team agreed on item ${i} of the plan, and why.`).join('\n');
}

/**
 * Get CRDT Data of one editor holding ~4 KB of text, added through the API
 * in setup: the value and the whole Y.Doc state (base64) per request. The
 * document stays loaded while requests keep coming, so this measures reads
 * of a live document.
 */
export const crdtGetScenario: Scenario = {
  name: 'Get CRDT Data (4 KB text)',
  floor: true,
  async setup(ctx) {
    await withOrganization(ctx);
    const headers = serviceHeaders(ctx.workspace);
    await ctx.post('/v2/organizations/documents/add', { data: { organizationId: ORG, documentId: GET_KEY.documentId } }, headers);
    await ctx.post('/v2/crdt/add', { data: { ...GET_KEY, type: 'text', data: fourKbText() } }, headers);
  },
  request: (ctx) => ({ path: '/v2/crdt/get', headers: serviceHeaders(ctx.workspace), body: { data: GET_KEY } }),
};

// ---------------------------------------------------------------- fan-out to 200 clients

const FANOUT_CLIENTS = 200;
const FANOUT_ROUNDS = 50;
const FANOUT_WARMUP_ROUNDS = 5;
const FANOUT_CAP_MS = 60_000;
const FANOUT_ROUND_CAP_MS = 5_000;

let fanoutTokens: Promise<{ readers: string[]; writer: string }> | undefined;
function fanoutSetup(ctx: BenchContext) {
  fanoutTokens ??= (async () => {
    await withOrganization(ctx);
    const headers = serviceHeaders(ctx.workspace);
    for (const documentId of ['bench-crdt-fanout-embedded', 'bench-crdt-fanout-redis']) {
      await ctx.post('/v2/organizations/documents/add', { data: { organizationId: ORG, documentId } }, headers);
    }
    const readerIds = Array.from({ length: FANOUT_CLIENTS }, (_, i) => `bench-crdt-reader-${i}`);
    const [writer, ...readers] = await tokensFor(ctx, ['bench-crdt-writer', ...readerIds]);
    return { readers, writer: writer! };
  })();
  return fanoutTokens;
}

/**
 * 200 readers connect to `readersUrl`, a writer to `writerUrl`; each round the
 * writer sets one Y.Map key and every reader records how long after the set
 * it saw the value. Rounds run back to back (the next starts once all 200
 * have it). Readers and writer share this process's clock and event loop,
 * so a latency includes this process decoding the same message for the
 * clients before it.
 */
async function fanOut(readersUrl: string, writerUrl: string, readersPid: number, documentId: string, tokens: { readers: string[]; writer: string }): Promise<Measured> {
  const deadline = performance.now() + FANOUT_CAP_MS;
  const key: EditorKey = { organizationId: ORG, documentId, editorId: 'main' };
  const editors: LiveEditor[] = [];
  try {
    const rssBefore = rssMiB(readersPid);
    const connectStart = performance.now();
    const readers = tokens.readers.map((token) => connectEditor(readersUrl, key, token));
    editors.push(...readers);
    await before(Promise.all(readers.map((r) => r.ready)), deadline, 'the 200 clients did not all connect and sync within 60 s');
    const connectMs = performance.now() - connectStart;
    const rssAfter = rssMiB(readersPid);
    const writer = connectEditor(writerUrl, key, tokens.writer);
    editors.push(writer);
    await before(writer.ready, deadline, 'the writer did not connect within 60 s');

    const latencies: number[] = [];
    const slowest: number[] = [];
    interface Round {
      round: number;
      startedAt: number;
      missing: number;
      measured: boolean;
      /** The latest latency of this round so far. */
      last: number;
      done(): void;
    }
    let current: Round = { round: -1, startedAt: 0, missing: 0, measured: false, last: 0, done: () => undefined };
    const seen = new Array<number>(readers.length).fill(-1);
    readers.forEach((reader, i) => {
      const map = reader.doc.getMap<number>('bench');
      map.observe(() => {
        const value = map.get('round');
        if (value !== current.round || seen[i] === value) return;
        seen[i] = value;
        const latency = performance.now() - current.startedAt;
        if (current.measured) latencies.push(latency);
        current.last = Math.max(current.last, latency);
        if (--current.missing === 0) current.done();
      });
    });
    const writerMap = writer.doc.getMap<number>('bench');
    let completed = 0;
    for (let round = 0; round < FANOUT_WARMUP_ROUNDS + FANOUT_ROUNDS; round++) {
      const roundDeadline = Math.min(deadline, performance.now() + FANOUT_ROUND_CAP_MS);
      const all = new Promise<void>((resolve) => {
        current = { round, startedAt: performance.now(), missing: readers.length, measured: round >= FANOUT_WARMUP_ROUNDS, last: 0, done: resolve };
      });
      writerMap.set('round', round);
      try {
        await before(all, roundDeadline, `round ${round}: ${current.missing} of ${readers.length} clients had not received the change within ${FANOUT_ROUND_CAP_MS / 1000} s (or the 60 s cap)`);
      } catch (error) {
        throw new Error(`${(error as Error).message}; ${completed} rounds completed`);
      }
      if (current.measured) {
        slowest.push(current.last);
        completed += 1;
      }
    }
    const sorted = [...latencies].sort((x, y) => x - y);
    const slowestSorted = [...slowest].sort((x, y) => x - y);
    const figures: Figure[] = [
      { name: 'clients (each its own socket)', value: readers.length, unit: '' },
      { name: 'measured rounds (after 5 warm-up)', value: completed, unit: '' },
      { name: 'connect + first sync of all clients', value: Math.round(connectMs), unit: 'ms' },
      { name: 'per-client latency p50', value: round1(percentile(sorted, 50)), unit: 'ms' },
      { name: 'per-client latency p99', value: round1(percentile(sorted, 99)), unit: 'ms' },
      { name: 'per-client latency max', value: round1(sorted[sorted.length - 1] ?? Number.NaN), unit: 'ms' },
      { name: 'last client of a round p50', value: round1(percentile(slowestSorted, 50)), unit: 'ms' },
      { name: 'last client of a round p99', value: round1(percentile(slowestSorted, 99)), unit: 'ms' },
      { name: 'readers\' server RSS before clients', value: round1(rssBefore), unit: 'MiB' },
      { name: 'readers\' server RSS with 200 clients', value: round1(rssAfter), unit: 'MiB' },
    ];
    return { figures };
  } finally {
    for (const editor of editors) editor.close();
  }
}

const fanOutEmbedded: Scenario = {
  name: 'CRDT fan-out of one change to 200 clients (one process)',
  async measure(ctx) {
    const tokens = await fanoutSetup(ctx);
    return fanOut(ctx.baseUrl, ctx.baseUrl, ctx.serverPid, 'bench-crdt-fanout-embedded', tokens);
  },
};

const fanOutRedis: Scenario = {
  name: 'CRDT fan-out of one change to 200 clients (Redis, writer on a second process)',
  async measure(ctx) {
    if (!ctx.redisUrl) return { skipped: 'set BENCH_REDIS_URL (or TEST_REDIS_URL)' };
    const tokens = await fanoutSetup(ctx);
    // Two more processes of the server on the same database, both with REDIS_URL (the main one has none).
    const [readersServer, writerServer] = await Promise.all([ctx.startServer({ REDIS_URL: ctx.redisUrl }), ctx.startServer({ REDIS_URL: ctx.redisUrl })]);
    try {
      const outcome = await fanOut(readersServer.url, writerServer.url, readersServer.pid, 'bench-crdt-fanout-redis', tokens);
      return 'figures' in outcome ? { ...outcome, notes: ['readers on one server process, the writer on another; both started for this scenario with REDIS_URL'] } : outcome;
    } finally {
      await Promise.all([readersServer.stop(), writerServer.stop()]);
    }
  },
};

// ---------------------------------------------------------------- RSS with 1,000 loaded documents

const RSS_DOCUMENTS = 1000;
/** Providers per socket: the server holds at most 100 messages of a socket before its first authentication is checked. */
const PROVIDERS_PER_SOCKET = 25;
const RSS_CAP_MS = 120_000;

const rssKey = (i: number): EditorKey => ({ organizationId: ORG, documentId: `bench-crdt-rss-${i}`, editorId: 'main' });
/** A document outside the 1,000, opened before the baseline is read. */
const RSS_WARM_KEY: EditorKey = { organizationId: ORG, documentId: 'bench-crdt-rss-warm', editorId: 'main' };

/** A few KB of text, different in every document. */
function smallText(i: number): string {
  const lines: string[] = [];
  for (let line = 0; lines.join('\n').length < 3000; line++) lines.push(`Document ${i}, paragraph ${line}: notes on topic ${(i * 31 + line) % 997} with a few more words.`);
  return lines.join('\n');
}

let rssSeeded: Promise<string> | undefined;
function rssSetup(ctx: BenchContext): Promise<string> {
  rssSeeded ??= (async () => {
    await withOrganization(ctx);
    const headers = serviceHeaders(ctx.workspace);
    await parallel(
      Array.from({ length: RSS_DOCUMENTS + 1 }, (_, i) => i),
      16,
      async (i) => {
        const key = i === RSS_DOCUMENTS ? RSS_WARM_KEY : rssKey(i);
        await ctx.post('/v2/organizations/documents/add', { data: { organizationId: ORG, documentId: key.documentId } }, headers);
        await ctx.post('/v2/crdt/add', { data: { ...key, type: 'text', data: smallText(i) } }, headers);
      },
    );
    const [token] = await tokensFor(ctx, ['bench-crdt-rss-user']);
    return token!;
  })();
  return rssSeeded;
}

/** Opens every document with a provider (PROVIDERS_PER_SOCKET to a socket); resolves when all are synced. */
async function openWithProviders(url: string, token: string, deadline: number, opened: { sockets: HocuspocusProviderWebsocket[]; providers: HocuspocusProvider[] }) {
  const synced: Promise<void>[] = [];
  let socket: HocuspocusProviderWebsocket | undefined;
  for (let i = 0; i < RSS_DOCUMENTS; i++) {
    if (i % PROVIDERS_PER_SOCKET === 0) {
      // WebSocketPolyfill reaches the socket (Node 20 has no global WebSocket); the type leaves it out.
      socket = new HocuspocusProviderWebsocket({ url: liveUrl(url), WebSocketPolyfill: NodeWebSocket } as ConstructorParameters<typeof HocuspocusProviderWebsocket>[0]);
      opened.sockets.push(socket);
    }
    const provider = new HocuspocusProvider({ websocketProvider: socket!, name: documentNameOf(rssKey(i)), document: new Y.Doc(), token });
    opened.providers.push(provider);
    synced.push(
      new Promise<void>((resolve, reject) => {
        provider.on('synced', ({ state }: { state: boolean }) => state && resolve());
        provider.on('authenticationFailed', ({ reason }: { reason: string }) => reject(new Error(`document ${i} refused: ${reason}`)));
      }),
    );
    provider.attach();
  }
  await before(Promise.all(synced), deadline, `not every one of the ${RSS_DOCUMENTS} documents synced within ${RSS_CAP_MS / 1000} s`);
  // Spot check: what a provider holds is the stored text.
  const sample = opened.providers[RSS_DOCUMENTS - 1]!.document.getText('content').toString();
  if (sample !== smallText(RSS_DOCUMENTS - 1)) throw new Error('a provider did not receive its document\'s text');
}

const rssLoadedDocuments: Scenario = {
  name: 'CRDT RSS with 1,000 loaded documents',
  async measure(ctx) {
    const token = await rssSetup(ctx);
    const deadline = performance.now() + RSS_CAP_MS;
    const figures: Figure[] = [];
    const notes: string[] = [];

    // A fresh process each, so earlier scenarios' garbage and loaded documents are not in the figures.
    const live = await ctx.startServer();
    const opened = { sockets: [] as HocuspocusProviderWebsocket[], providers: [] as HocuspocusProvider[] };
    try {
      // Warm the paths (JIT, first query, first socket) on another document before the baseline.
      const warm = connectEditor(live.url, RSS_WARM_KEY, token);
      await before(warm.ready, deadline, 'warm-up client did not sync');
      warm.close();
      const before1 = rssMiB(live.pid);
      const started = performance.now();
      await openWithProviders(live.url, token, deadline, opened);
      const loadMs = performance.now() - started;
      const after1 = rssMiB(live.pid);
      figures.push(
        { name: 'providers: RSS before', value: round1(before1), unit: 'MiB' },
        { name: 'providers: RSS with 1,000 documents open', value: round1(after1), unit: 'MiB' },
        { name: 'providers: per document', value: Math.round(((after1 - before1) * 1024) / RSS_DOCUMENTS), unit: 'KiB' },
        { name: 'providers: time to open and sync all', value: Math.round(loadMs), unit: 'ms' },
      );
      notes.push(`providers: ${RSS_DOCUMENTS} documents of ~3 KB text on ${opened.sockets.length} sockets (${PROVIDERS_PER_SOCKET} each), so the figure includes a Hocuspocus connection per document but little socket memory`);
    } finally {
      for (const provider of opened.providers) provider.destroy();
      for (const socket of opened.sockets) socket.destroy();
      await live.stop();
    }

    const rest = await ctx.startServer();
    try {
      const headers = serviceHeaders(ctx.workspace);
      const get = async (key: EditorKey) => {
        const response = await fetch(`${rest.url}/v2/crdt/get`, { method: 'POST', headers, body: JSON.stringify({ data: key }) });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`REST Get CRDT Data got ${response.status}`);
      };
      await get(RSS_WARM_KEY);
      const before2 = rssMiB(rest.pid);
      const started = performance.now();
      await before(
        // Enough in flight that on PostgreSQL too the Gets usually finish within restIdleMs.
        parallel(Array.from({ length: RSS_DOCUMENTS }, (_, i) => rssKey(i)), 48, get),
        deadline,
        `the ${RSS_DOCUMENTS} REST Gets did not finish in time`,
      );
      const loadMs = performance.now() - started;
      const after2 = rssMiB(rest.pid);
      figures.push(
        { name: 'REST Get: RSS before', value: round1(before2), unit: 'MiB' },
        { name: 'REST Get: RSS after 1,000 Gets', value: round1(after2), unit: 'MiB' },
        { name: 'REST Get: per document', value: Math.round(((after2 - before2) * 1024) / RSS_DOCUMENTS), unit: 'KiB' },
        { name: 'REST Get: time for all Gets', value: Math.round(loadMs), unit: 'ms' },
      );
      notes.push(
        loadMs < 5000
          ? 'REST Get: a document REST opened stays loaded 5 s after its last use (restIdleMs); all Gets finished within that, so all 1,000 were loaded when RSS was read'
          : `REST Get: the Gets took ${Math.round(loadMs)} ms, longer than the 5 s a REST-opened document stays loaded (restIdleMs): the first ones may have been unloaded when RSS was read`,
      );
    } finally {
      await rest.stop();
    }
    return { figures, notes };
  },
};

export const crdtScenarios: Scenario[] = [updateLargeText, fanOutEmbedded, fanOutRedis, rssLoadedDocuments];
