import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driverFor, providerOf, sqlitePath } from '../../server/db/adapter.js';
import type { Db } from '../../server/db/client.js';
import { PrismaClient as SqliteClient } from '../../server/db/generated/sqlite/client.js';
import { PrismaClient as PostgresClient } from '../../server/db/generated/postgresql/client.js';
import { applyMigrations } from '../../server/db/migrate.js';
import { createDocumentsRepo } from '../../server/domains/access/repos/documents.js';
import { createGrantsRepo } from '../../server/domains/access/repos/grants.js';
import { createOrganizationsRepo } from '../../server/domains/access/repos/organizations.js';
import { createActivitiesRepo } from '../../server/domains/activities/repo.js';
import { createRecordingsRepo } from '../../server/domains/recordings/repo.js';
import type { Cursor } from '../../server/lib/page-token.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { systemClock } from '../../server/lib/clock.js';

// A keyset page must be one ordered index range read from the cursor on: a
// plan that sorts (SQLite's "USE TEMP B-TREE FOR ORDER BY", a PostgreSQL Sort
// node) reads every row of the list on every page, so a page deep in a large
// list costs as much as the whole list (Get Users did this: its members had
// no index in (createdAt, principalId) order). The SQL is the ORM's own,
// captured as it runs a deep page (a cursor given), then explained.

let database: TestDatabase;
let client: { $on(event: 'query', listener: (e: { query: string }) => void): void; $disconnect(): Promise<void> };
let db: Db;
let captured: string[] = [];
let pgClient: pg.Client | undefined;
let sqlite: Sqlite.Database | undefined;

beforeAll(async () => {
  database = await createTestDatabase();
  await applyMigrations(database.url);
  const adapter = (await driverFor(database.url)).factory;
  const log = [{ emit: 'event' as const, level: 'query' as const }];
  const made = providerOf(database.url) === 'sqlite' ? new SqliteClient({ adapter, log }) : new PostgresClient({ adapter, log });
  client = made as unknown as typeof client;
  db = made as unknown as Db;
  client.$on('query', (e) => captured.push(e.query));
  if (providerOf(database.url) === 'sqlite') sqlite = new Sqlite(sqlitePath(database.url), { readonly: true });
  else {
    pgClient = new pg.Client({ connectionString: database.url });
    await pgClient.connect();
  }
});

afterAll(async () => {
  sqlite?.close();
  await pgClient?.end();
  await client?.$disconnect();
  await database?.drop();
});

/** The plan of `sql` (the ORM's text, with its placeholders) as lines. Parameter values do not matter: the plans are generic. */
async function plan(sql: string): Promise<string[]> {
  if (sqlite) {
    const statement = sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`);
    const count = (sql.match(/\?/g) ?? []).length;
    return (statement.all(...Array.from({ length: count }, () => null)) as { detail: string }[]).map((row) => row.detail);
  }
  // A generic plan, so the (unknown) values cannot steer it; sorting is priced out, so any Sort left is one no index could avoid.
  const client = pgClient!;
  await client.query('SET plan_cache_mode = force_generic_plan');
  await client.query('SET enable_sort = off');
  await client.query(`PREPARE paged AS ${sql}`);
  try {
    const count = new Set(sql.match(/\$\d+/g) ?? []).size;
    const result = await client.query(`EXPLAIN EXECUTE paged(${Array.from({ length: count }, () => 'NULL').join(', ')})`);
    return result.rows.map((row: Record<string, string>) => row['QUERY PLAN']!);
  } finally {
    await client.query('DEALLOCATE paged');
  }
}

/** Runs `page` and returns the plan of the one SELECT on `table` it issued. */
async function planOfPage(table: string, page: () => Promise<unknown>): Promise<string[]> {
  captured = [];
  await page();
  // SQLite's SQL quotes with backticks (`main`.`Grant`), PostgreSQL's with double quotes.
  const selects = captured.filter((sql) => /^\s*SELECT/i.test(sql) && new RegExp(`[\`"]${table}[\`"]\\s+WHERE`).test(sql));
  expect(selects, `one SELECT on ${table}`).toHaveLength(1);
  return plan(selects[0]!);
}

function expectIndexOrder(lines: string[]): void {
  const text = lines.join('\n');
  expect(text).not.toMatch(/TEMP B-TREE|Sort|Seq Scan|SCAN /);
  expect(text).toMatch(/INDEX|Index/);
}

const cursor: Cursor = { at: Date.UTC(2026, 0, 1), id: 'x' };

describe('a deep keyset page is an ordered index range', () => {
  it('Get Users (members of an organization, folder or document)', async () => {
    const repo = createGrantsRepo(db, systemClock);
    for (const resource of [{ type: 'organization', id: 'org' }, { type: 'document', id: 'doc' }] as const) {
      expectIndexOrder(await planOfPage('Grant', () => repo.membersOf('app', 'org', resource, { after: cursor, take: 11, nowSeconds: 0 })));
    }
  });

  it('Get Documents (all, and those of a folder)', async () => {
    const repo = createDocumentsRepo(db, systemClock);
    expectIndexOrder(await planOfPage('Document', () => repo.listDocuments('app', 'org', { after: cursor, take: 11 })));
    expectIndexOrder(await planOfPage('Document', () => repo.listDocuments('app', 'org', { folderId: 'f', after: cursor, take: 11 })));
  });

  it('Get Organizations', async () => {
    expectIndexOrder(await planOfPage('Organization', () => createOrganizationsRepo(db, systemClock).listOrganizations('app', { after: cursor, take: 11 })));
  });

  it('Get Activity Logs, both orders', async () => {
    const repo = createActivitiesRepo(db);
    for (const order of ['asc', 'desc'] as const) {
      expectIndexOrder(await planOfPage('Activity', () => repo.list('app', { organizationId: 'org' }, order, cursor, 11)));
      expectIndexOrder(await planOfPage('Activity', () => repo.list('app', { organizationId: 'org', documentId: 'doc' }, order, cursor, 11)));
    }
  });

  it('Get Recordings', async () => {
    const repo = createRecordingsRepo(db);
    expectIndexOrder(await planOfPage('Recording', () => repo.list('app', { organizationId: 'org', after: cursor, take: 11 })));
    expectIndexOrder(await planOfPage('Recording', () => repo.list('app', { organizationId: 'org', documentId: 'doc', after: cursor, take: 11 })));
  });
});
