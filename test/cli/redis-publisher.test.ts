import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../server/cli.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';

/**
 * With REDIS_URL the CLI announces a changed credential or feature to the running servers. A Redis
 * that cannot be reached must neither hang the command nor undo it: the change stands, and stderr
 * says the servers see it within the cache's second instead.
 */
describe('the operator CLI with a Redis that does not answer', () => {
  let server: TestServer;
  let ws: WorkspaceCredentials;
  const held: Socket[] = [];
  // Accepts connections and never writes a byte (a frozen Redis, a partition dropping packets).
  const silent = createServer((socket) => void held.push(socket));
  let silentUrl = '';

  beforeAll(async () => {
    server = await startTestServer();
    ws = await server.workspace();
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentUrl = `redis://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    held.forEach((socket) => socket.destroy());
    silent.close();
    await server?.close();
  });

  it('finishes, keeps the change, and warns', async () => {
    const result = await runCli(['feature', 'set', '--api-key', ws.apiKey, '--name', 'notifications', '--enabled', 'false'], { ...server.env, REDIS_URL: silentUrl });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ name: 'notifications', enabled: false });
    expect(result.stderr).toMatch(/could not reach REDIS_URL; running servers see this change within 1 s/);
    const headers = { 'x-service-api-key': ws.apiKey, 'x-service-auth-token': ws.authToken };
    const res = await server.post('/v2/notifications/get', { data: { organizationId: 'org-1', userId: 'u1' } }, headers);
    expect([res.status, res.body.error?.status]).toEqual([400, 'FAILED_PRECONDITION']);
  }, 20_000);
});
