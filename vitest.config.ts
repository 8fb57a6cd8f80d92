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
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file starts its own server on port 0 with its own database.
    fileParallelism: true,
  },
});
