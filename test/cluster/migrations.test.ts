// Two processes started at the same moment on a new, empty PostgreSQL
// database: both come up, and each migration is applied (and recorded) once.
import { readdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually, outcomeWithin } from '../helpers/eventually.js';
import { NO_FILTERS, withEngineFor } from '../../server/db/migration-engine.js';
import { migrationsDirFor, readMigrationsList } from '../../server/db/migrations-folder.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { killServer, spawnServer, type ServerProcess } from '../helpers/server-process.js';
import { clusterEnv, clusterReady, explainSkip, withPg } from './cluster.js';

explainSkip('test/cluster/migrations.test.ts');

const ROUNDS = 2;
const migrations = readdirSync(migrationsDirFor('postgresql'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

let processes: ServerProcess[] = [];
let databases: TestDatabase[] = [];
afterEach(async () => {
  for (const p of processes) await killServer(p);
  for (const d of databases) await d.drop();
  processes = [];
  databases = [];
});

describe.skipIf(!clusterReady)('migrations when processes start together', () => {
  it(`two processes started at once on an empty database both come up, and each migration is applied once (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const database = await createTestDatabase({ empty: true });
      databases.push(database);
      const env = clusterEnv({ DATABASE_URL: database.url, COLLAB_DATA_DIR: database.dataDir, JOB_POLL_INTERVAL_MS: '0', WEBHOOK_POLL_INTERVAL_MS: '0' });
      const started = await Promise.allSettled([spawnServer(env), spawnServer(env)]);
      for (const outcome of started) if (outcome.status === 'fulfilled') processes.push(outcome.value);
      const failures = started.flatMap((outcome) => (outcome.status === 'rejected' ? [String(outcome.reason)] : []));
      expect(failures, `round ${round}: a process failed to start`).toEqual([]);

      const rows = await withPg(database.url, async (client) =>
        (
          await client.query<{ name: string; finished: boolean; rolledBack: boolean }>(
            'SELECT migration_name AS name, finished_at IS NOT NULL AS finished, rolled_back_at IS NOT NULL AS "rolledBack" FROM _prisma_migrations ORDER BY migration_name',
          )
        ).rows,
      );
      expect(rows.map((row) => row.name), `round ${round}: the migrations table`).toEqual(migrations);
      expect(rows.every((row) => row.finished && !row.rolledBack)).toBe(true);

      // Exactly one of them applied the migrations; the other found them applied.
      const appliedBy = processes.filter((p) => /database migrations applied/.test(p.output()));
      expect(appliedBy, `round ${round}: processes that logged applying migrations`).toHaveLength(1);
      for (const p of processes) await killServer(p);
      processes = [];
    }
  }, 180_000);
});

describe.skipIf(!clusterReady)('a process starting while another one is still migrating', () => {
  it('waits for it however long its migration takes, then comes up without applying anything again', async () => {
    // A database behind by the newest migration that changes a table already there (the last ones may only
    // create tables of their own), which will wait for a lock the test holds, as a migration waits behind a
    // long transaction during a rolling deploy.
    const database = await createTestDatabase({ empty: true });
    databases.push(database);
    const all = readMigrationsList(migrationsDirFor('postgresql'));
    const sqlOf = (index: number) => {
      const content = all.migrationDirectories[index]!.migrationFile.content;
      return content.tag === 'ok' ? content.value : '';
    };
    // A migration's first statement on a table it did not create (an index or a change of the table).
    const touchedBy = (sql: string) => {
      const created = new Set([...sql.matchAll(/CREATE TABLE "([^"]+)"/g)].map((m) => m[1]));
      return [...sql.matchAll(/(?:CREATE (?:UNIQUE )?INDEX "[^"]+" ON|ALTER TABLE) "([^"]+)"/g)].map((m) => m[1]!).find((name) => !created.has(name));
    };
    let at = all.migrationDirectories.length - 1;
    while (at > 0 && touchedBy(sqlOf(at)) === undefined) at--;
    const table = touchedBy(sqlOf(at));
    expect(table, 'a migration that creates an index on, or alters, a table it did not create').toBeDefined();
    await withEngineFor(database.url, (engine) =>
      engine.applyMigrations({ migrationsList: { ...all, migrationDirectories: all.migrationDirectories.slice(0, at) }, filters: NO_FILTERS }),
    );
    const env = clusterEnv({ DATABASE_URL: database.url, COLLAB_DATA_DIR: database.dataDir, JOB_POLL_INTERVAL_MS: '0', WEBHOOK_POLL_INTERVAL_MS: '0' });

    await withPg(database.url, async (locker) => {
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE "${table}" IN ACCESS EXCLUSIVE MODE`);
      // Observed from a session of its own: inside the locker's transaction pg_stat_activity is a snapshot.
      const waiting = (sql: string) => () =>
        withPg(database.url, async (observer) => (await observer.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND ${sql}`)).rows[0].n >= 1);
      const first = spawnServer(env);
      first.catch(() => undefined);
      await eventually(waiting(`query LIKE '%"${table}"%'`), 'the first process migrating, waiting for the table', 60_000);
      const second = spawnServer(env);
      second.catch(() => undefined);
      await eventually(waiting(`wait_event = 'advisory'`), 'the second process waiting for the migration lock', 60_000);
      // What must NOT happen: the schema engine gives up on its own migration lock after 10 s,
      // so the second process, waiting from the event above, must neither come up nor fail
      // while the table stays locked past that (12 s).
      const gaveUp = await outcomeWithin(second.then(() => 'listening', (error: Error) => error.message), 12_000, 'waiting');
      expect(gaveUp, 'the second process while the first is still migrating').toBe('waiting');
      await locker.query('ROLLBACK');
      const started = await Promise.allSettled([first, second]);
      for (const outcome of started) if (outcome.status === 'fulfilled') processes.push(outcome.value);
      expect(started.flatMap((outcome) => (outcome.status === 'rejected' ? [String(outcome.reason)] : []))).toEqual([]);
    });

    const rows = await withPg(database.url, async (client) => (await client.query<{ name: string }>('SELECT migration_name AS name FROM _prisma_migrations ORDER BY migration_name')).rows);
    expect(rows.map((row) => row.name)).toEqual(migrations);
    expect(processes.filter((p) => /database migrations applied/.test(p.output()))).toHaveLength(1);
  }, 120_000);
});
