// The unit of work against the real database (SQLite, and PostgreSQL when
// TEST_DATABASE_URL is set): a rolled-back transaction takes only its own
// writes with it, and nobody else reads them before the commit. On SQLite the
// ORM's adapter shares one connection between a transaction and every other
// request (shared/notes/sqlite-transactions.md), which these tests catch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, poolOfClient, providerOfClient, type Database } from '../../server/db/client.js';
import { applyMigrations } from '../../server/db/migrate.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';

let testDb: TestDatabase;
let database: Database;

beforeAll(async () => {
  testDb = await createTestDatabase();
  await applyMigrations(testDb.url);
  database = await openDatabase(testDb.url);
});

afterAll(async () => {
  await database?.close();
  await testDb?.drop();
});

const workspace = (id: string) => ({ id, name: id, ownerEmail: `${id}@example.com`, authTokenDigest: `digest-${id}`, createdAt: BigInt(Date.now()) });

/** A promise and the function that settles it: lets a test hold a transaction open at a known point. */
function signal() {
  let fire!: () => void;
  const fired = new Promise<void>((resolve) => (fire = resolve));
  return { fire, fired };
}

describe(`unit of work (${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'SQLite'})`, () => {
  it("keeps request B's acknowledged write when request A rolls back, and B never reads A's uncommitted row", async () => {
    const { db, uow } = database;
    const aWrote = signal();
    const bDone = signal();
    const requestA = uow.run(async () => {
      await db.workspace.create({ data: workspace('ws-a') });
      aWrote.fire();
      // A stays open while B runs: on PostgreSQL B proceeds on its own connection, and A waits
      // for it to finish; on SQLite B waits for the one connection A holds, and A waits until
      // B is in that line.
      if (providerOfClient(db) === 'sqlite') await eventually(() => poolOfClient(db).waiting > 0, 'request B waiting for the connection A holds');
      else await bDone.fired;
      throw new Error('A fails after its write');
    });
    await aWrote.fired;

    const requestB = (async () => {
      await db.workspace.create({ data: workspace('ws-b') });
      const seen = await db.workspace.findMany({ where: { id: { in: ['ws-a', 'ws-b'] } }, select: { id: true } });
      bDone.fire();
      return seen.map((w) => w.id).sort();
    })();

    await expect(requestA).rejects.toThrow('A fails after its write');
    const bSaw = await requestB;
    expect(bSaw).toEqual(['ws-b']);
    const after = await db.workspace.findMany({ where: { id: { in: ['ws-a', 'ws-b'] } }, select: { id: true } });
    expect(after.map((w) => w.id)).toEqual(['ws-b']);
  });

  it('commits every write of a unit of work together, or none of them', async () => {
    const { db, uow } = database;
    await uow.run(async () => {
      await db.workspace.create({ data: workspace('ws-c1') });
      await db.workspace.create({ data: workspace('ws-c2') });
    });
    await expect(
      uow.run(async () => {
        await db.workspace.create({ data: workspace('ws-d1') });
        await db.workspace.create({ data: workspace('ws-c1') }); // unique violation
      }),
    ).rejects.toThrow();
    const ids = (await db.workspace.findMany({ where: { id: { startsWith: 'ws-' } }, select: { id: true } })).map((w) => w.id).sort();
    expect(ids).toEqual(['ws-b', 'ws-c1', 'ws-c2']);
  });

  it('joins an outer unit of work instead of opening a second one', async () => {
    const { db, uow } = database;
    await expect(
      uow.run(async () => {
        await uow.run(() => db.workspace.create({ data: workspace('ws-nested') }));
        expect(uow.active()).toBe(true);
        throw new Error('outer fails');
      }),
    ).rejects.toThrow('outer fails');
    expect(await db.workspace.findUnique({ where: { id: 'ws-nested' } })).toBeNull();
    expect(uow.active()).toBe(false);
  });

  it('keeps many concurrent writers and failing transactions apart', async () => {
    const { db, uow } = database;
    const work = Array.from({ length: 40 }, (_, i) =>
      i % 2 === 0
        ? db.workspace.create({ data: workspace(`ws-plain-${i}`) }).then(() => true)
        : uow
            .run(async () => {
              await db.workspace.create({ data: workspace(`ws-doomed-${i}`) });
              await new Promise((resolve) => setImmediate(resolve));
              throw new Error('rollback');
            })
            .catch(() => false),
    );
    await Promise.all(work);
    const plain = await db.workspace.count({ where: { id: { startsWith: 'ws-plain-' } } });
    const doomed = await db.workspace.count({ where: { id: { startsWith: 'ws-doomed-' } } });
    expect({ plain, doomed }).toEqual({ plain: 20, doomed: 0 });
  });
});
