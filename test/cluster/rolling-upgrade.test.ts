// A rolling upgrade across a migration: while the processes are replaced one
// at a time, the previous version keeps serving on the schema the new one
// migrated (docs/operations.md "Upgrades": migrations are forward-only and
// additive within a minor version). Two parts:
//
// 1. The previous version's own code, from git history
//    (test/helpers/previous-version.ts says which commit and why), started as
//    `node --import tsx server/main.ts` from a temporary checkout on a
//    database this version migrated to its newest migration. It must start
//    without migrating anything. Where CHANGELOG.md promises a rolling
//    upgrade across the migrations it lacks, it then serves beside this
//    version on the same database, each reading what the other wrote: at
//    once on PostgreSQL (two processes, Redis when TEST_REDIS_URL is set),
//    one after the other on SQLite, which serves one process. Where the
//    CHANGELOG asks to stop every process, that part is skipped with the
//    reason printed: a rolling upgrade is not promised there.
// 2. This version as the previous one of the next release: on a schema
//    with one more migration that only adds (a nullable column and a column
//    with a default on every table, an index on each, a new table), it
//    starts, serves, and its writes keep the values the next release wrote
//    into the columns it does not know. That part needs no history.
//
// On the database the run uses (TEST_DATABASE_URL or SQLite), like the other
// cluster files; it runs in the full SQLite run and in the PostgreSQL tier.
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../server/cli.js';
import { loadConfig } from '../../server/config.js';
import { providerOf } from '../../server/db/adapter.js';
import { NO_FILTERS, withEngineFor } from '../../server/db/migration-engine.js';
import { migrationsDirFor, readMigrationsList } from '../../server/db/migrations-folder.js';
import { startServer, type RunningServer } from '../../server/server.js';
import { stopEveryProcessSections } from '../helpers/changelog.js';
import { createTestDatabase, usingPostgres, type TestDatabase } from '../helpers/database.js';
import { captureLogger, recordSecretsIn } from '../helpers/log-capture.js';
import { checkOut, previousCommit, type Checkout } from '../helpers/previous-version.js';
import { runStatements } from '../helpers/raw-sql.js';
import { comparable, describeSchema, readRows, type Row, type Schema, type Table } from '../helpers/schema-fill.js';
import { killServer, spawnServer, type ServerProcess } from '../helpers/server-process.js';
import type { WorkspaceCredentials } from '../helpers/server.js';
import { redisUrl } from './cluster.js';

const FILE = 'test/cluster/rolling-upgrade.test.ts';
const previous = previousCommit();
const noPrevious = 'skip' in previous ? previous.skip : undefined;
const stopSections = 'skip' in previous ? [] : stopEveryProcessSections(previous.newer);
const notPromised =
  'skip' in previous || stopSections.length === 0
    ? undefined
    : `CHANGELOG.md asks to stop every process before upgrading to ${stopSections.map((s) => `"${s.heading}"`).join(', ')}, which ships ${previous.newer.filter((name) => stopSections.some((s) => s.migrations.includes(name))).join(', ')}: no rolling upgrade across it is promised`;
if ('skip' in previous) console.log(`${FILE}: skipping the previous version's part: ${previous.skip}`);
else {
  console.log(`${FILE}: previous version ${previous.commit.slice(0, 12)}, ${previous.how}; it lacks ${previous.newer.join(', ') || 'no migration'}`);
  if (notPromised) console.log(`${FILE}: skipping the previous version's operations beside this version: ${notPromised}`);
}

const processes: ServerProcess[] = [];
const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const p of processes) await killServer(p);
  for (const d of databases) await d.drop();
});

/** What every process of the deployment is started with: the same database, master key and (on PostgreSQL) Redis. */
function deploymentEnv(database: TestDatabase): NodeJS.ProcessEnv {
  return {
    DATABASE_URL: database.url,
    COLLAB_DATA_DIR: database.dataDir,
    COLLAB_MASTER_KEY: randomBytes(32).toString('hex'),
    // Background work stays out of the way: the test is about requests.
    JOB_POLL_INTERVAL_MS: '0',
    WEBHOOK_POLL_INTERVAL_MS: '0',
    ...(usingPostgres && redisUrl ? { REDIS_URL: redisUrl } : {}),
  };
}

/** A workspace made by this version's operator CLI (which, like a start, first migrates: here a no-op). */
async function createWorkspace(env: NodeJS.ProcessEnv): Promise<WorkspaceCredentials> {
  const result = await runCli(['workspace', 'create', '--owner-email', `upgrade${process.pid}-${Date.now()}@example.com`], { ...process.env, ...env });
  if (result.code !== 0) throw new Error(`workspace create failed: ${result.stderr}`);
  recordSecretsIn(result.stdout);
  return JSON.parse(result.stdout) as WorkspaceCredentials;
}

