import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../server/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let database: TestDatabase;
let env: NodeJS.ProcessEnv;
const run = (...args: string[]) => runCli(args, env);
const json = async (...args: string[]) => {
  const result = await run(...args);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect(result.stdout.endsWith('\n')).toBe(true);
  return JSON.parse(result.stdout);
};

beforeAll(async () => {
  database = await createTestDatabase();
  env = { DATABASE_URL: database.url, COLLAB_DATA_DIR: database.dataDir };
});
afterAll(() => database?.drop());

describe('operator CLI', () => {
  it('runs every command of the operator interface', async () => {
    const ws = await json('workspace', 'create', '--owner-email', 'cli@example.com', '--name', 'Acme');
    expect(Object.keys(ws).sort()).toEqual(['apiKey', 'authToken', 'workspaceAuthToken', 'workspaceId']);

    const record = await json('workspace', 'get', '--api-key', ws.apiKey);
    expect(record).toMatchObject({ workspaceId: ws.workspaceId, name: 'Acme', ownerEmail: 'cli@example.com', emailVerified: false, workspaceAuthToken: '__redacted__' });
    expect(record.features).toEqual({ advancedQueries: true, notifications: true });
    expect(JSON.stringify(record)).not.toContain(ws.apiKey);
    expect(JSON.stringify(record)).not.toContain(ws.authToken);

    expect(await json('workspace', 'verify-email', '--owner-email', 'CLI@example.com')).toEqual({ verified: true });
    expect((await json('workspace', 'get', '--api-key', ws.apiKey)).emailVerified).toBe(true);

    const { authToken } = await json('auth-token', 'create', '--api-key', ws.apiKey);
    expect(authToken).toMatch(/^at_/);
    expect(await json('auth-token', 'revoke', '--api-key', ws.apiKey, '--auth-token', authToken)).toEqual({ revoked: true });

    expect(await json('ai-key', 'set', '--api-key', ws.apiKey, '--provider', 'anthropic', '--key', 'sk-ant-secret')).toEqual({ provider: 'anthropic', configured: true });
    const afterKey = await json('workspace', 'get', '--api-key', ws.apiKey);
    expect(afterKey.aiProviders).toEqual({ anthropic: { configured: true } });
    expect(JSON.stringify(afterKey)).not.toContain('sk-ant-secret');

    expect(await json('feature', 'set', '--api-key', ws.apiKey, '--name', 'advancedQueries', '--enabled', 'false')).toEqual({ name: 'advancedQueries', enabled: false });
    expect((await json('workspace', 'get', '--api-key', ws.apiKey)).features).toEqual({ advancedQueries: false, notifications: true });

    const status = await json('db', 'status');
    expect(status.upToDate).toBe(true);
    expect(await json('db', 'migrate')).toMatchObject({ applied: [] });
  });

  it('fails with one line on stderr and exit 2 on bad arguments', async () => {
    for (const args of [
      [],
      ['nope'],
      ['workspace', 'create'],
      ['workspace', 'create', '--owner-email'],
      ['workspace', 'create', '--owner-email', 'x@example.com', '--bogus', '1'],
      ['feature', 'set', '--api-key', 'k', '--name', 'advancedQueries', '--enabled', 'maybe'],
    ]) {
      const result = await run(...args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^error: /);
    }
    expect((await run('workspace', 'create')).stderr).toBe('error: --owner-email is required\n');
  });

  it('fails with exit 1 and the status for domain errors', async () => {
    await json('workspace', 'create', '--owner-email', 'dup@example.com');
    const duplicate = await run('workspace', 'create', '--owner-email', 'dup@example.com');
    expect([duplicate.code, duplicate.stderr]).toEqual([1, 'error: ALREADY_EXISTS: a workspace already exists for dup@example.com\n']);
    for (const args of [
      ['workspace', 'get', '--api-key', 'ak_unknown'],
      ['workspace', 'verify-email', '--owner-email', 'none@example.com'],
      ['auth-token', 'revoke', '--api-key', 'ak_unknown', '--auth-token', 'at_x'],
      ['workspace', 'create', '--owner-email', 'not-an-email'],
    ]) {
      const result = await run(...args);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr.split('\n')).toHaveLength(2);
    }
    const ws = await json('workspace', 'create', '--owner-email', 'p@example.com');
    expect((await run('ai-key', 'set', '--api-key', ws.apiKey, '--provider', 'mistral', '--key', 'k')).stderr).toMatch(/INVALID_ARGUMENT: unknown provider/);
    // A pasted line break would later break the provider request's header, in an error quoting the key.
    const broken = await run('ai-key', 'set', '--api-key', ws.apiKey, '--provider', 'openai', '--key', 'sk-proj-PART1\nPART2');
    expect(broken.stderr).toMatch(/INVALID_ARGUMENT: the provider key must be 1 to 1024 printable ASCII characters/);
    expect(broken.stderr).not.toContain('PART1');
    expect((await run('feature', 'set', '--api-key', ws.apiKey, '--name', 'x', '--enabled', 'true')).stderr).toMatch(/INVALID_ARGUMENT: unknown feature/);
  });

  it('creates the master key file with mode 0600 in the data directory', () => {
    expect(statSync(join(database.dataDir, 'master.key')).mode & 0o777).toBe(0o600);
  });

  it('reports a bad DATABASE_URL in one line', async () => {
    const result = await runCli(['workspace', 'get', '--api-key', 'k'], { DATABASE_URL: 'mysql://x' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: DATABASE_URL must start with file:/);
  });
});

