import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../server/cli.js';
import { loadConfig } from '../../server/config.js';
import { startServer, type RunningServer } from '../../server/server.js';
import { captureLogger } from '../helpers/log-capture.js';
import { createTestDatabase } from '../helpers/database.js';
import { ROOT, codeBlocks, runScript } from '../readme/readme.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';

/**
 * `backup FILE` and `restore FILE` (server/db/backup.ts; docs/operations.md#backups)
 * on embedded SQLite: an online snapshot taken while writes are in flight,
 * restored into a new place, opened by a server with the same master key.
 */

const GUIDE = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');

/** The operator guide's one block with this info string. */
function guideBlock(info: string): string {
  const blocks = codeBlocks(GUIDE, `sh ${info}`);
  expect(blocks, info).toHaveLength(1);
  return blocks[0]!;
}

/**
 * The environment of a server on a restored database elsewhere (a new
 * machine): the backed-up server's master key, given as COLLAB_MASTER_KEY.
 */
function restoredEnv(from: TestServer, databaseUrl: string, dataDir: string): NodeJS.ProcessEnv {
  return {
    PORT: '0',
    LOG_LEVEL: 'silent',
    JOB_POLL_INTERVAL_MS: '0',
    DATABASE_URL: databaseUrl,
    COLLAB_DATA_DIR: dataDir,
    COLLAB_MASTER_KEY: readFileSync(join(from.env.COLLAB_DATA_DIR!, 'master.key'), 'utf8').trim(),
  };
}

async function organizationIds(url: string, ws: WorkspaceCredentials, ids: string[]): Promise<string[]> {
  const found: string[] = [];
  for (let i = 0; i < ids.length; i += 30) {
    const response = await fetch(`${url}/v2/organizations/get`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...appHeaders(ws) },
      body: JSON.stringify({ data: { organizationIds: ids.slice(i, i + 30) } }),
    });
    expect(response.status).toBe(200);
    found.push(...((await response.json()) as { result: { data: { organizationId: string }[] } }).result.data.map((o) => o.organizationId));
  }
  return found;
}

const postgresUrl = process.env.TEST_DATABASE_URL;
if (postgresUrl) console.log('skipping the SQLite backup tests: TEST_DATABASE_URL points the suite at PostgreSQL (they run in the SQLite run)');

describe.skipIf(postgresUrl)('backup and restore on SQLite', () => {
  let server: TestServer;
  let ws: WorkspaceCredentials;
  let dir: string;
  beforeAll(async () => {
    server = await startTestServer();
    ws = await server.workspace();
    dir = mkdtempSync(join(tmpdir(), 'collab-backup-'));
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a backup taken while writes are in flight holds every write acknowledged before it began; the restored database opens with the same master key', async () => {
    const backupDir = mkdtempSync(join(dir, 'backups-'));
    const acked: string[] = [];
    let writing = true;
    let next = 0;
    const writer = async () => {
      while (writing) {
        const id = `org-${next++}`;
        const answer = await server.post('/v2/organizations/add', { data: { organizationId: id } }, appHeaders(ws));
        expect(answer.status).toBe(200);
        acked.push(id);
      }
    };
    const writers = [writer(), writer()];
    let beforeBackup: string[];
    let backup: Awaited<ReturnType<typeof runScript>>;
    let duringBackup: number;
    try {
      while (acked.length < 40) await new Promise((resolve) => setTimeout(resolve, 10));
      beforeBackup = [...acked];
      backup = await runScript(guideBlock('sqlite-backup-test'), { ...server.env, BACKUP_DIR: backupDir });
      duringBackup = acked.length - beforeBackup.length;
    } finally {
      writing = false;
      await Promise.all(writers);
    }
    expect(backup.stderr).toBe('');
    expect(backup.code).toBe(0);
    const answer = JSON.parse(backup.stdout);
    const file: string = answer.file;
    expect(answer).toMatchObject({ provider: 'sqlite', file: expect.stringMatching(/collab-\d{4}-\d\d-\d\d\.db$/), bytes: expect.any(Number), takenAt: expect.any(String) });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Writes went on while the snapshot was taken: the servers keep serving.
    expect(duringBackup).toBeGreaterThan(0);

    // Restored into a new place, as on a new machine that has the master key.
    const restoredDir = mkdtempSync(join(dir, 'restored-'));
    const env = restoredEnv(server, `file:${join(restoredDir, 'collab.db')}`, restoredDir);
    const restore = await runScript(guideBlock('sqlite-restore-test'), { ...env, BACKUP_DIR: backupDir });
    expect(restore.stderr).toBe('');
    expect(restore.code).toBe(0);
    expect(JSON.parse(restore.stdout)).toMatchObject({ provider: 'sqlite', restoredFrom: file, previous: null, pendingMigrations: [] });
    const status = await runCli(['db', 'status'], env);
    expect(JSON.parse(status.stdout)).toMatchObject({ upToDate: true });

    let restored: RunningServer | undefined;
    try {
      restored = await startServer(loadConfig(env), { logger: captureLogger() });
      expect((await fetch(`${restored.url}/readyz`)).status).toBe(200);
      // Every write acknowledged before the backup began, with the same credentials.
      expect((await organizationIds(restored.url, ws, beforeBackup)).sort()).toEqual([...beforeBackup].sort());
      // Sealed secrets open: Get Auth Tokens answers the application's tokens in clear.
      const tokens = await fetch(`${restored.url}/v2/workspace/authtokens/get`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-workspace-id': ws.workspaceId, 'x-service-workspace-auth-token': ws.workspaceAuthToken },
        body: JSON.stringify({ data: { apiKey: ws.apiKey } }),
      });
      expect(tokens.status).toBe(200);
      expect(JSON.stringify(await tokens.json())).toContain(ws.authToken);
    } finally {
      await restored?.close();
    }
  });

  it('restore refuses, changing nothing, a file the master key cannot open, a file that is not a backup, and a database in use', async () => {
    const file = join(dir, 'second.db');
    expect((await runCli(['backup', file], server.env)).code).toBe(0);

    const restoredDir = mkdtempSync(join(dir, 'refused-'));
    const env = { DATABASE_URL: `file:${join(restoredDir, 'collab.db')}`, COLLAB_DATA_DIR: restoredDir };
    const otherKey = { ...env, COLLAB_MASTER_KEY: Buffer.alloc(32, 7).toString('base64') };
    const wrongKey = await runCli(['restore', file], otherKey);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toMatch(/^error: FAILED_PRECONDITION: .*second\.db cannot be opened with this master key: it was sealed with another master key; set COLLAB_MASTER_KEY to the key of the database the backup was taken from\n$/);
    // No key at all: refused the same way, and no key file is made up.
    expect((await runCli(['restore', file], env)).stderr).toMatch(/COLLAB_MASTER_KEY is not set and .*master\.key does not exist/);

    const garbage = join(dir, 'garbage.db');
    writeFileSync(garbage, 'not a database at all, just text');
    expect((await runCli(['restore', garbage], otherKey)).stderr).toMatch(/^error: INVALID_ARGUMENT: .*garbage\.db is not a SQLite database/);
    expect((await runCli(['restore', join(dir, 'missing.db')], otherKey)).stderr).toMatch(/missing\.db does not exist/);

    // The running test server has its database open.
    const inUse = await runCli(['restore', file], server.env);
    expect(inUse.code).toBe(1);
    expect(inUse.stderr).toMatch(/is in use \(a server or CLI has it open\): stop every server first/);
    expect((await server.post('/v2/organizations/get', { data: {} }, appHeaders(ws))).status).toBe(200);
  });

  it('backup never replaces a file, and both commands take exactly one FILE', async () => {
    const file = join(dir, 'once.db');
    expect((await runCli(['backup', file], server.env)).code).toBe(0);
    const again = await runCli(['backup', file], server.env);
    expect([again.code, again.stderr]).toEqual([1, `error: INVALID_ARGUMENT: ${file} exists: backup writes a new file and never replaces one\n`]);
    for (const args of [['backup'], ['restore'], ['backup', 'a', 'b'], ['restore', '--file', 'x']]) {
      const usage = await runCli(args, server.env);
      expect([usage.code, usage.stderr]).toEqual([2, `error: usage: ${args[0]} FILE\n`]);
    }
  });
});

