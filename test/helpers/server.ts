import { createClient, type Client } from '../../sdk/index.js';
import { loadConfig } from '../../server/config.js';
import { runCli } from '../../server/cli.js';
import { createSettingsRepo, type SettingKind } from '../../server/domains/workspace/repo.js';
import { startServer, type RunningServer, type StartOptions } from '../../server/server.js';
import { createTestDatabase } from './database.js';
import { captureLogger, recordSecret, recordSecretsIn } from './log-capture.js';

export interface TestServer {
  url: string;
  running: RunningServer;
  env: NodeJS.ProcessEnv;
  /** The operator CLI against this server's database, parsed JSON on success. */
  cli<T = Record<string, string>>(...args: string[]): Promise<T>;
  /** A new workspace with its credentials, as `workspace create` prints them. */
  workspace(email?: string): Promise<WorkspaceCredentials>;
  client(credentials: Partial<WorkspaceCredentials>): Client;
  /** A raw POST, for what the SDK cannot send (bad JSON, missing headers, wrong envelopes). */
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
  /** Stops the server as `npm start` would on SIGTERM and starts it again on the same database (new port: `url` and `running` change). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface WorkspaceCredentials {
  workspaceId: string;
  workspaceAuthToken: string;
  apiKey: string;
  authToken: string;
}

let counter = 0;

/** The real server on port 0 with a fresh database, in this test process. */
export async function startTestServer(env: NodeJS.ProcessEnv = {}, options: StartOptions = {}): Promise<TestServer> {
  const database = await createTestDatabase();
  const fullEnv: NodeJS.ProcessEnv = {
    PORT: '0',
    DATABASE_URL: database.url,
    COLLAB_DATA_DIR: database.dataDir,
    LOG_LEVEL: 'silent',
    // Tests run due jobs themselves (running.services.jobs.runDue()), so nothing races them.
    JOB_POLL_INTERVAL_MS: '0',
    // Every answer held to the contract, exactly (server/http/response-check.ts).
    RESPONSE_VALIDATION: 'strict',
    ...env,
  };
  let running = await startServer(loadConfig(fullEnv), { logger: captureLogger(), ...options });

  // One CLI run at a time: in-process, two SQLite clients writing at once
  // would block each other on the one JS thread (separate processes do not).
  let queue: Promise<unknown> = Promise.resolve();
  const cli = async <T>(...args: string[]): Promise<T> => {
    const run = queue.then(() => runCli(args, fullEnv));
    queue = run.catch(() => undefined);
    const result = await run;
    // The CLI is another process: its change reaches this server's credential and settings cache
    // within 1 s, or at once through REDIS_URL. Tests see it at once, as with Redis; the real
    // cross-process timing is test/http/workspace/credential-cache.test.ts's.
    running.services.forgetCachedReads();
    if (result.code !== 0) throw new Error(`cli ${args.join(' ')} failed: ${result.stderr}`);
    recordSecretsIn(result.stdout);
    const key = args.indexOf('--key');
    if (args[0] === 'ai-key' && key >= 0) recordSecret('provider key', args[key + 1] ?? '');
    return JSON.parse(result.stdout) as T;
  };

  const server: TestServer = {
    url: running.url,
    running,
    env: fullEnv,
    cli,
    workspace: (email) => cli<WorkspaceCredentials>('workspace', 'create', '--owner-email', email ?? `owner${process.pid}-${++counter}-${Date.now()}@example.com`),
    // No retries: tests observe each answer of the server, one request per call.
    client: (c) => createClient({ baseUrl: server.url, ...c, fetch: recordingFetch, retry: { maxRetries: 0 } }),
    async post(path, body, headers = {}) {
      const response = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await response.text();
      recordSecretsIn(text);
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Left as text so a test can assert that it is JSON.
      }
      return { status: response.status, body: parsed, headers: response.headers };
    },
    async restart() {
      await running.close();
      running = await startServer(loadConfig(fullEnv), { logger: captureLogger(), ...options });
      server.running = running;
      server.url = running.url;
    },
    async close() {
      await running.close();
      await database.drop();
    },
  };
  return server;
}

/** fetch that records the credentials and user tokens in each response for the log scan. */
const recordingFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  recordSecretsIn(await response.clone().text());
  return response;
};

/** The application headers of a workspace. */
export function appHeaders(c: WorkspaceCredentials): Record<string, string> {
  return { 'x-service-api-key': c.apiKey, 'x-service-auth-token': c.authToken };
}

/**
 * Writes a stored setting as given (no validation: for states the API cannot
 * produce) straight to the table, then has the server forget its cached
 * reads, as a writer in this process would have invalidated them.
 */
export async function putRawSetting(server: TestServer, apiKeyId: string, kind: SettingKind, value: unknown): Promise<void> {
  await createSettingsRepo(server.running.database.db, server.running.services.clock).put(apiKeyId, kind, value);
  server.running.services.forgetCachedReads();
}
