import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCollabError } from '../../helpers/credentials.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

const PATH = '/v2/workspace/authtokens/get';
let server: TestServer;
let a: WorkspaceCredentials;
let b: WorkspaceCredentials;
const workspaceHeaders = (c: WorkspaceCredentials) => ({ 'x-service-workspace-id': c.workspaceId, 'x-service-workspace-auth-token': c.workspaceAuthToken });

beforeAll(async () => {
  server = await startTestServer();
  [a, b] = await Promise.all([server.workspace(), server.workspace()]);
});
afterAll(() => server?.close());

describe('Get Auth Tokens', () => {
  it('lists the tokens of an API key, oldest first, and they work', async () => {
    const { authToken: second } = await server.cli<{ authToken: string }>('auth-token', 'create', '--api-key', a.apiKey, '--name', 'ci');
    const client = server.client({ workspaceId: a.workspaceId, workspaceAuthToken: a.workspaceAuthToken });
    const result = await client.workspace.getAuthTokens({ apiKey: a.apiKey });
    expect(result.data.apiKey).toBe(a.apiKey);
    expect(result.data.authTokens.map((t) => [t.token, t.name])).toEqual([
      [a.authToken, 'default'],
      [second, 'ci'],
    ]);
    expect(result.data.authTokens[0]!.createdAt).toBeGreaterThan(Date.now() - 120_000);
    // What it returns is a working credential pair.
    const pair = server.client({ apiKey: result.data.apiKey, authToken: result.data.authTokens[1]!.token });
    expect((await pair.workspace.getActivityConfig()).status).toBe('success');

    await server.cli('auth-token', 'revoke', '--api-key', a.apiKey, '--auth-token', second);
    expect((await client.workspace.getAuthTokens({ apiKey: a.apiKey })).data.authTokens).toHaveLength(1);
  });

  it('is NOT_FOUND for an API key of another workspace, exactly as for an unknown key', async () => {
    const client = server.client({ workspaceId: a.workspaceId, workspaceAuthToken: a.workspaceAuthToken });
    const foreign = await expectCollabError(client.workspace.getAuthTokens({ apiKey: b.apiKey }), 'NOT_FOUND');
    const unknown = await expectCollabError(client.workspace.getAuthTokens({ apiKey: 'ak_unknown' }), 'NOT_FOUND');
    expect(foreign.message).toBe(unknown.message);
  });

  it('rejects a missing apiKey', async () => {
    const res = await server.post(PATH, { data: {} }, workspaceHeaders(a));
    expect([res.status, res.body.error.status]).toEqual([400, 'INVALID_ARGUMENT']);
    expect(res.body.error.message).toMatch(/data\.apiKey is required/);
  });

  it('needs the workspace headers: missing is 401, wrong is 403, application headers do not do', async () => {
    const missing = await server.post(PATH, { data: { apiKey: a.apiKey } }, { 'x-service-workspace-id': a.workspaceId });
    expect([missing.status, missing.body.error.status]).toEqual([401, 'UNAUTHENTICATED']);
    const app = await server.post(PATH, { data: { apiKey: a.apiKey } }, { 'x-service-api-key': a.apiKey, 'x-service-auth-token': a.authToken });
    expect(app.status).toBe(401);
    const wrong = await server.post(PATH, { data: { apiKey: a.apiKey } }, { ...workspaceHeaders(a), 'x-service-workspace-auth-token': b.workspaceAuthToken });
    expect([wrong.status, wrong.body.error.status]).toEqual([403, 'PERMISSION_DENIED']);
    const unknownWs = await server.post(PATH, { data: { apiKey: a.apiKey } }, { ...workspaceHeaders(a), 'x-service-workspace-id': 'ws_nope' });
    expect(unknownWs.status).toBe(403);
  });

  it('stores tokens sealed, never in plain text', async () => {
    // Times are BigInt columns, which JSON.stringify refuses: as text, like every other column.
    const text = (rows: unknown) => JSON.stringify(rows, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
    const rows = await server.running.database.db.authToken.findMany();
    const stored = text(rows);
    expect(stored).not.toContain(a.authToken);
    const keys = text(await server.running.database.db.apiKey.findMany());
    expect(keys).not.toContain(a.apiKey);
    const workspaces = text(await server.running.database.db.workspace.findMany());
    expect(workspaces).not.toContain(a.workspaceAuthToken);
  });
});
