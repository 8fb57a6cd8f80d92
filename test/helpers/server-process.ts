import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../server/cli.js';
import { loadConfig } from '../../server/config.js';
import type { Database } from '../../server/db/client.js';
import { openMigratedDatabase } from '../../server/db/startup.js';
import { createLogger } from '../../server/http/logging.js';
import { systemClock } from '../../server/lib/clock.js';
import { openVerifiedSealer } from '../../server/lib/master-key.js';
import { createServices, type Services } from '../../server/services.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { recordSecretsIn } from './log-capture.js';
import type { WorkspaceCredentials } from './server.js';

const MAIN = join(import.meta.dirname, '..', '..', 'server', 'main.ts');

/** `npm start` as its own process: what SIGKILL, SIGTERM and several-process tests need. */
export interface ServerProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  /** What it wrote to stdout and stderr so far (for failure messages). */
  output(): string;
  /** Resolves with how the process ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `node --import tsx server/main.ts` with `env` and resolves once it
 * listens: this checkout's, or with `root` another one's (an older version,
 * test/helpers/previous-version.ts).
 */
export async function spawnServer(env: NodeJS.ProcessEnv, root?: string): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', root ? join(root, 'server', 'main.ts') : MAIN], {
    ...(root ? { cwd: root } : {}),
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Its log joins the in-process servers' logs, which the suite scans for leaked credentials.
  const logDir = process.env.COLLAB_TEST_LOG_DIR;
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
    if (logDir) appendFileSync(join(logDir, `server-child-${child.pid}.log`), chunk);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = once(child, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));
  const url = await new Promise<string>((resolve, reject) => {
    const onData = () => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        child.stdout.off('data', onData);
        resolve(match[1]!);
      }
    };
    child.stdout.on('data', onData);
    void exited.then(({ code, signal }) => reject(new Error(`server exited before listening (code ${code}, signal ${signal}): ${output}`)));
  });
  return { url, pid: child.pid!, child, output: () => output, exited };
}

/** SIGKILL (if still running) and wait for the exit. */
export async function killServer(server: ServerProcess): Promise<void> {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
  await server.exited;
}

/**
 * A fresh database (SQLite, or PostgreSQL with TEST_DATABASE_URL) with one
 * workspace, for servers run as processes. `database` reads their state from
 * the test; `services` are the server's services on that database with
 * nothing started (no dispatcher, no job worker), as the operator CLI has
 * them: what they write waits for a server process to pick it up.
 */
export interface ProcessFixture {
  env: NodeJS.ProcessEnv;
  workspace: WorkspaceCredentials;
  apiKeyId: string;
  database: Database;
  services: Services;
  close(): Promise<void>;
}

export async function processFixture(env: NodeJS.ProcessEnv = {}): Promise<ProcessFixture> {
  const testDb: TestDatabase = await createTestDatabase();
  const fullEnv: NodeJS.ProcessEnv = { DATABASE_URL: testDb.url, COLLAB_DATA_DIR: testDb.dataDir, JOB_POLL_INTERVAL_MS: '0', ...env };
  const result = await runCli(['workspace', 'create', '--owner-email', `owner${process.pid}-${Date.now()}@example.com`], { ...process.env, ...fullEnv });
  if (result.code !== 0) throw new Error(`workspace create failed: ${result.stderr}`);
  recordSecretsIn(result.stdout);
  const workspace = JSON.parse(result.stdout) as WorkspaceCredentials;
  const config = loadConfig({ ...process.env, ...fullEnv });
  const { database } = await openMigratedDatabase(testDb.url);
  const sealer = await openVerifiedSealer(database.db, { envValue: config.masterKey, dataDir: config.dataDir }, systemClock);
  const services = createServices({ config, db: database.db, uow: database.uow, sealer, logger: createLogger('silent'), clock: systemClock });
  const { id: apiKeyId } = await database.db.apiKey.findFirstOrThrow({ where: { workspaceId: workspace.workspaceId }, select: { id: true } });
  return {
    env: fullEnv,
    workspace,
    apiKeyId,
    database,
    services,
    async close() {
      await database.close();
      await testDb.drop();
    },
  };
}
