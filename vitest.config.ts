import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { tierSelection } from './test/tiers.js';

// TEST_TIER picks a part of the suite (test/tiers.ts says which and why); unset, everything.
const { include, exclude } = tierSelection(process.env.TEST_TIER);

export default defineConfig({
  test: {
    include,
    exclude: [...configDefaults.exclude, ...exclude],
    // Captures server logs and scans them for leaked credentials at the end;
    // makes the migrated template database that each test database starts from.
    globalSetup: ['test/global-setup.ts'],
    // Every answer of every test is held to the contract, and one that parsing would change
    // fails (server/http/response-check.ts); servers spawned as processes inherit it.
    env: { RESPONSE_VALIDATION: 'strict' },
    pool: 'forks',
    // The test files of one worker share its module graph instead of each
    // importing the server's modules anew: that import was most of the run
    // (SQLite, whole suite, quiet 2-core machine: 522 s isolated, 184 s
    // shared, same 3,022 tests passed). Sharing is safe because the server
    // keeps no state in modules: every test file builds its own server,
    // database, clock and logger (test/helpers/server.ts), and the few
    // process-wide changes a file makes (vi.stubEnv) it undoes in afterAll.
    // test/unit/test-isolation.test.ts keeps it so.
    isolate: false,
    // vitest's default is one worker fewer than the cores: a single worker on
    // CI's 2-core machine, with the second core mostly idle while test files
    // wait on their servers, sockets and databases. Two workers there took
    // 10 HTTP test files from 158 s to 116 s (same tests, same results; one
    // measurement each, on a machine shared with other heavy jobs).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file starts its own server on port 0 with its own database.
    fileParallelism: true,
  },
});
