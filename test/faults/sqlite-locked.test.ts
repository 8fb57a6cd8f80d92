// The SQLite file locked by another connection (another process's write
// transaction: a backup tool, the operator CLI, a stuck script) while
// requests are in flight. Writes wait for the lock without freezing the
// process (reads and probes are answered meanwhile), go through if it is
// released within the wait, else are refused with UNAVAILABLE, never
// INTERNAL and never half applied; the process serves writes again as soon
// as the lock is gone.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlitePath } from '../../server/db/adapter.js';
import { poolOfClient } from '../../server/db/client.js';
import { eventually } from '../helpers/eventually.js';
import { usingPostgres } from '../helpers/database.js';
import { memoryLogger } from '../helpers/log-capture.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';

if (usingPostgres) console.log('skipping the SQLite lock faults: TEST_DATABASE_URL is set (PostgreSQL run)');

describe.skipIf(usingPostgres)('the SQLite file locked by another connection', () => {
  let server: TestServer;
  let ws: WorkspaceCredentials;
  const log = memoryLogger();
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    server = await startTestServer({}, { logger: log.logger });
    ws = await server.workspace();
    const seeded = await server.post('/v2/users/add', { data: { organizationId: 'org-a', users: [{ userId: 'seed' }] } }, appHeaders(ws));
    expect(seeded.status).toBe(200);
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await server?.close();
  });

  const addUsers = (organizationId: string, prefix: string, n: number) =>
    server.post(
      '/v2/users/add',
      { data: { organizationId, users: Array.from({ length: n }, (_, i) => ({ userId: `${prefix}-${i}`, name: `User ${i}` })) } },
      appHeaders(ws),
    );
  const getUsers = (organizationId: string) => server.post('/v2/users/get', { data: { organizationId } }, appHeaders(ws));

  it('refuses writes with UNAVAILABLE while locked, keeps reading, writes nothing half, and recovers when released', async () => {
    const locker = new Database(sqlitePath(server.env.DATABASE_URL!));
    const usersBefore = (locker.prepare('SELECT COUNT(*) AS n FROM "User"').get() as { n: number }).n;
    locker.exec('BEGIN EXCLUSIVE');
    try {
      // A new organization with 40 users (several tables) and more users for an existing one, while a read and the probes come in.
      const settled = new Set<string>();
      const track = <T>(name: string, request: Promise<T>) => request.finally(() => settled.add(name));
      const writes = [track('bulkNew', addUsers('org-b', 'b', 40)), track('bulkExisting', addUsers('org-a', 'a', 25))];
      const read = await getUsers('org-a');
      const health = await fetch(`${server.url}/healthz`);
      // The process is not frozen while the writes wait for the lock: the read and the probe were answered meanwhile.
      expect([...settled]).toEqual([]);
      expect(health.status).toBe(200);
      // WAL: a reader is not blocked by another connection's write transaction.
      expect(read.status).toBe(200);
      expect(read.body.result.data.map((u: { userId: string }) => u.userId)).toEqual(['seed']);
      for (const refused of await Promise.all(writes)) {
        expect([refused.status, refused.body.error?.status]).toEqual([503, 'UNAVAILABLE']);
        expect(refused.body.error.message).toBe('the database is busy; retry the request');
      }
    } finally {
      locker.exec('ROLLBACK');
    }
    // All or nothing: neither request left a user, an organization or a grant behind.
    expect((locker.prepare('SELECT COUNT(*) AS n FROM "User"').get() as { n: number }).n).toBe(usersBefore);
    expect(locker.prepare('SELECT id FROM "Organization" WHERE id = ?').all('org-b')).toEqual([]);
    locker.close();

    // Recovery needs nothing but the lock gone: the same requests now succeed.
    const again = await addUsers('org-b', 'b', 40);
    expect(again.status).toBe(200);
    expect(Object.keys(again.body.result.data)).toHaveLength(40);
    expect((await getUsers('org-b')).body.result.data).toHaveLength(40);

    expect(unhandled).toEqual([]);
    // The operator's log says what happened; the driver's text stays there.
    expect(log.lines.some((line) => line.includes('database refused the operation'))).toBe(true);
  }, 60_000);

  it('lets a write that waits for a lock released meanwhile go through', async () => {
    const locker = new Database(sqlitePath(server.env.DATABASE_URL!));
    locker.exec('BEGIN EXCLUSIVE');
    let done = false;
    const write = addUsers('org-c', 'c', 10).finally(() => (done = true));
    // The write is waiting out the lock (the gate counts it among the waiting), and reads are answered meanwhile.
    await eventually(() => poolOfClient(server.running.database.db).waiting > 0, 'the write to wait for the lock');
    expect((await getUsers('org-a')).status).toBe(200);
    expect(done).toBe(false);
    locker.exec('ROLLBACK');
    locker.close();
    const res = await write;
    expect(res.status).toBe(200);
    expect((await getUsers('org-c')).body.result.data).toHaveLength(10);
  }, 60_000);
});
