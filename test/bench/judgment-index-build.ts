/**
 * The search index build on its own (no database, no server): peak and
 * retained heap, build time and the longest synchronous stretch, at the
 * postings budget with worst-case vocabulary (random words) and with the
 * benchmark's judgments. Run: node --expose-gc --import tsx test/bench/judgment-index-build.ts [random|bench]
 * The figures of docs/decisions.md (The search index) come from this.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { MAX_TERMS_PER_JUDGMENT, POSTINGS_BUDGET } from '../../contract/memory/add-judgment.js';
import { JudgmentIndexBuilder, type SearchableJudgment } from '../../server/domains/memory/search-index.js';
import { searchableOf } from '../../server/domains/memory/shapes.js';
import { benchJudgments } from './judgments-data.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');

let seed = 42;
const next = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);
const word = () => Array.from({ length: 7 }, () => String.fromCharCode(97 + Math.floor(next() * 26))).join('');
/** Random 7-letter words up to `length` characters: every word new, the worst case for the vocabulary. */
const randomText = (length: number) => {
  const words: string[] = [];
  for (let size = 0; size + 8 <= length; size += 8) words.push(word());
  return words.join(' ');
};

function* pages(kind: string): Generator<SearchableJudgment[]> {
  if (kind === 'random') {
    const count = Math.floor(POSTINGS_BUDGET / MAX_TERMS_PER_JUDGMENT);
    for (let from = 0; from < count; from += 1000) {
      yield Array.from({ length: Math.min(1000, count - from) }, (_, i) => ({
        id: `j${from + i}`, decision: 'approve' as const, subject: randomText(2000), reason: randomText(2000), reviewerId: `r${i % 50}`,
        organizationId: null, documentId: null, tags: [], decidedAt: 0,
      }));
    }
    return;
  }
  const judgments = benchJudgments('bench');
  for (let from = 0; from < judgments.length; from += 1000) yield judgments.slice(from, from + 1000).map(searchableOf);
}

async function main() {
  const kind = process.argv[2] ?? 'random';
  gc!();
  const base = process.memoryUsage().heapUsed;
  let peak = base;
  let longest = 0;
  let last = performance.now();
  let running = true;
  // Every turn of the loop: the gap since the previous one is how long the build held it.
  const ticker = (async () => {
    while (running) {
      await nextTurn();
      const at = performance.now();
      longest = Math.max(longest, at - last);
      last = at;
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    }
  })();
  const started = performance.now();
  const builder = new JudgmentIndexBuilder({ yieldToLoop: true });
  // A page at a time, as the server reads them; generating a page is not the build's time.
  for (const page of pages(kind)) {
    last = performance.now();
    await builder.add(page);
    await nextTurn();
  }
  const index = await builder.finish();
  const ms = performance.now() - started;
  running = false;
  await ticker;
  gc!();
  const retained = process.memoryUsage().heapUsed - base;
  const MiB = (bytes: number) => Math.round(bytes / 1048576);
  console.log(
    JSON.stringify({
      kind, judgments: index.size, postings: index.postingCount, buildMs: Math.round(ms), longestStretchMs: Math.round(longest),
      peakHeapMiB: MiB(peak - base), retainedHeapMiB: MiB(retained), bytesPerPosting: Math.round(retained / index.postingCount),
      bytesPerJudgment: Math.round(retained / index.size),
    }),
  );
  if (index.find('zz').length < 0) throw new Error('unreachable'); // keeps the index alive until measured
}

await main();
