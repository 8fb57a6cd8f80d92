import { afterAll, beforeAll, expect, it } from 'vitest';
import { runStatements } from '../helpers/raw-sql.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { checkConsistency } from './consistency.js';

/** The fuzz suite's end-of-run check must be able to fail: an orphan written behind the server's back is reported. */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const sql = (statement: string) => runStatements(server.env.DATABASE_URL!, [statement]);

it('finds nothing in a fresh database, then the orphans written into it', async () => {
  expect(await checkConsistency(server.env.DATABASE_URL!)).toEqual([]);
  await sql(`INSERT INTO "Folder" ("apiKeyId", "organizationId", "id", "name", "parentId", "createdAt", "updatedAt") VALUES ('no-such-key', 'no-such-org', 'f1', 'F', 'no-such-parent', 0, 0)`);
  const problems = await checkConsistency(server.env.DATABASE_URL!);
  expect(problems).toEqual([
    expect.stringMatching(/^Folder rows of a missing application/),
    expect.stringMatching(/^Folder rows of a missing organization/),
    expect.stringMatching(/^Folder rows under a missing parent/),
  ]);
});
