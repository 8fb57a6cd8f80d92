// The SQLite file locked by another connection (another process's write
// transaction: a backup tool, the operator CLI, a stuck script) while
// requests are in flight. Writes wait out the busy timeout and are refused
// with UNAVAILABLE, never INTERNAL and never half applied; reads go on (WAL);
// the process stays up and serves writes again as soon as the lock is gone.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlitePath } from '../../server/db/adapter.js';
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
      // A new organization with 40 users (several tables), more users for an existing one, and a read, all at once.
      const [bulkNew, bulkExisting, read] = await Promise.all([addUsers('org-b', 'b', 40), addUsers('org-a', 'a', 25), getUsers('org-a')]);
      for (const refused of [bulkNew, bulkExisting]) {
        expect([refused.status, refused.body.error?.status]).toEqual([503, 'UNAVAILABLE']);
        expect(refused.body.error.message).toBe('the database is busy; retry the request');
      }
      // WAL: a reader is not blocked by another connection's write transaction.
      expect(read.status).toBe(200);
      expect(read.body.result.data.map((u: { userId: string }) => u.userId)).toEqual(['seed']);
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
});
