// The migration tooling: deploy on SQLite (always) and PostgreSQL (when
// TEST_DATABASE_URL names a server where the user may CREATE DATABASE), and
// the check that both migration folders produce exactly prisma/models.prisma.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkMigrations } from '../../prisma/tools/create-migration.js';
import { adapterFactoryFor } from '../../server/db/adapter.js';
import { PrismaClient } from '../../server/db/generated/sqlite/client.js';
import { applyMigrations, migrationStatus } from '../../server/db/migrate.js';
import { withTemporaryPgDatabase } from '../../server/db/migration-engine.js';
import { migrationsDirFor } from '../../server/db/migrations-folder.js';

const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;
const NO_PG_REASON = 'TEST_DATABASE_URL is not set: skipping the PostgreSQL migration tests';
if (!TEST_DATABASE_URL) console.info(NO_PG_REASON);

function migrationNames(provider: 'sqlite' | 'postgresql'): string[] {
  return readdirSync(migrationsDirFor(provider), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

describe('SQLite migrations', () => {
  const dir = mkdtempSync(join(tmpdir(), 'collab-migrations-'));
  const url = `file:${join(dir, 'test.db')}`;
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('applies every migration once, then nothing, and leaves a database the client can use', async () => {
    const all = migrationNames('sqlite');
    expect(all.some((name) => name.endsWith('_init'))).toBe(true);

    expect(await applyMigrations(url)).toEqual({ provider: 'sqlite', applied: all });
    expect(await applyMigrations(url)).toEqual({ provider: 'sqlite', applied: [] });
    expect(await migrationStatus(url)).toMatchObject({ upToDate: true, history: null, migrations: all });

    // Also proves the engine released its connections (its EXCLUSIVE lock
    // would otherwise make this write fail with SQLITE_BUSY).
    const db = new PrismaClient({ adapter: await adapterFactoryFor(url) });
    try {
      await db.workspace.create({
        data: { id: 'ws_1', name: 'Acme', ownerEmail: 'owner@example.com', authTokenDigest: 'digest-1', createdAt: 1_767_225_600_123n },
      });
      const row = await db.workspace.findUnique({ where: { id: 'ws_1' } });
      expect(row).toMatchObject({ name: 'Acme', emailVerified: false });
      expect(row?.createdAt).toBe(1_767_225_600_123n);
    } finally {
      await db.$disconnect();
    }
  });

  it('reports a fresh database as behind', async () => {
    const fresh = `file:${join(dir, 'fresh.db')}`;
    const status = await migrationStatus(fresh);
    expect(status).toMatchObject({ upToDate: false, hasMigrationsTable: false });
    expect(status.history).toEqual({ diagnostic: 'databaseIsBehind', unappliedMigrationNames: migrationNames('sqlite') });
  });
});

describe('migrations match prisma/models.prisma', () => {
  it('sqlite: no drift', async () => {
    const [result] = await checkMigrations({ providers: ['sqlite'] });
    expect(result?.sql.trim().split('\n').filter((line) => !line.startsWith('--'))).toEqual([]);
    expect(result?.inSync).toBe(true);
  });

  it.skipIf(!TEST_DATABASE_URL)('postgresql: no drift', async () => {
    const [result] = await checkMigrations({ providers: ['postgresql'], postgresUrl: TEST_DATABASE_URL, pgliteFallback: false });
    expect(result?.sql.trim().split('\n').filter((line) => !line.startsWith('--'))).toEqual([]);
    expect(result?.inSync).toBe(true);
  });
});

describe.skipIf(!TEST_DATABASE_URL)('PostgreSQL migrations', () => {
  const adminUrl = TEST_DATABASE_URL ?? '';

  it('applies every migration once, then nothing', async () => {
    const all = migrationNames('postgresql');
    await withTemporaryPgDatabase(
      adminUrl,
      async (url) => {
        expect(await applyMigrations(url)).toEqual({ provider: 'postgresql', applied: all });
        expect(await applyMigrations(url)).toEqual({ provider: 'postgresql', applied: [] });
        expect(await migrationStatus(url)).toMatchObject({ upToDate: true, history: null });
      },
      'test_migrate',
    );
  });

  it('three concurrent appliers apply each migration exactly once', async () => {
    const all = migrationNames('postgresql');
    await withTemporaryPgDatabase(
      adminUrl,
      async (url) => {
        const results = await Promise.all([applyMigrations(url), applyMigrations(url), applyMigrations(url)]);
        expect(results.flatMap((result) => result.applied).sort()).toEqual(all);
        expect(await migrationStatus(url)).toMatchObject({ upToDate: true });
      },
      'test_migrate_concurrent',
    );
  });
});