describe('backup and restore commands on PostgreSQL', () => {
  it('name the pg_dump and pg_restore commands of the operator guide instead of running them', async () => {
    const env = { DATABASE_URL: 'postgresql://collab@db.internal:5432/collab', COLLAB_DATA_DIR: tmpdir() };
    const backup = await runCli(['backup', 'collab.dump'], env);
    expect(backup.code).toBe(1);
    expect(backup.stderr).toContain('pg_dump --format=custom --no-owner --file=collab.dump "$DATABASE_URL"');
    const restore = await runCli(['restore', 'collab.dump'], env);
    expect(restore.code).toBe(1);
    expect(restore.stderr).toContain('pg_restore --clean --if-exists --no-owner --single-transaction --dbname="$DATABASE_URL" collab.dump');
  });
});

if (!postgresUrl) console.log('skipping the pg_dump/pg_restore commands of the operator guide: TEST_DATABASE_URL is not set');

describe.skipIf(!postgresUrl)("the operator guide's pg_dump and pg_restore commands", () => {
  it('restore into a new database everything written before the dump, which a server with the same master key then serves', async () => {
    const server = await startTestServer();
    const target = await createTestDatabase({ empty: true });
    const dir = mkdtempSync(join(tmpdir(), 'collab-pgdump-'));
    let restored: RunningServer | undefined;
    try {
      const ws = await server.workspace();
      const ids = Array.from({ length: 12 }, (_, i) => `org-dumped-${i}`);
      for (const organizationId of ids) expect((await server.post('/v2/organizations/add', { data: { organizationId } }, appHeaders(ws))).status).toBe(200);

      // Dumped while the server runs; restored into an empty database.
      const dump = await runScript(guideBlock('pg-backup-test'), { DATABASE_URL: server.env.DATABASE_URL }, dir);
      expect([dump.code, dump.stderr]).toEqual([0, '']);
      const restore = await runScript(guideBlock('pg-restore-test'), { DATABASE_URL: target.url }, dir);
      expect([restore.code, restore.stderr]).toEqual([0, '']);

      const env = restoredEnv(server, target.url, target.dataDir);
      expect(JSON.parse((await runCli(['db', 'status'], env)).stdout)).toMatchObject({ upToDate: true });
      restored = await startServer(loadConfig(env), { logger: captureLogger() });
      expect((await fetch(`${restored.url}/readyz`)).status).toBe(200);
      expect((await organizationIds(restored.url, ws, ids)).sort()).toEqual([...ids].sort());
    } finally {
      await restored?.close();
      await server.close();
      await target.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
