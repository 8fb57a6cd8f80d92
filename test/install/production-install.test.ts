import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordSecretsIn } from '../helpers/log-capture.js';
import { ROOT, codeBlocks, runScript } from '../readme/readme.js';

/**
 * The production install of docs/operations.md: its tested block (the
 * package built from this checkout, then `npm ci --omit=dev` in it) run as
 * written, then the package started with `npm start` on a new SQLite
 * database, `/readyz`, and the quick start's first operations with the
 * credentials its CLI prints. No PostgreSQL in it: it runs in the SQLite run
 * only.
 */

const GUIDE = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');
const MANIFEST = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
const REPO_LOCK = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { dev?: boolean; devOptional?: boolean }>;
};
// Cold, the compile of better-sqlite3 alone takes minutes on a loaded machine.
const INSTALL_TIMEOUT = 600_000;

/**
 * npm compiles better-sqlite3 with the `cc` and `c++` that PATH finds first.
 * Through ccache, the compile is a cache hit when the same version was built
 * before (.ci/run's rebuild of the checkout's copy, or an earlier run of this
 * test): the whole install then takes 15 s instead of 2.5 min on a 2-core
 * machine. Without ccache it compiles, only slower.
 */
const ccachePath = existsSync('/usr/lib/ccache') ? '/usr/lib/ccache:' : '';

const postgresUrl = process.env.TEST_DATABASE_URL;
if (postgresUrl) console.log('skipping the production install test: TEST_DATABASE_URL points the suite at PostgreSQL (it runs in the SQLite run)');

