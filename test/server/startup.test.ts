import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../server/cli.js';
import { loadConfig } from '../../server/config.js';
import { startServer } from '../../server/server.js';
import { createTestDatabase, usingPostgres, type TestDatabase } from '../helpers/database.js';

const silent = pino({ level: 'silent' });
const keyA = randomBytes(32).toString('base64');
const keyB = randomBytes(32).toString('hex');

/** Starts and stops a server; resolves to the one-line error of a refused start, or 'started'. */
async function tryStart(env: NodeJS.ProcessEnv): Promise<string> {
  try {
    const running = await startServer(loadConfig({ PORT: '0', ...env }), { logger: silent });
    await running.close();
    return 'started';
  } catch (error) {
    const message = (error as Error).message;
    expect(message.split('\n')).toHaveLength(1);
    return message;
  }
}

describe('configuration errors name the variable in one line', () => {
  const cases: Array<[NodeJS.ProcessEnv, RegExp]> = [
    [{ LOG_LEVEL: 'bogus' }, /^LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent \(got "bogus"\)$/],
    [{ PORT: '99999' }, /^PORT must be an integer from 0 to 65535 \(got "99999"\)$/],
    [{ DATABASE_URL: 'postgresql://admin:hunter2@db.example.com:notaport/app' }, /^DATABASE_URL is not a valid PostgreSQL URL/],
    [{ DATABASE_URL: 'postgresql://admin:hunter2@/' }, /^DATABASE_URL is not a valid PostgreSQL URL/],
    [{ DATABASE_URL: 'mysql://admin:hunter2@db/app' }, /^DATABASE_URL must start with file:, postgres:\/\/ or postgresql:\/\//],
    [{ HTTP_HEADERS_TIMEOUT_MS: '0' }, /^HTTP_HEADERS_TIMEOUT_MS must be an integer >= 1/],
    [{ SMTP_URL: 'http://admin:hunter2@mail.example.com' }, /^SMTP_URL is not a valid SMTP URL .*the value is not shown/],
    [{ SMTP_URL: 'admin:hunter2@mail.example.com:587' }, /^SMTP_URL is not a valid SMTP URL/],
    [{ EMAIL_FROM: 'Collab\r\nBcc: x@example.com' }, /^EMAIL_FROM must be one line holding an address/],
    [{ EMAIL_PROVIDER_BASE_URL: 'ftp://mail.example.com' }, /^EMAIL_PROVIDER_BASE_URL must be an http\(s\) URL/],
    [{ OPENAI_BASE_URL: 'api.openai.com/v1' }, /^OPENAI_BASE_URL must be an http\(s\) URL/],
    [{ ANTHROPIC_BASE_URL: 'https://api.anthropic.com?x=1' }, /^ANTHROPIC_BASE_URL must be an http\(s\) URL without query/],
    [{ GEMINI_BASE_URL: 'ws://gemini.example.com' }, /^GEMINI_BASE_URL must be an http\(s\) URL/],
    [{ AI_TIMEOUT_MS: '50' }, /^AI_TIMEOUT_MS must be an integer from 100 to 600000 \(got "50"\)$/],
    [{ AI_MAX_OUTPUT_TOKENS: '0' }, /^AI_MAX_OUTPUT_TOKENS must be an integer from 1/],
    [{ AI_RATE_LIMIT_PER_MINUTE: 'lots' }, /^AI_RATE_LIMIT_PER_MINUTE must be an integer >= 1/],
    [{ OPENAI_CUSTOM_HEADERS: 'Authorization: Bearer hunter2' }, /^OPENAI_CUSTOM_HEADERS is set: .*the value is not shown/],
    [{ ANTHROPIC_CUSTOM_HEADERS: 'X-Secret: hunter2' }, /^ANTHROPIC_CUSTOM_HEADERS is set: .*the value is not shown/],
    [{ DATABASE_POOL_SIZE: '0' }, /^DATABASE_POOL_SIZE must be an integer from 1 to 1000 \(got "0"\)$/],
    [{ DATABASE_POOL_SIZE: 'ten' }, /^DATABASE_POOL_SIZE must be an integer from 1 to 1000/],
    [{ DATABASE_STATEMENT_TIMEOUT_MS: '-1' }, /^DATABASE_STATEMENT_TIMEOUT_MS must be an integer from 0 to 86400000 \(got "-1"\)$/],
    [{ DATABASE_STATEMENT_TIMEOUT_MS: '2.5' }, /^DATABASE_STATEMENT_TIMEOUT_MS must be an integer from 0/],
    [{ EVENT_RETENTION_DAYS: '0' }, /^EVENT_RETENTION_DAYS must be an integer from 1 to 36500 \(got "0"\)$/],
  ];
  it.each(cases)('%j', (env, message) => {
    let thrown: unknown;
    try {
      loadConfig(env);
    } catch (error) {
      thrown = error;
    }
    expect((thrown as Error).message).toMatch(message);
    expect((thrown as Error).message).not.toContain('hunter2');
  });
});

describe('start-up failures', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ empty: true });
  });
  afterAll(() => database?.drop());
  const env = () => ({ DATABASE_URL: database.url, COLLAB_DATA_DIR: database.dataDir });

  it('an unreachable REDIS_URL is named, without its password', async () => {
    expect(await tryStart({ ...env(), COLLAB_MASTER_KEY: keyA, REDIS_URL: 'redis://:hunter2@127.0.0.1:1' })).toMatch(/^REDIS_URL: cannot connect \(.*ECONNREFUSED.*\)$/);
    expect(await tryStart({ ...env(), COLLAB_MASTER_KEY: keyA, REDIS_URL: 'redis://:hunter2@127.0.0.1:1' })).not.toContain('hunter2');
  });

  it('a PORT already in use is named', async () => {
    const running = await startServer(loadConfig({ ...env(), PORT: '0', COLLAB_MASTER_KEY: keyA }), { logger: silent });
    try {
      expect(await tryStart({ ...env(), COLLAB_MASTER_KEY: keyA, PORT: String(running.port) })).toMatch(/^PORT \d+ on HOST 127\.0\.0\.1 cannot be listened on \(EADDRINUSE\)$/);
    } finally {
      await running.close();
    }
  });

  it.skipIf(!usingPostgres)('an unreachable PostgreSQL is named, without the URL', async () => {
    const message = await tryStart({ DATABASE_URL: 'postgresql://admin:hunter2@127.0.0.1:1/app', COLLAB_DATA_DIR: database.dataDir });
    expect(message).toMatch(/^DATABASE_URL: cannot connect \(.*127\.0\.0\.1:1.*\)$/);
    expect(message).not.toContain('hunter2');
  });

  it('a SQLite DATABASE_URL in a directory that does not exist is refused (only ./data is created)', async () => {
    const missing = join(database.dataDir, 'no-such-dir', 'collab.db');
    expect(await tryStart({ DATABASE_URL: `file:${missing}`, COLLAB_DATA_DIR: database.dataDir })).toBe(`DATABASE_URL points into ${join(database.dataDir, 'no-such-dir')}, which does not exist`);
  });
});

