import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const get = async (path: string) => {
  const res = await fetch(new URL(path, server.url));
  return { status: res.status, body: await res.json(), cache: res.headers.get('cache-control') };
};

describe('health probes', () => {
  it('GET /healthz answers 200 without credentials', async () => {
    expect(await get('/healthz')).toEqual({ status: 200, body: { status: 'ok' }, cache: 'no-store' });
  });

  it('GET /readyz answers 200 when the database answers and every migration is applied', async () => {
    expect(await get('/readyz')).toEqual({ status: 200, body: { status: 'ok', checks: { database: 'ok' } }, cache: 'no-store' });
  });

  it('GET /readyz answers 503 while a migration of this build is not applied', async () => {
    const db = server.running.database.db;
    const [last] = await db.$queryRawUnsafe<{ name: string }[]>('SELECT migration_name AS name FROM _prisma_migrations ORDER BY migration_name DESC LIMIT 1');
    await db.$executeRawUnsafe(`UPDATE _prisma_migrations SET rolled_back_at = finished_at WHERE migration_name = '${last!.name}'`);
    try {
      expect(await get('/readyz')).toMatchObject({
        status: 503,
        body: { status: 'unavailable', reason: '1 migration(s) not applied', checks: { database: 'ok' } },
      });
    } finally {
      await db.$executeRawUnsafe(`UPDATE _prisma_migrations SET rolled_back_at = NULL WHERE migration_name = '${last!.name}'`);
    }
    expect((await get('/readyz')).status).toBe(200);
  });

  it('operations stay POST-only: other GETs are still NOT_FOUND', async () => {
    const res = await fetch(new URL('/v2/workspace/activityconfig/get', server.url));
    expect(res.status).toBe(404);
  });
});

describe('GET /readyz when the check query fails', () => {
  it('answers 503 without internals', async () => {
    const other = await startTestServer();
    await other.running.database.db.$executeRawUnsafe('DROP TABLE _prisma_migrations');
    const res = await fetch(new URL('/readyz', other.url));
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: 'unavailable', reason: 'the database check failed', checks: { database: 'unavailable' } });
    await other.close();
  });
});