/** One operation; its `data` when it succeeded, else a failure naming the answer. */
async function call(url: string, credentials: WorkspaceCredentials, path: string, data: unknown): Promise<any> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-api-key': credentials.apiKey, 'x-service-auth-token': credentials.authToken },
    body: JSON.stringify({ data }),
  });
  const text = await response.text();
  recordSecretsIn(text);
  if (response.status !== 200) throw new Error(`${path} on ${url}: HTTP ${response.status} ${text.slice(0, 500)}`);
  return (JSON.parse(text) as { result: { data?: unknown } }).result.data;
}

async function probe(url: string, path: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${url}${path}`);
  return { status: response.status, body: await response.text() };
}

/** Organization IDs and names as Get Organizations lists them. */
async function organizations(url: string, credentials: WorkspaceCredentials): Promise<Record<string, string>> {
  const list = (await call(url, credentials, '/v2/organizations/get', {})) as { organizationId: string; organizationName: string }[];
  return Object.fromEntries(list.map((o) => [o.organizationId, o.organizationName]));
}

/** Each user's role at the organization and on each document, as Get Permissions answers. */
async function roles(url: string, credentials: WorkspaceCredentials, organizationId: string, userIds: string[], documentIds: string[] = []): Promise<Record<string, unknown>> {
  const data = (await call(url, credentials, '/v2/auth/permissions/get', { organizationId, userIds, documentIds })) as Record<string, any>;
  return Object.fromEntries(
    userIds.map((id) => [
      id,
      {
        organization: data[id].organization[organizationId].accessRole ?? data[id].organization[organizationId].errorCode,
        ...Object.fromEntries(documentIds.map((doc) => [doc, data[id].documents[doc].accessRole ?? data[id].documents[doc].errorCode])),
      },
    ]),
  );
}

async function stop(p: ServerProcess): Promise<void> {
  p.child.kill('SIGTERM');
  expect(await p.exited, p.output().slice(-2000)).toEqual({ code: 0, signal: null });
}

describe.skipIf(noPrevious !== undefined)('the previous version on the newest schema', () => {
  let checkout: Checkout | undefined;
  let cannotRun: string | undefined;
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;
  let credentials: WorkspaceCredentials;
  let old: ServerProcess | undefined;

  beforeAll(async () => {
    if ('skip' in previous) return;
    const started = Date.now();
    const made = checkOut(previous.commit);
    if ('skip' in made) {
      cannotRun = made.skip;
      console.log(`${FILE}: skipping the previous version's part: ${cannotRun}`);
      return;
    }
    checkout = made;
    console.log(`${FILE}: checkout and Prisma clients of ${previous.commit.slice(0, 12)} in ${Date.now() - started} ms`);
    // A copy of the run's template: every migration applied by this version's runner.
    database = await createTestDatabase();
    databases.push(database);
    env = deploymentEnv(database);
    credentials = await createWorkspace(env);
  }, 180_000);
  afterAll(async () => {
    // Its processes end before its files go.
    for (const p of processes) await killServer(p);
    checkout?.remove();
  });

  it('starts on a database this version migrated, and changes nothing in its schema or migration history', async (ctx) => {
    if (!checkout) ctx.skip(cannotRun);
    const history = await readRows(database.url, ['_prisma_migrations']);
    const schema = await describeSchema(database.url);
    old = await spawnServer(env, checkout!.root);
    processes.push(old);
    expect((await probe(old.url, '/healthz')).status).toBe(200);
    // Ready: every migration it knows is applied; the newer ones do not make it unready.
    const ready = await probe(old.url, '/readyz');
    expect(ready.status, ready.body).toBe(200);
    expect(old.output()).not.toMatch(/database migrations applied/);
    expect(await readRows(database.url, ['_prisma_migrations'])).toEqual(history);
    expect(await describeSchema(database.url)).toEqual(schema);
  }, 120_000);

  it.skipIf(notPromised !== undefined)('serves beside this version on the same database, each reading what the other wrote', async (ctx) => {
    if (!checkout || !old) ctx.skip(cannotRun ?? 'the previous version did not start');
    const running = new Map<'previous' | 'current', ServerProcess>([['previous', old!]]);
    /** The URL of a process of that version: both run at once on PostgreSQL; SQLite serves one process, so the other stops first. */
    const on = async (version: 'previous' | 'current'): Promise<string> => {
      const up = running.get(version);
      if (up) return up.url;
      if (!usingPostgres) {
        for (const [other, p] of running) {
          await stop(p);
          running.delete(other);
        }
      }
      const p = await spawnServer(env, version === 'previous' ? checkout!.root : undefined);
      processes.push(p);
      running.set(version, p);
      return p.url;
    };

    // The previous version writes: an organization, members, a document with its own member.
    await call(await on('previous'), credentials, '/v2/organizations/add', { organizationId: 'org-previous', organizationName: 'Written by the previous version' });
    await call(await on('previous'), credentials, '/v2/users/add', {
      organizationId: 'org-previous',
      users: [
        { userId: 'user-ada', name: 'Ada Lovelace', email: 'ada@example.com' },
        { userId: 'user-grace', name: 'Grace Hopper', accessRole: 'viewer' },
      ],
    });
    await call(await on('previous'), credentials, '/v2/users/add', { organizationId: 'org-previous', documentId: 'doc-previous', createDocument: true, users: [{ userId: 'user-grace', accessRole: 'editor' }] });

    // This version reads it and writes its own.
    expect(await organizations(await on('current'), credentials)).toEqual({ 'org-previous': 'Written by the previous version' });
    expect(await roles(await on('current'), credentials, 'org-previous', ['user-ada', 'user-grace'], ['doc-previous'])).toEqual({
      'user-ada': { organization: 'editor', 'doc-previous': 'editor' },
      'user-grace': { organization: 'viewer', 'doc-previous': 'editor' },
    });
    await call(await on('current'), credentials, '/v2/organizations/add', { organizationId: 'org-current', organizationName: 'Written by this version' });
    await call(await on('current'), credentials, '/v2/users/add', { organizationId: 'org-current', users: [{ userId: 'user-grace' }, { userId: 'user-linus', accessRole: 'viewer' }] });

    // The previous version reads that and changes a row this version wrote.
    expect(await roles(await on('previous'), credentials, 'org-current', ['user-grace', 'user-linus'])).toEqual({
      'user-grace': { organization: 'editor' },
      'user-linus': { organization: 'viewer' },
    });
    await call(await on('previous'), credentials, '/v2/organizations/update', { organizationId: 'org-current', organizationName: 'Renamed by the previous version' });
    expect(await organizations(await on('previous'), credentials)).toEqual({ 'org-previous': 'Written by the previous version', 'org-current': 'Renamed by the previous version' });

    // And this version sees the change.
    expect(await organizations(await on('current'), credentials)).toEqual({ 'org-previous': 'Written by the previous version', 'org-current': 'Renamed by the previous version' });
  }, 120_000);
});

