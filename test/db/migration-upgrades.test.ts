// Migrations that change a column's type keep every stored value: each case
// fills a database at the migration before its own, applies it and reads
// every row back (test/helpers/migration-upgrade.ts). On SQLite always; on
// PostgreSQL when TEST_DATABASE_URL names a server where the user may
// CREATE DATABASE, there with a session time zone other than UTC, which a
// conversion of `timestamp without time zone` must not depend on.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { withTemporaryPgDatabase } from '../../server/db/migration-engine.js';
import { upgradeWithRows, type UpgradeCase } from '../helpers/migration-upgrade.js';
import { accessTimesMs } from './upgrades/access-times-ms.js';
import { accountTimesMs } from './upgrades/account-times-ms.js';

const CASES: UpgradeCase[] = [accountTimesMs, accessTimesMs];

const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;

async function setTimeZone(url: string, zone: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const name = decodeURIComponent(new URL(url).pathname.slice(1));
    await client.query(`ALTER DATABASE "${name}" SET timezone TO '${zone}'`);
  } finally {
    await client.end();
  }
}

describe.each(CASES)('$migration keeps every value', (upgrade) => {
  const dir = mkdtempSync(join(tmpdir(), 'collab-upgrade-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('on SQLite', async () => {
    const { actual, expected } = await upgradeWithRows(`file:${join(dir, 'upgrade.db')}`, upgrade);
    expect(actual).toEqual(expected);
  });

  it.skipIf(!TEST_DATABASE_URL)('on PostgreSQL', async () => {
    await withTemporaryPgDatabase(
      TEST_DATABASE_URL ?? '',
      async (url) => {
        await setTimeZone(url, 'America/New_York');
        const { actual, expected } = await upgradeWithRows(url, upgrade);
        expect(actual).toEqual(expected);
      },
      'test_upgrade',
    );
  });
});
