// DATABASE_STATEMENT_TIMEOUT_MS on PostgreSQL: every connection of the pool
// carries it, and a request whose statement PostgreSQL cancels at the limit
// (here: waiting for a table another session holds locked) gets a clear
// UNAVAILABLE envelope, not INTERNAL. SQLite has no statement timeout (its
// bound is the 5 s wait for another connection's write lock), so this file needs PostgreSQL.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_STATEMENT_TIMEOUT_MS } from '../../server/db/adapter.js';
import { loadConfig } from '../../server/config.js';
import { expectCollabError } from '../helpers/credentials.js';
import { usingPostgres } from '../helpers/database.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

if (!usingPostgres) console.warn('statement-timeout.test.ts: TEST_DATABASE_URL is not set, the PostgreSQL statement timeout tests are skipped');

const servers: TestServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

it('DATABASE_STATEMENT_TIMEOUT_MS defaults to 30 s and 0 means no limit', () => {
  expect(DEFAULT_STATEMENT_TIMEOUT_MS).toBe(30_000);
  expect(loadConfig({}).databaseStatementTimeoutMs).toBe(30_000);
  expect(loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '0' }).databaseStatementTimeoutMs).toBe(0);
});

describe.skipIf(!usingPostgres)('the PostgreSQL statement timeout', () => {
  const showTimeout = async (server: TestServer) =>
    (await server.running.database.db.$queryRawUnsafe<{ statement_timeout: string }[]>('SHOW statement_timeout'))[0]!.statement_timeout;

  it('is set on the connections of the pool, and 0 leaves the database default', async () => {
    const limited = await startTestServer({ DATABASE_STATEMENT_TIMEOUT_MS: '1500' });
    servers.push(limited);
    expect(await showTimeout(limited)).toBe('1500ms');
    const unlimited = await startTestServer({ DATABASE_STATEMENT_TIMEOUT_MS: '0' });
    servers.push(unlimited);
    expect(await showTimeout(unlimited)).toBe('0');
  });

  it('cancels a statement stuck behind a lock, and the client gets UNAVAILABLE (503) saying the database took too long', async () => {
    const server = await startTestServer({ DATABASE_STATEMENT_TIMEOUT_MS: '1000' });
    servers.push(server);
    const ws = await server.workspace();
    const client = server.client(ws);
    await client.organizations.addOrganization({ organizationId: 'org-before' });

    // Another session holds the table: every statement touching it waits, past the limit.
    const locker = new pg.Client({ connectionString: server.env.DATABASE_URL });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE "Organization" IN ACCESS EXCLUSIVE MODE');
      const error = await expectCollabError(client.organizations.addOrganization({ organizationId: 'org-during' }), 'UNAVAILABLE', /database took too long/);
      expect(error.httpStatus).toBe(503);
      const raw = await server.post('/v2/organizations/get', { data: {} }, { 'x-service-api-key': ws.apiKey, 'x-service-auth-token': ws.authToken });
      expect(raw.status).toBe(503);
      expect(raw.body).toEqual({ error: { status: 'UNAVAILABLE', message: expect.stringMatching(/database took too long/) } });
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    // The lock gone, the same operations succeed: nothing was left half-done.
    await client.organizations.addOrganization({ organizationId: 'org-after' });
    const ids = (await client.organizations.getOrganizations({})).data.map((o) => o.organizationId);
    expect(ids).toEqual(expect.arrayContaining(['org-before', 'org-after']));
    expect(ids).not.toContain('org-during');
  });
});
