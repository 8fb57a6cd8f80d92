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
    pool: 'forks',
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
