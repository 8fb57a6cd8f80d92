import { afterAll, expect, it } from 'vitest';
import { poolOfClient } from '../../server/db/client.js';
import { usingPostgres } from '../helpers/database.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// DATABASE_POOL_SIZE comes from the environment the server is started with
// (it was once read from process.env alone, so an embedding application's
// setting was ignored). SQLite has one connection whatever it says.
let server: TestServer | undefined;
afterAll(() => server?.close());

if (!usingPostgres) console.warn('pool-size.test.ts: TEST_DATABASE_URL is not set, the PostgreSQL pool size test is skipped');

it.skipIf(!usingPostgres)('the PostgreSQL pool takes DATABASE_POOL_SIZE from the environment the server is started with', async () => {
  server = await startTestServer({ DATABASE_POOL_SIZE: '3' });
  expect(poolOfClient(server.running.database.db).max).toBe(3);
});