describe('help and version', () => {
  it('--help lists every command with what it does, without touching a database', async () => {
    const help = await runCli(['--help'], { DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none' });
    expect(help.code).toBe(0);
    expect(help.stderr).toBe('');
    for (const command of ['workspace create --owner-email E', 'auth-token revoke', 'ai-key set', 'signing-key rotate', 'db migrate', 'db status']) {
      expect(help.stdout).toContain(command);
    }
    expect((await runCli(['help'])).stdout).toBe(help.stdout);
  });

  it('help <command> and <command> --help show that command', async () => {
    const one = await runCli(['help', 'auth-token', 'create']);
    expect(one).toEqual({ code: 0, stdout: 'usage: auth-token create --api-key K [--name N]\nCreates another auth token for an application.\n', stderr: '' });
    expect(await runCli(['auth-token', 'create', '--help'])).toEqual(one);
    const unknown = await runCli(['help', 'nope']);
    expect([unknown.code, unknown.stderr.split('\n')[0]]).toEqual([2, 'error: unknown command "nope"; commands:']);
  });

  it('--version prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
    expect(await runCli(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });
});

describe('nothing outlives a CLI run', () => {
  // A pool or timer left behind kept the process alive ~10 s after answering on PostgreSQL.
  it('leaves no timer or database handle behind', async () => {
    const count = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout' || r === 'TCPSocketWrap').length;
    await json('db', 'status');
    const before = count();
    const ws = await json('workspace', 'create', '--owner-email', 'handles@example.com');
    await json('db', 'migrate');
    await json('workspace', 'get', '--api-key', ws.apiKey);
    // A socket being closed by the server may linger a moment; a timer may not.
    expect(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length).toBeLessThanOrEqual(before);
  });
});

describe('npm run --silent cli', () => {
  const dir = mkdtempSync(join(tmpdir(), 'collab-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints exactly one JSON object on stdout', async () => {
    const { stdout } = await promisify(execFile)('npm', ['run', '--silent', 'cli', '--', 'workspace', 'create', '--owner-email', 'npm@example.com'], {
      cwd: join(import.meta.dirname, '..', '..'),
      env: { ...process.env, DATABASE_URL: `file:${join(dir, 'collab.db')}`, COLLAB_DATA_DIR: dir },
    });
    expect(Object.keys(JSON.parse(stdout)).sort()).toEqual(['apiKey', 'authToken', 'workspaceAuthToken', 'workspaceId']);
  }, 120_000);
});
