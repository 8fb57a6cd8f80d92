// Shared by the test/cluster files: two (or more) `npm start` processes on one
// PostgreSQL database and one Redis, as a scaled-out deployment runs them.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { usingPostgres } from '../helpers/database.js';

export const redisUrl = process.env.TEST_REDIS_URL;
export const clusterReady = usingPostgres && Boolean(redisUrl);

/** Prints why a cluster file is skipped (vitest shows the skip, not the reason). */
export function explainSkip(file: string): void {
  if (clusterReady) return;
  const missing = [usingPostgres ? undefined : 'TEST_DATABASE_URL (PostgreSQL)', redisUrl ? undefined : 'TEST_REDIS_URL'].filter(Boolean);
  console.log(`skipping ${file}: several server processes share one PostgreSQL and one Redis; set ${missing.join(' and ')}`);
}

/**
 * What every process of the cluster is started with besides the database: the
 * same Redis and the same master key (as docs/operations.md, Deploy on
 * PostgreSQL and Redis, asks), so
 * no process depends on a key file another one wrote.
 */
export function clusterEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { REDIS_URL: redisUrl, COLLAB_MASTER_KEY: randomBytes(32).toString('hex'), ...extra };
}

/** Runs `fn` with a client on a PostgreSQL database (the test's view of the shared state). */
export async function withPg<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
