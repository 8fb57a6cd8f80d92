import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../server/cli.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';

let server: TestServer;
let ws: WorkspaceCredentials;
const PATH = '/v2/workspace/activityconfig/get';

beforeAll(async () => {
  server = await startTestServer();
  ws = await server.workspace();
});
afterAll(() => server?.close());

describe('application credentials', () => {
  it('a missing header is UNAUTHENTICATED (401) and names the header', async () => {
    const res = await server.post(PATH, { data: {} }, { 'x-service-api-key': ws.apiKey });
    expect(res.status).toBe(401);
    expect(res.body.error).toEqual({ status: 'UNAUTHENTICATED', message: expect.stringContaining('x-service-auth-token') });
    const none = await server.post(PATH, { data: {} });
    expect(none.body.error.message).toMatch(/x-service-api-key, x-service-auth-token/);
  });

  it('authenticates before validating, so a bad body without credentials is still 401', async () => {
    const res = await server.post(PATH, { wrong: true });
    expect(res.status).toBe(401);
  });

  it('a wrong API key or auth token is PERMISSION_DENIED (403)', async () => {
    for (const headers of [
      { ...appHeaders(ws), 'x-service-api-key': 'ak_wrong' },
      { ...appHeaders(ws), 'x-service-auth-token': 'at_wrong' },
    ]) {
      const res = await server.post(PATH, { data: {} }, headers);
      expect(res.status).toBe(403);
      expect(res.body.error.status).toBe('PERMISSION_DENIED');
    }
  });

  it('a token of another API key does not work with this key', async () => {
    const other = await server.workspace();
    const res = await server.post(PATH, { data: {} }, { 'x-service-api-key': ws.apiKey, 'x-service-auth-token': other.authToken });
    expect(res.status).toBe(403);
  });

  it('workspace credentials do not open application operations', async () => {
    const res = await server.post(PATH, { data: {} }, { 'x-service-workspace-id': ws.workspaceId, 'x-service-workspace-auth-token': ws.workspaceAuthToken });
    expect(res.status).toBe(401);
  });

  it('a second token works and a revoked one stops working within the credential cache\'s second', async () => {
    const { authToken } = await server.cli<{ authToken: string }>('auth-token', 'create', '--api-key', ws.apiKey);
    const headers = { 'x-service-api-key': ws.apiKey, 'x-service-auth-token': authToken };
    expect((await server.post(PATH, { data: {} }, headers)).status).toBe(200);
    expect(await server.cli('auth-token', 'revoke', '--api-key', ws.apiKey, '--auth-token', authToken)).toEqual({ revoked: true });
    // The CLI is another process: the server's cached copy lapses within 1 s (at once through
    // REDIS_URL; see workspace/credential-cache.test.ts).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await server.post(PATH, { data: {} }, headers)).status).toBe(403);
    expect((await server.post(PATH, { data: {} }, appHeaders(ws))).status).toBe(200);
  });
});

describe('API keys of unverified workspaces', () => {
  it('expire after the grace period and are reactivated by a verified status check', async () => {
    const graced = await startTestServer({ UNVERIFIED_KEY_GRACE_DAYS: '0' });
    try {
      const email = `grace-${Date.now()}@example.com`;
      const creds = await graced.workspace(email);
      const denied = await graced.post(PATH, { data: {} }, appHeaders(creds));
      expect(denied.status).toBe(403);
      expect(denied.body.error.message).toMatch(/owner email is not verified/);

      await graced.cli('workspace', 'verify-email', '--owner-email', email);
      // Verification alone does not reactivate: the status check does (the spec's side effect).
      expect((await graced.post(PATH, { data: {} }, appHeaders(creds))).status).toBe(403);
      const status = await graced.post('/v2/workspace/email/status', { data: { ownerEmail: email } });
      expect(status.body.result.data).toEqual({ verified: true });
      expect((await graced.post(PATH, { data: {} }, appHeaders(creds))).status).toBe(200);
      expect((await runCli(['workspace', 'get', '--api-key', creds.apiKey], graced.env)).stdout).toMatch(/"expired":false/);
    } finally {
      await graced.close();
    }
  });
});