// ---------------------------------------------------------------------------

const NOTE = 'written by the next release';
const NEXT_MIGRATION = '99991231235959_next_release_adds';

/**
 * The next release's migration as `prisma migrate` would write one that only
 * adds: on every table a nullable column and a NOT NULL column with a
 * default, an index on the new column, and a new table.
 */
function nextReleaseMigration(schema: Schema, provider: 'sqlite' | 'postgresql'): string {
  const statements = [...schema.keys()].flatMap((table) => [
    `ALTER TABLE "${table}" ADD COLUMN "nextReleaseNote" TEXT;`,
    `ALTER TABLE "${table}" ADD COLUMN "nextReleaseCount" INTEGER NOT NULL DEFAULT 7;`,
    `CREATE INDEX "${table}_nextReleaseNote_idx" ON "${table}"("nextReleaseNote");`,
  ]);
  statements.push(
    provider === 'sqlite'
      ? `CREATE TABLE "NextReleaseThing" ("id" TEXT NOT NULL PRIMARY KEY, "apiKeyId" TEXT NOT NULL, "value" TEXT);`
      : `CREATE TABLE "NextReleaseThing" ("id" TEXT NOT NULL, "apiKeyId" TEXT NOT NULL, "value" TEXT, CONSTRAINT "NextReleaseThing_pkey" PRIMARY KEY ("id"));`,
  );
  return `${statements.join('\n')}\n`;
}

