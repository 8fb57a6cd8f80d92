// PostgreSQL's connections to the server terminated (a failover, an
// administrator, a restarting pooler) while requests run, one of them in the
// middle of a multi-statement transaction. Each affected request is
// UNAVAILABLE (not INTERNAL), the process survives the idle connections'
// errors, the pool reconnects by itself, and the cut transaction left nothing.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { memoryLogger } from '../helpers/log-capture.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';

const base = process.env.TEST_DATABASE_URL;
if (!base) console.log('skipping the PostgreSQL connection faults: TEST_DATABASE_URL is not set');

describe.skipIf(!base)('PostgreSQL connections terminated under load', () => {
  let server: TestServer;
  let ws: WorkspaceCredentials;
  let admin: pg.Client;
  const log = memoryLogger();
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    process.on('uncaughtException', onUnhandled);
    // No statement timeout: the reads below wait on a lock until their connection is cut, however
    // long a loaded machine takes to get there; a timeout first would answer another UNAVAILABLE.
    server = await startTestServer({ DATABASE_STATEMENT_TIMEOUT_MS: '0' }, { logger: log.logger });
    ws = await server.workspace();
    admin = new pg.Client({ connectionString: server.env.DATABASE_URL });
    await admin.connect();
    expect((await addUsers('org-a', 'seed', 1)).status).toBe(200);
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    process.off('uncaughtException', onUnhandled);
    await admin?.end();
    await server?.close();
  });

  const addUsers = (organizationId: string, prefix: string, n: number) =>
    server.post(
      '/v2/users/add',
      { data: { organizationId, users: Array.from({ length: n }, (_, i) => ({ userId: `${prefix}-${i}`, name: `User ${i}` })) } },
      appHeaders(ws),
    );
  const getUsers = (organizationId: string) => server.post('/v2/users/get', { data: { organizationId } }, appHeaders(ws));

  /** Terminates every backend on the server's database except the given ones; returns how many. */
  async function terminate(except: number[] = []): Promise<number> {
    const { rows } = await admin.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND NOT (pid = ANY($1::int[]))',
      [except],
    );
    for (const { pid } of rows) await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    return rows.length;
  }

  it('survives its idle connections being terminated and serves the next request', async () => {
    expect(await terminate()).toBeGreaterThan(0);
    // The idle clients' 'error' events arrive on their own: nothing must crash on them, and the pool replaces them.
    await eventually(async () => (await getUsers('org-a')).status === 200, 'a read to succeed again', 10_000, 50);
    expect(unhandled).toEqual([]);
  });

  it('answers UNAVAILABLE to a transaction cut half-way and to reads cut mid-query, and keeps nothing of the transaction', async () => {
    // Another session holds the grants table, so Add Users stops inside its transaction after writing the organization and users.
    const blocker = new pg.Client({ connectionString: server.env.DATABASE_URL });
    await blocker.connect();
    const { rows: me } = await blocker.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE "Grant" IN ACCESS EXCLUSIVE MODE');
    try {
      const bulk = addUsers('org-b', 'b', 200);
      const read = getUsers('org-a'); // reads grants: waits on the same lock
      let writerXid: string | null = null;
      await eventually(async () => {
        const { rows } = await admin.query<{ xid: string | null }>(
          `SELECT backend_xid::text AS xid FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND backend_xid IS NOT NULL`,
        );
        writerXid = rows[0]?.xid ?? null;
        return writerXid !== null;
      }, 'Add Users to wait inside its transaction, having written');
      expect(writerXid).not.toBeNull();

      expect(await terminate([me[0]!.pid])).toBeGreaterThan(0);
      for (const cut of [await bulk, await read]) {
        expect([cut.status, cut.body.error?.status]).toEqual([503, 'UNAVAILABLE']);
        expect(cut.body.error.message).toBe('the database is unavailable; retry the request');
      }
    } finally {
      await blocker.query('ROLLBACK');
      await blocker.end();
    }
    // Nothing of the cut transaction: no organization, no user of it.
    expect((await admin.query(`SELECT id FROM "Organization" WHERE id = 'org-b'`)).rows).toEqual([]);
    expect((await admin.query(`SELECT id FROM "User" WHERE id LIKE 'b-%'`)).rows).toEqual([]);

    // Recovery: the pool opens new connections; the same change now goes through whole.
    await eventually(async () => (await getUsers('org-a')).status === 200, 'a read to succeed again', 10_000, 50);
    const again = await addUsers('org-b', 'b', 200);
    expect(again.status).toBe(200);
    expect((await admin.query(`SELECT id FROM "User" WHERE id LIKE 'b-%'`)).rows).toHaveLength(200);
    expect(unhandled).toEqual([]);
  }, 60_000);
});