describe.skipIf(postgresUrl)('the production install (docs/operations.md#production-install)', () => {
  let temp: string;
  let pkg: string;
  let install: { code: number | null; stdout: string; stderr: string };
  let npmStart: ChildProcess | undefined;
  let output = '';
  let url: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    temp = mkdtempSync(join(tmpdir(), 'collab-production-'));
    pkg = join(temp, 'collab-backend');
    const blocks = codeBlocks(GUIDE, 'sh production-install-test');
    expect(blocks).toHaveLength(1);
    const started = performance.now();
    install = await runScript(blocks[0]!, {
      PACKAGE_DIR: pkg,
      // npm's cache answers without asking the registry whether a locked version is current (.ci/run's npm ci does the same).
      npm_config_prefer_offline: 'true',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      PATH: `${ccachePath}${process.env.PATH}`,
    });
    expect(install.code, `the guide's block failed (exit ${install.code})\n--- stdout\n${install.stdout}\n--- stderr\n${install.stderr}`).toBe(0);
    const seconds = Math.round((performance.now() - started) / 1000);
    const megabytes = async (dir: string) => (await promisify(execFile)('du', ['-sm', dir])).stdout.split('\t')[0];
    console.log(`production install: package and npm ci in ${seconds} s; node_modules ${await megabytes(join(pkg, 'node_modules'))} MB, the whole directory ${await megabytes(pkg)} MB`);

    const data = join(temp, 'data');
    mkdirSync(data);
    env = { ...process.env, PORT: '0', LOG_LEVEL: 'info', DATABASE_URL: `file:${join(data, 'collab.db')}`, COLLAB_DATA_DIR: data };
    npmStart = spawn('npm', ['start'], { cwd: pkg, env, stdio: ['ignore', 'pipe', 'pipe'] });
    // Its log joins the suite's scan for leaked credentials, as the other server processes' do.
    const logDir = process.env.COLLAB_TEST_LOG_DIR;
    const keep = (chunk: Buffer) => {
      output += chunk.toString();
      if (logDir) appendFileSync(join(logDir, `server-child-${npmStart!.pid}.log`), chunk);
    };
    npmStart.stdout!.on('data', keep);
    npmStart.stderr!.on('data', keep);
    url = await new Promise<string>((resolve, reject) => {
      npmStart!.stdout!.on('data', () => {
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (match) resolve(match[1]!);
      });
      npmStart!.once('exit', (code) => reject(new Error(`npm start exited (${code}) before listening:\n${output}`)));
    });
  }, INSTALL_TIMEOUT);

  afterAll(async () => {
    if (npmStart && npmStart.exitCode === null && npmStart.signalCode === null) {
      const exited = once(npmStart, 'exit');
      npmStart.kill('SIGTERM');
      await exited;
    }
    if (temp) rmSync(temp, { recursive: true, force: true });
  });

  it('holds the compiled server and no dev dependency; npm warns of no engine mismatch', () => {
    // What npm installed (its record in node_modules), against the repository's lock: nothing that
    // only a dev dependency reaches ("dev"), nor one a runtime package merely names as an optional
    // peer ("devOptional": typescript, the Prisma CLI).
    const installed = Object.keys(JSON.parse(readFileSync(join(pkg, 'node_modules/.package-lock.json'), 'utf8')).packages as object);
    expect(installed.length).toBeGreaterThan(100);
    expect(installed.filter((path) => REPO_LOCK.packages[path]?.dev || REPO_LOCK.packages[path]?.devOptional)).toEqual([]);
    for (const tool of ['typescript', 'tsx', 'vitest', 'prisma', '@prisma/dev', 'esbuild']) expect(existsSync(join(pkg, 'node_modules', tool)), tool).toBe(false);
    for (const name of Object.keys(MANIFEST.dependencies)) expect(existsSync(join(pkg, 'node_modules', name)), name).toBe(true);
    expect(install.stdout + install.stderr).not.toMatch(/EBADENGINE/);

    const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as Record<string, any>;
    expect(manifest.devDependencies).toBeUndefined();
    expect(manifest.dependencies).toEqual(MANIFEST.dependencies);
    // Nothing that builds or generates on the server.
    expect(Object.keys(manifest.scripts).sort()).toEqual(['cli', 'db:migrate', 'start']);
    expect(manifest.scripts.start).toBe('exec node dist/server/main.js');
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)]));
    const shipped = files(join(pkg, 'dist'));
    expect(shipped.filter((file) => !file.endsWith('.js'))).toEqual([]);
    expect(shipped).toContain(join(pkg, 'dist/server/db/generated/sqlite/client.js'));
    expect(existsSync(join(pkg, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'))).toBe(true);
  });

  it('starts on a new SQLite database and is ready, migrations applied', async () => {
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', checks: { database: 'ok' } });
    // The files read at run time came along: the OpenAPI document and the Redoc bundle of /docs.
    expect(await (await fetch(`${url}/openapi.json`)).text()).toBe(readFileSync(join(ROOT, 'openapi', 'openapi.json'), 'utf8'));
    const page = await (await fetch(`${url}/docs`)).text();
    const bundle = /<script src="([^"]+)">/.exec(page)?.[1] ?? '(no script in /docs)';
    expect((await fetch(`${url}${bundle}`)).status).toBe(200);
  });

  it("runs the quick start's first operations: a workspace from the CLI, Add Users and Get Permissions with its credentials", async () => {
    const created = await promisify(execFile)('npm', ['run', '--silent', 'cli', '--', 'workspace', 'create', '--owner-email', 'you@example.com'], { cwd: pkg, env });
    recordSecretsIn(created.stdout);
    const ws = JSON.parse(created.stdout) as { workspaceId: string; apiKey: string; authToken: string };
    expect(ws.workspaceId).toMatch(/^ws_/);
    const post = async (path: string, data: unknown) => {
      const response = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-api-key': ws.apiKey, 'x-service-auth-token': ws.authToken },
        body: JSON.stringify({ data }),
      });
      expect(response.status, path).toBe(200);
      return ((await response.json()) as { result: { data: any } }).result.data;
    };

    const added = await post('/v2/users/add', {
      organizationId: 'org-1',
      documentId: 'doc-1',
      createDocument: true,
      users: [
        { userId: 'alice', name: 'Alice', email: 'alice@example.com' },
        { userId: 'bob', name: 'Bob', email: 'bob@example.com', accessRole: 'viewer' },
      ],
    });
    expect(added).toMatchObject({ alice: { success: true }, bob: { success: true } });
    const permissions = await post('/v2/auth/permissions/get', { organizationId: 'org-1', userIds: ['alice', 'bob'], documentIds: ['doc-1'] });
    expect(permissions.alice.documents['doc-1']).toEqual({ accessRole: 'editor', accessType: 'organizationPrivate' });
    expect(permissions.bob.documents['doc-1']).toEqual({ accessRole: 'viewer', accessType: 'organizationPrivate' });
  });

  it('stops gracefully when npm gets SIGTERM', async () => {
    const exited = once(npmStart!, 'exit');
    npmStart!.kill('SIGTERM');
    expect(await exited).toEqual([0, null]);
    expect(output).toContain('"msg":"shutdown complete"');
  });
});
