import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { JudgmentsRepo } from './repo.js';
import { JudgmentIndexBuilder, type JudgmentIndex } from './search-index.js';
import { searchableOf } from './shapes.js';

/** Rows read per query while an index is built: each page is a short synchronous stretch on SQLite. */
export const SCAN_PAGE = 1000;
/** Index builds the process runs at once, over all applications; more wait their turn (memory and CPU are shared). */
export const CONCURRENT_BUILDS = 2;

/** An index and the revision read before its rows: it holds at least that revision's judgments. */
interface Built {
  revision: number;
  /** null: the application had no judgments. */
  index: JudgmentIndex | null;
}

/** One build of one application; `revision` is known once it has its turn and reads it. */
interface Flight {
  revision: number | undefined;
  result: Promise<Built>;
}

/** An application's build under way, and at most one more queued behind it for whoever needs a later revision. */
interface Lane {
  running: Flight;
  queued: Flight | undefined;
}

/** Runs at most `limit` tasks at once, the others in arrival order. */
function limiter(limit: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active < limit) active += 1;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      // The slot passes straight to the next in line, so `active` stays put.
      const next = waiting.shift();
      if (next !== undefined) next();
      else active -= 1;
    }
  };
}

/**
 * The search indexes of the applications that asked for suggestions lately
 * (least recently used out first). Before each use the application's
 * revision is read (one primary-key read); when any process changed its
 * judgments since the index was built, the index is rebuilt from the
 * database. A build reads the revision before the rows, so an index is never
 * newer than its label: a change racing a build costs one more rebuild,
 * never a stale answer.
 *
 * Builds are bounded: one per application at a time, CONCURRENT_BUILDS in
 * the process. A request that needs a later revision than the running
 * build's waits for it and then for one more build, which every such request
 * shares and which reads the revision when it starts (so it is at least
 * theirs): a client alternating writes and suggestions on many connections
 * costs at most two builds in line, not one per request.
 */
export function createJudgmentIndexCache(deps: {
  repo: JudgmentsRepo;
  capacity: number;
  log: Logger;
  now?: () => number;
  concurrentBuilds?: number;
}) {
  const { repo, capacity, log } = deps;
  const now = deps.now ?? (() => performance.now());
  const entries = new Map<string, Built>();
  const lanes = new Map<string, Lane>();
  const slot = limiter(deps.concurrentBuilds ?? CONCURRENT_BUILDS);

  function remember(apiKeyId: string, built: Built): void {
    const known = entries.get(apiKeyId);
    if (known !== undefined && known.revision >= built.revision) return;
    entries.delete(apiKeyId);
    if (built.index === null) return;
    entries.set(apiKeyId, built);
    for (const oldest of entries.keys()) {
      if (entries.size <= capacity) break;
      entries.delete(oldest);
    }
  }

  async function build(apiKeyId: string, flight: Flight): Promise<Built> {
    const started = now();
    const state = await repo.revision(apiKeyId);
    const revision = state?.revision ?? 0;
    flight.revision = revision;
    if (state === null || state.size === 0) return { revision, index: null };
    const builder = new JudgmentIndexBuilder({ yieldToLoop: true });
    let afterId: string | undefined;
    for (;;) {
      // On SQLite the driver answers synchronously and its promises settle as microtasks: without a
      // turn of the event loop between pages, reading 50,000 rows would hold it for the whole scan.
      if (afterId !== undefined) await nextTurn();
      const rows = await repo.scan(apiKeyId, afterId, SCAN_PAGE);
      // Page by page: the searched texts of one page at a time are held, not those of every judgment.
      await builder.add(rows.map(searchableOf));
      if (rows.length < SCAN_PAGE) break;
      afterId = rows[rows.length - 1]!.id;
    }
    const index = await builder.finish();
    log.info({ apiKeyId, revision, judgments: index.size, postings: index.postingCount, ms: Math.round(now() - started) }, 'judgment search index built');
    return { revision, index };
  }

  /** A build of the application that starts once `after` has settled and a process slot is free. */
  function launch(apiKeyId: string, after: Promise<unknown>): Flight {
    const flight: Flight = { revision: undefined, result: Promise.resolve({ revision: 0, index: null }) };
    flight.result = after
      .catch(() => undefined)
      .then(() => slot(() => build(apiKeyId, flight)))
      .then((built) => {
        remember(apiKeyId, built);
        return built;
      });
    return flight;
  }

  /** When the running build ends, the queued one (if any) becomes the running one. */
  function advance(apiKeyId: string, lane: Lane): void {
    void lane.running.result
      .catch(() => undefined)
      .then(() => {
        if (lane.queued === undefined) {
          lanes.delete(apiKeyId);
          return;
        }
        lane.running = lane.queued;
        lane.queued = undefined;
        advance(apiKeyId, lane);
      });
  }

  /** The build whose index holds at least `revision`: the running one, the queued one, or a new one. */
  function flightFor(apiKeyId: string, revision: number): Flight {
    let lane = lanes.get(apiKeyId);
    if (lane === undefined) {
      lane = { running: launch(apiKeyId, Promise.resolve()), queued: undefined };
      lanes.set(apiKeyId, lane);
      advance(apiKeyId, lane);
      return lane.running;
    }
    // Not yet read: it will be read after ours, so it is at least ours.
    if (lane.running.revision === undefined || lane.running.revision >= revision) return lane.running;
    lane.queued ??= launch(apiKeyId, lane.running.result);
    return lane.queued;
  }

  return {
    /** The application's current index, or null when it has no judgments. */
    async current(apiKeyId: string): Promise<JudgmentIndex | null> {
      const state = await repo.revision(apiKeyId);
      if (state === null || state.size === 0) {
        entries.delete(apiKeyId);
        return null;
      }
      const known = entries.get(apiKeyId);
      if (known !== undefined && known.revision >= state.revision) {
        entries.delete(apiKeyId);
        entries.set(apiKeyId, known);
        return known.index;
      }
      return (await flightFor(apiKeyId, state.revision).result).index;
    },

    /** Applications with an index in memory (tests). */
    cached: (): string[] => [...entries.keys()],
  };
}

export type JudgmentIndexCache = ReturnType<typeof createJudgmentIndexCache>;
