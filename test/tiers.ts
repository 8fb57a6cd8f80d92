/**
 * Which test files a run takes, chosen by TEST_TIER (vitest.config.ts reads it;
 * `.ci/run` sets it). Entries are paths from the repository root: a folder
 * (ending in `/`) stands for every test file under it, at any depth; a file
 * stands for itself.
 *
 * - unset or `all`: every test file (what `npm test` runs).
 * - `database`: every test file except DATABASE_FREE. `.ci/run` runs it on
 *   PostgreSQL and Redis. The rule is by exclusion, so a new test file runs
 *   on both databases unless it is added here; test/tiers.test.ts fails when
 *   a DATABASE_FREE file reaches a test server, a test database, a server
 *   process, the CLI, a database driver or Redis.
 * - `runtime`: RUNTIME only, what `.ci/run` runs on the other Node versions.
 * - `native`: NATIVE only, the part of RUNTIME that needs embedded SQLite:
 *   what `.ci/run` runs on the Node version that ran the PostgreSQL tier,
 *   which covered the rest of RUNTIME there.
 * - `database-free`: DATABASE_FREE only (for trying the list out).
 */

/**
 * Test files that touch no database, no server and no Redis: the contract
 * and OpenAPI document alone, and pure units. They give the same answer
 * whatever database the suite is pointed at, so they run once, in the full
 * SQLite run.
 */
export const DATABASE_FREE: readonly string[] = [
  'test/contract/',
  'test/unit/',
  'test/agents/context.test.ts',
  'test/agents/crawl.test.ts',
  'test/agents/mcp.test.ts',
  'test/agents/services.test.ts',
  'test/ai/ask-ai-service.test.ts',
  'test/email/render.test.ts',
  'test/lib/outbound-get.test.ts',
  'test/platform/read-cache.test.ts',
];

/**
 * Where the Node runtime matters (native module, process and socket
 * lifecycle, child processes, WebSockets, the packed SDK): what `.ci/run`
 * runs on each supported Node version besides the machine's own, after
 * rebuilding better-sqlite3 for it.
 */
export const RUNTIME: readonly string[] = [
  // The database layer on better-sqlite3 (the native module) and its faults.
  'test/db/',
  'test/faults/sqlite-disk-full.test.ts',
  'test/faults/sqlite-locked.test.ts',
  // Server start, configuration errors, graceful stop, `npm start`, health.
  'test/server/',
  // The operator CLI and the demo.
  'test/cli/',
  // Real-time: Hocuspocus over the WebSocket of the running server.
  'test/realtime/',
  // The SDK as packed by npm and imported by a consumer.
  'test/sdk/pack.test.ts',
  // One webhook delivered end to end (outbound HTTP, signing, the job worker).
  'test/webhooks/smoke.test.ts',
];

/**
 * The part of RUNTIME that only embedded SQLite exercises: the native
 * better-sqlite3 module itself, its faults, and the SQLite backup. The rest
 * of RUNTIME runs against PostgreSQL as well, so on the Node version that
 * runs the PostgreSQL tier, .ci/run adds only these on SQLite.
 */
export const NATIVE: readonly string[] = [
  'test/db/',
  'test/faults/sqlite-disk-full.test.ts',
  'test/faults/sqlite-locked.test.ts',
  'test/cli/backup-restore.test.ts',
];

export const TIERS = ['all', 'database', 'runtime', 'native', 'database-free'] as const;
export type Tier = (typeof TIERS)[number];

/** The vitest glob(s) of one entry. */
export function globsOf(entry: string): string[] {
  return entry.endsWith('/') ? [`${entry}**/*.test.ts`] : [entry];
}

/** `include` and `exclude` for a tier; an unknown tier is an error, not an empty run. */
export function tierSelection(tier: string | undefined): { tier: Tier; include: string[]; exclude: string[] } {
  const name = (tier || 'all') as Tier;
  if (!TIERS.includes(name)) throw new Error(`TEST_TIER must be one of ${TIERS.join(', ')} (got "${tier}")`);
  const all = ['test/**/*.test.ts'];
  switch (name) {
    case 'all':
      return { tier: name, include: all, exclude: [] };
    case 'database':
      return { tier: name, include: all, exclude: DATABASE_FREE.flatMap(globsOf) };
    case 'runtime':
      return { tier: name, include: RUNTIME.flatMap(globsOf), exclude: [] };
    case 'native':
      return { tier: name, include: NATIVE.flatMap(globsOf), exclude: [] };
    case 'database-free':
      return { tier: name, include: DATABASE_FREE.flatMap(globsOf), exclude: [] };
  }
}

/** Whether a repository-relative path is covered by an entry. */
export function matches(entry: string, path: string): boolean {
  return entry.endsWith('/') ? path.startsWith(entry) : path === entry;
}