/** Applies the next release's migration the way its processes would: our migrations plus it, through the same engine call. */
async function applyNextRelease(url: string, sql: string): Promise<void> {
  const provider = providerOf(url);
  const dir = mkdtempSync(join(tmpdir(), 'collab-next-release-'));
  try {
    cpSync(migrationsDirFor(provider), dir, { recursive: true });
    mkdirSync(join(dir, NEXT_MIGRATION));
    writeFileSync(join(dir, NEXT_MIGRATION, 'migration.sql'), sql);
    const migrationsList = readMigrationsList(dir);
    const { appliedMigrationNames } = await withEngineFor(url, (engine) => engine.applyMigrations({ migrationsList, filters: NO_FILTERS }));
    expect(appliedMigrationNames).toEqual([NEXT_MIGRATION]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What the next release's processes write: its column, in every row of every table. */
async function setEverywhere(url: string, tables: string[]): Promise<void> {
  await runStatements(url, tables.map((table) => `UPDATE "${table}" SET "nextReleaseNote" = '${NOTE}'`));
}

/** The primary key of a row, as one comparable string. */
function keyOf(table: Table, row: Row): string {
  return JSON.stringify(table.primaryKey.map((column) => comparable(row[column])));
}

describe('this version as the previous one of a next release that only adds', () => {
  let server: RunningServer | undefined;
  afterAll(async () => {
    await server?.close();
  });

  it('starts on its schema, serves, and keeps what the next release wrote in the columns it does not know', async () => {
    const database = await createTestDatabase();
    databases.push(database);
    const env = deploymentEnv(database);
    const schema = await describeSchema(database.url);
    await applyNextRelease(database.url, nextReleaseMigration(schema, providerOf(database.url)));

    // The CLI and the server both start on it: nothing to apply, nothing refused.
    const credentials = await createWorkspace(env);
    server = await startServer(loadConfig({ ...process.env, ...env, PORT: '0', LOG_LEVEL: 'silent' }), { logger: captureLogger() });
    const url = server.url;
    const ready = await probe(url, '/readyz');
    expect(ready.status, ready.body).toBe(200);

    await call(url, credentials, '/v2/organizations/add', { organizationId: 'org-1', organizationName: 'One' });
    await call(url, credentials, '/v2/organizations/folders/add', { organizationId: 'org-1', folderId: 'folder-1', folderName: 'Folder' });
    await call(url, credentials, '/v2/users/add', { organizationId: 'org-1', users: [{ userId: 'user-ada', name: 'Ada' }, { userId: 'user-grace', accessRole: 'viewer' }] });
    await call(url, credentials, '/v2/users/add', { organizationId: 'org-1', documentId: 'doc-1', createDocument: true, users: [{ userId: 'user-grace', accessRole: 'editor' }] });
    await call(url, credentials, '/v2/auth/permissions/add', {
      user: { userId: 'user-ada' },
      permissions: { resources: [{ type: 'document', id: 'doc-1', organizationId: 'org-1', accessRole: 'viewer', context: { accessFields: ['section:intro'] } }] },
    });
    await call(url, credentials, '/v2/organizations/usergroups/add', { organizationId: 'org-1', organizationUserGroupId: 'group-1', name: 'Group' });
    await call(url, credentials, '/v2/organizations/usergroups/users/add', { organizationId: 'org-1', organizationUserGroupId: 'group-1', userIds: ['user-ada'] });

    // The next release's processes fill its column in every row there is.
    const tables = [...(await describeSchema(database.url)).values()].filter((table) => table.columns.some((c) => c.name === 'nextReleaseNote'));
    const before = await readRows(database.url, tables.map((t) => t.name));
    await setEverywhere(database.url, tables.map((t) => t.name));
    const written = new Map(tables.map((table) => [table.name, new Set(before.get(table.name)!.map((row) => keyOf(table, row)))]));

    // This version changes those rows and adds new ones.
    await call(url, credentials, '/v2/organizations/update', { organizationId: 'org-1', organizationName: 'One, renamed' });
    await call(url, credentials, '/v2/users/update', { organizationId: 'org-1', users: [{ userId: 'user-ada', name: 'Ada Lovelace', accessRole: 'viewer' }] });
    await call(url, credentials, '/v2/users/add', { organizationId: 'org-1', users: [{ userId: 'user-grace', name: 'Grace Hopper', accessRole: 'editor' }] });
    await call(url, credentials, '/v2/auth/permissions/add', {
      user: { userId: 'user-ada' },
      permissions: { resources: [{ type: 'document', id: 'doc-1', organizationId: 'org-1', accessRole: 'editor', context: { accessFields: ['section:body'] } }] },
    });
    await call(url, credentials, '/v2/users/add', { organizationId: 'org-2', users: [{ userId: 'user-linus' }] });
    expect(await roles(url, credentials, 'org-1', ['user-ada', 'user-grace'], ['doc-1'])).toEqual({
      'user-ada': { organization: 'viewer', 'doc-1': 'editor' },
      'user-grace': { organization: 'editor', 'doc-1': 'editor' },
    });
    expect(await organizations(url, credentials)).toEqual({ 'org-1': 'One, renamed', 'org-2': 'org-2' });

    // Every row the next release had written to still holds its value; the rows this version added got the defaults.
    const after = await readRows(database.url, tables.map((t) => t.name));
    const lost: string[] = [];
    const added: string[] = [];
    for (const table of tables) {
      for (const row of after.get(table.name)!) {
        const key = keyOf(table, row);
        if (written.get(table.name)!.has(key)) {
          if (row.nextReleaseNote !== NOTE) lost.push(`${table.name} ${key}`);
        } else {
          added.push(table.name);
          expect({ table: table.name, note: row.nextReleaseNote, count: comparable(row.nextReleaseCount) }).toEqual({ table: table.name, note: null, count: '7' });
        }
      }
    }
    expect(lost, 'rows whose next-release value this version dropped').toEqual([]);
    expect(added.length, 'rows this version added after the next release wrote').toBeGreaterThan(0);
  }, 120_000);
});
