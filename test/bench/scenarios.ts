/**
 * The benchmark scenarios `npm run bench` runs, in order, against one server
 * with one seeded workspace. To add one, append an entry to `scenarios`:
 * optional `setup()` seeds what it needs (through `ctx.cli` or `ctx.post`),
 * `request()` returns the one request autocannon repeats. Keep state that
 * `setup()` creates in variables closed over by the entry (see README.md).
 */

export interface WorkspaceCredentials {
  workspaceId: string;
  workspaceAuthToken: string;
  apiKey: string;
  authToken: string;
}

export interface BenchContext {
  /** The server under test, e.g. `http://127.0.0.1:41234` (no trailing slash). */
  baseUrl: string;
  /** The operator CLI (`node dist/server/cli.js ...args`) against the server's database; parsed JSON stdout. */
  cli<T = any>(args: string[]): Promise<T>;
  /** One POST to the server, for seeding through HTTP in `setup()`; throws on a non-2xx status. */
  post<T = any>(path: string, body: unknown, headers?: Record<string, string>): Promise<T>;
  /** The workspace seeded before the run (`workspace create`). */
  workspace: WorkspaceCredentials;
}

export interface BenchRequest {
  path: string;
  /** Defaults to POST. */
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers: Record<string, string>;
  /** A string is sent as is; anything else as JSON. */
  body?: unknown;
}

export interface Scenario {
  name: string;
  setup?(ctx: BenchContext): Promise<void>;
  request(ctx: BenchContext): BenchRequest;
}

/** JSON content type plus the workspace's service credentials. */
export function serviceHeaders(workspace: Pick<WorkspaceCredentials, 'apiKey' | 'authToken'>): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-service-api-key': workspace.apiKey,
    'x-service-auth-token': workspace.authToken,
  };
}

export const scenarios: Scenario[] = [
  {
    name: 'Get Activity Config',
    request: (ctx) => ({
      path: '/v2/workspace/activityconfig/get',
      headers: serviceHeaders(ctx.workspace),
      body: { data: {} },
    }),
  },
];
