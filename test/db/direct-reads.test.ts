/**
 * Direct reads (server/db/direct-reads.ts, direct-select.ts) give a repo the
 * same record the ORM gives, on both databases, inside a unit of work and
 * out of it: booleans, NULLs, BigInts past 2^53, text of every kind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMigratedDatabase } from '../../server/db/startup.js';
import type { Database } from '../../server/db/client.js';
import { selectRows } from '../../server/db/direct-select.js';
import { insertMany } from '../../server/db/bulk.js';
import { createdOnce } from '../../server/db/errors.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let testDb: TestDatabase;
let database: Database;
const sent: { sql: string; via: 'orm' | 'direct' }[] = [];

const FOLDER = { apiKeyId: 'text', organizationId: 'text', id: 'text', name: 'text', parentId: 'text?', accessType: 'text', inheritAccessFromParent: 'bool', createdAt: 'bigint', updatedAt: 'bigint' } as const;
const BIG = 2n ** 62n + 7n;

beforeAll(async () => {
  testDb = await createTestDatabase();
  database = (await openMigratedDatabase(testDb.url, { onQuery: (sql, via) => sent.push({ sql, via }) })).database;
  await database.db.folder.createMany({
    data: [
      { apiKeyId: 'app', organizationId: 'org', id: 'f1', name: 'Ünïcødé 📁 \'quote" ', parentId: null, accessType: 'public', inheritAccessFromParent: false, createdAt: BIG, updatedAt: 0n },
      { apiKeyId: 'app', organizationId: 'org', id: 'f2', name: '', parentId: 'f1', accessType: 'restricted', inheritAccessFromParent: true, createdAt: 1n, updatedAt: -5n },
      { apiKeyId: 'app', organizationId: 'org', id: '__proto__', name: 'x', parentId: 'f1', accessType: 'organizationPrivate', inheritAccessFromParent: true, createdAt: 2n, updatedAt: 3n },
      { apiKeyId: 'other', organizationId: 'org', id: 'f1', name: 'another app', parentId: null, accessType: 'public', inheritAccessFromParent: true, createdAt: 1n, updatedAt: 1n },
    ],
  });
});

afterAll(async () => {
  await database?.close();
  await testDb?.drop();
});

const byOrm = () => database.db.folder.findMany({ where: { apiKeyId: 'app', organizationId: 'org' }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
const direct = (where: Record<string, unknown> = {}) =>
  selectRows(database.db, { from: 'Folder', columns: FOLDER, where: { apiKeyId: 'app', organizationId: 'org', ...where }, orderBy: [['createdAt', 'asc'], ['id', 'asc']] });

describe('direct reads', () => {
  it('decode every row as the ORM does', async () => {
    const [orm, rows] = await Promise.all([byOrm(), direct()]);
    expect(rows).toEqual(orm);
    expect(rows.map((row) => typeof row.inheritAccessFromParent)).toEqual(['boolean', 'boolean', 'boolean']);
    expect(rows.at(-1)!.createdAt).toBe(BIG);
  });

  it('take equality, NULL, IN (empty too), a keyset cursor and a limit', async () => {
    expect((await direct({ parentId: null })).map((row) => row.id)).toEqual(['f1']);
    expect((await direct({ id: { in: ['f2', '__proto__', 'nope'] } })).map((row) => row.id)).toEqual(['f2', '__proto__']);
    expect(await direct({ id: { in: [] } })).toEqual([]);
    expect(await direct({ inheritAccessFromParent: false })).toHaveLength(1);
    const after = await selectRows(database.db, {
      from: 'Folder',
      columns: { id: 'text' },
      where: { apiKeyId: 'app', organizationId: 'org' },
      after: { cursor: { at: 1, id: 'f2' }, order: 'asc', at: 'createdAt', id: 'id' },
      orderBy: [['createdAt', 'asc'], ['id', 'asc']],
      take: 1,
    });
    expect(after).toEqual([{ id: '__proto__' }]);
  });

  it('inside a unit of work go through its transaction and see its writes', async () => {
    await expect(
      database.uow.run(async () => {
        await database.db.folder.update({ where: { apiKeyId_organizationId_id: { apiKeyId: 'app', organizationId: 'org', id: 'f2' } }, data: { name: 'renamed', inheritAccessFromParent: false } });
        sent.length = 0;
        const [inside] = await direct({ id: 'f2' });
        // Straight to the adapter's transaction, not through the ORM's raw query on it.
        expect(sent.map((s) => s.via)).toEqual(['direct']);
        expect(inside).toMatchObject({ name: 'renamed', inheritAccessFromParent: false, updatedAt: -5n });
        expect(inside).toEqual((await byOrm()).find((row) => row.id === 'f2'));
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect((await direct({ id: 'f2' }))[0]).toMatchObject({ name: '', inheritAccessFromParent: true });
  });

  it('decode bytes as the ORM does: a Uint8Array of its own, empty and NULL kept apart', async () => {
    const base = { apiKeyId: 'app', organizationId: 'org', documentId: 'd', restClientId: 2n ** 40n, type: 'text', contentKey: 'content', updatedByUserId: null, createdAt: 1n, updatedAt: 2n };
    await database.db.crdtDocument.createMany({
      data: [
        { ...base, editorId: 'e1', state: new Uint8Array([0, 1, 255, 0]), restBase: null },
        { ...base, editorId: 'e2', state: new Uint8Array(0), restBase: new Uint8Array([7]) },
      ],
    });
    const columns = { editorId: 'text', state: 'bytes', restBase: 'bytes?', restClientId: 'bigint?', updatedByUserId: 'text?' } as const;
    const rows = await selectRows(database.db, { from: 'CrdtDocument', columns, where: { apiKeyId: 'app', documentId: 'd' }, orderBy: [['editorId', 'asc']] });
    const orm = await database.db.crdtDocument.findMany({ where: { apiKeyId: 'app', documentId: 'd' }, orderBy: { editorId: 'asc' }, select: { editorId: true, state: true, restBase: true, restClientId: true, updatedByUserId: true } });
    expect(rows).toEqual(orm);
    expect(rows.map((r) => r.state.constructor)).toEqual([Uint8Array, Uint8Array]);
    expect([...rows[0]!.state]).toEqual([0, 1, 255, 0]);
    expect(rows[1]!.state.byteLength).toBe(0);
    expect(rows[0]!.restBase).toBeNull();
  });

  it('refuse a name that is not an identifier', async () => {
    await expect(selectRows(database.db, { from: 'Folder"; DROP TABLE "Folder', columns: FOLDER, where: {} })).rejects.toThrow(/not a column or table name/);
  });

  it('insert many rows past the ORM, each value as the ORM stores it, in the unit of work', async () => {
    const rows = [
      { apiKeyId: 'ins', organizationId: 'org', id: 'a', name: 'Ünïcødé 📁 \'quote" {"json":1}', parentId: null, accessType: 'public', inheritAccessFromParent: false, createdAt: BIG, updatedAt: -1n },
      { apiKeyId: 'ins', organizationId: 'org', id: '__proto__', name: '', parentId: 'a', accessType: 'restricted', inheritAccessFromParent: true, createdAt: 0n, updatedAt: 2n ** 53n + 1n },
    ];
    await database.uow.run(async () => {
      sent.length = 0;
      await insertMany(database.db, 'Folder', rows);
      expect(sent.map((s) => s.via)).toEqual(['direct']);
    });
    const stored = await database.db.folder.findMany({ where: { apiKeyId: 'ins' }, orderBy: { createdAt: 'asc' } });
    expect(stored).toEqual([rows[1], rows[0]]);
    // Out of a unit of work too (one statement).
    await insertMany(database.db, 'Folder', [{ ...rows[0]!, id: 'b' }]);
    expect(await database.db.folder.count({ where: { apiKeyId: 'ins' } })).toBe(3);
  });

  it('insert many: a taken key fails the whole statement as a unique violation, and the unit of work rolls back', async () => {
    const row = { apiKeyId: 'dup', organizationId: 'org', id: 'x', name: 'x', parentId: null, accessType: 'public', inheritAccessFromParent: false, createdAt: 1n, updatedAt: 1n };
    await insertMany(database.db, 'Folder', [row]);
    await expect(
      database.uow.run(async () => {
        await insertMany(database.db, 'Folder', [{ ...row, id: 'y' }]);
        await createdOnce('folder x', () => insertMany(database.db, 'Folder', [{ ...row, id: 'z' }, row]));
      }),
    ).rejects.toMatchObject({ status: 'ALREADY_EXISTS', message: 'folder x already exists' });
    expect((await database.db.folder.findMany({ where: { apiKeyId: 'dup' } })).map((f) => f.id)).toEqual(['x']);
  });
});
