// A write that adds content to a document holds the document row
// (holdDocuments, FOR SHARE on PostgreSQL) until it commits. A migration of
// the document, which updates that row first, must wait for the write and
// then move its rows too; without the hold, the write's rows committed after
// the migration's statements ran and stayed under the old ID, owned by no
// document. SQLite's gate runs one transaction at a time: nothing to race.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDocumentsRepo } from '../../server/domains/access/repos/documents.js';
import { usingPostgres } from '../helpers/database.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { systemClock } from '../../server/lib/clock.js';

if (!usingPostgres) console.log('document-hold: TEST_DATABASE_URL is not set: the PostgreSQL race test is skipped (SQLite runs transactions one at a time)');

let server: TestServer;
beforeAll(async () => {
  if (usingPostgres) server = await startTestServer();
});
afterAll(() => server?.close());

it.skipIf(!usingPostgres)('a migration waits for a write that holds the document, then moves what it wrote', async () => {
  const ws = await server.workspace();
  const client = server.client(ws);
  await client.organizations.addDocument({ organizationId: 'hold-org', documentId: 'old' });
  const { db, uow } = server.running.database;
  const { owned } = server.running.services;
  const documents = createDocumentsRepo(db, systemClock);
  const apiKeyId = (await db.document.findFirstOrThrow({ where: { organizationId: 'hold-org', id: 'old' } })).apiKeyId;

  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let holding!: () => void;
  const held = new Promise<void>((resolve) => (holding = resolve));
  const write = uow.run(async () => {
    expect(await documents.holdDocuments(apiKeyId, 'hold-org', ['old'])).toEqual(new Set(['old']));
    holding();
    await released;
    // Content of the document, written after the migration started.
    await db.domainEvent.create({
      data: { id: 'evt_held', apiKeyId, type: 'activity.add', organizationId: 'hold-org', documentId: 'old', actorUserId: null, body: '{}', occurredAt: 1n },
    });
  });
  await held;
  const migration = uow.run(() => owned.moveDocument({ apiKeyId, organizationId: 'hold-org', documentId: 'old' }, 'new'));
  // The migration must be waiting on the held row before the write goes on.
  await expect
    .poll(async () => {
      const rows = await db.$queryRawUnsafe<{ n: bigint }[]>(
        `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      return Number(rows[0]!.n);
    }, { timeout: 10_000 })
    .toBeGreaterThan(0);
  release();
  await Promise.all([write, migration]);
  expect(await db.domainEvent.findMany({ where: { apiKeyId, id: 'evt_held' }, select: { documentId: true } })).toEqual([{ documentId: 'new' }]);
  expect(await db.document.findMany({ where: { apiKeyId, organizationId: 'hold-org' }, select: { id: true } })).toEqual([{ id: 'new' }]);
});
