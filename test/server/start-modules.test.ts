import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, usingPostgres, type TestDatabase } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { killServer, spawnServer, type ServerProcess } from '../helpers/server-process.js';

const RECORDER = pathToFileURL(join(import.meta.dirname, '..', 'helpers', 'loaded-modules.mjs')).href;

/**
 * Modules only some processes or requests need load on first use, so a
 * process that never needs them never holds them (docs/operations.md#sizing):
 * this checks which ones a server process has loaded once it started and
 * answered a query through the ORM. How much memory that saves is the
 * bench's to measure (test/bench/README.md, Idle RSS after start), not a
 * test's.
 */
const UNNEEDED: Array<[RegExp, string]> = [
  usingPostgres
    ? [/\/node_modules\/(better-sqlite3|@prisma\/adapter-better-sqlite3)\/|\/generated\/sqlite\//, 'the SQLite driver and client on PostgreSQL']
    : [/\/node_modules\/(pg|@prisma\/adapter-pg)\/|\/generated\/postgresql\//, 'the PostgreSQL driver and client on SQLite'],
  [/\/node_modules\/(ioredis|rate-limit-redis|@hocuspocus\/extension-redis)\//, 'Redis without REDIS_URL'],
  [/\/node_modules\/@prisma\/schema-engine-wasm\//, 'the schema engine when every migration is applied'],
  // The default build: ~50 MB more resident for the process's life (prisma/tools/generate-clients.mjs).
  [/query_compiler_fast_bg/, 'Prisma\'s "fast" query compiler'],
  [/\/node_modules\/(openai|@anthropic-ai\/sdk|nodemailer)\//, 'the AI SDKs and the mailer before an Ask AI call or an email'],
  [/\/node_modules\/(playwright-core|axe-core)\//, 'the browser driver and axe-core before an agent run needs a browser'],
  [/\/node_modules\/@modelcontextprotocol\/sdk\//, 'the MCP SDK before an mcp-tools agent run'],
];

describe('a server process without REDIS_URL, started and queried once', () => {
  let database: TestDatabase;
  let server: ServerProcess | undefined;
  let dir: string;
  let file: string;
  const loaded = () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);

  beforeAll(async () => {
    database = await createTestDatabase();
    dir = mkdtempSync(join(tmpdir(), 'collab-modules-'));
    file = join(dir, 'loaded.txt');
    server = await spawnServer({
      DATABASE_URL: database.url,
      COLLAB_DATA_DIR: database.dataDir,
      REDIS_URL: '',
      LOADED_MODULES_FILE: file,
      NODE_OPTIONS: [process.env.NODE_OPTIONS, `--import=${RECORDER}`].filter(Boolean).join(' '),
    });
    // Its first query loads the driver and the query compiler.
    expect((await fetch(new URL('/readyz', server.url))).status).toBe(200);
  });
  afterAll(async () => {
    if (server) await killServer(server);
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('has loaded its own driver and query compiler, and none of the modules it does not need', async () => {
    // Without these the list would be incomplete (or empty), and the check below pass for nothing.
    const driver = usingPostgres ? /\/node_modules\/pg\// : /\/node_modules\/better-sqlite3\//;
    await eventually(() => loaded().some((url) => driver.test(url)) && loaded().some((url) => /query_compiler_\w+_bg/.test(url)), 'the driver and the query compiler in the list');
    const found = UNNEEDED.flatMap(([pattern, what]) => loaded().filter((url) => pattern.test(url)).map((url) => `${what}: ${url}`));
    expect(found).toEqual([]);
  });
});