describe('the master key is verified at start', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ empty: true });
  });
  afterAll(() => database?.drop());
  const env = (key?: string) => ({ DATABASE_URL: database.url, COLLAB_DATA_DIR: database.dataDir, ...(key ? { COLLAB_MASTER_KEY: key } : {}) });

  it('the first start seals a check value; the same key starts again', async () => {
    expect(await tryStart(env(keyA))).toBe('started');
    expect(await tryStart(env(keyA))).toBe('started');
  });

  it('a different key is refused by the server and by the CLI, naming COLLAB_MASTER_KEY', async () => {
    expect(await tryStart(env(keyB))).toMatch(/^COLLAB_MASTER_KEY is not the master key of this database: set COLLAB_MASTER_KEY to the key this database was set up with/);
    const cli = await runCli(['workspace', 'create', '--owner-email', 'k@example.com'], env(keyB));
    expect(cli.code).toBe(1);
    expect(cli.stderr).toMatch(/^error: COLLAB_MASTER_KEY is not the master key of this database: .*\n$/);
  });

  it('a missing key (no variable, no key file) is refused without creating a key file', async () => {
    expect(await tryStart(env())).toMatch(/^COLLAB_MASTER_KEY is not set and .*master\.key does not exist, but this database holds secrets sealed with a master key/);
    expect(() => statSync(join(database.dataDir, 'master.key'))).toThrow();
  });

  it('a malformed key names the variable', async () => {
    expect(await tryStart(env('too-short'))).toBe('COLLAB_MASTER_KEY must hold 32 bytes, as 64 hex characters or base64');
  });
});

describe('files holding secrets are owner-only', () => {
  it('the SQLite database file and the master key file are created with mode 0600', async () => {
    const database = await createTestDatabase({ empty: true });
    try {
      expect(await tryStart({ DATABASE_URL: `file:${join(database.dataDir, 'collab.db')}`, COLLAB_DATA_DIR: database.dataDir })).toBe('started');
      expect(statSync(join(database.dataDir, 'master.key')).mode & 0o777).toBe(0o600);
      expect(statSync(join(database.dataDir, 'collab.db')).mode & 0o777).toBe(0o600);
    } finally {
      await database.drop();
    }
  });
});

describe('the listening line', () => {
  it.each(['warn', 'error', 'silent'])('reaches stdout with LOG_LEVEL=%s', async (level) => {
    const database = await createTestDatabase({ empty: true });
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '..', '..', 'server', 'main.ts')], {
      env: { ...process.env, PORT: '0', DATABASE_URL: database.url, COLLAB_DATA_DIR: database.dataDir, LOG_LEVEL: level },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      let stdout = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          const match = /"msg":"listening on (http:\/\/127\.0\.0\.1:\d+)"/.exec(stdout);
          if (match) resolve(match[1]!);
        });
        child.once('exit', (code) => reject(new Error(`exited with ${code}: ${stdout}`)));
      });
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      const exit = once(child, 'exit');
      child.kill('SIGTERM');
      expect((await exit)[0]).toBe(0);
      // Nothing else is logged below info.
      expect(stdout.trim().split('\n')).toHaveLength(1);
    } finally {
      child.kill('SIGKILL');
      await database.drop();
    }
  }, 60_000);
});
