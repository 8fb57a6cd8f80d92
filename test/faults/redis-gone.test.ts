// Redis goes away under a running server (a restart, a network partition)
// and comes back. The server reaches Redis through a TCP proxy owned by the
// test, so the outage is real for the server and nothing happens to the
// shared Redis: cutting the proxy closes the server's connections and
// refuses new ones. One process keeps serving: rate limits count in memory
// meanwhile, Get Presence lists this process's connections, /readyz stays
// 200 but reports the outage; when Redis is back everything uses it again.
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { connectEditor, type LiveEditor } from '../helpers/live-client.js';
import { apiPresenceOf, untilAwareness } from '../helpers/live-state.js';
import { memoryLogger } from '../helpers/log-capture.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';

const redisUrl = process.env.TEST_REDIS_URL;
if (!redisUrl) console.log('skipping the Redis outage faults: TEST_REDIS_URL is not set');

/** A TCP proxy to Redis on a fixed local port that can be cut (connections closed, port refused) and restored. */
async function redisProxy(target: URL) {
  const sockets = new Set<Socket>();
  let frozen = false;
  let server: Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = connect(Number(target.port || 6379), target.hostname);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => socket.destroy());
        }
        client.pipe(upstream).pipe(client);
        if (frozen) for (const socket of [client, upstream]) socket.pause();
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as AddressInfo).port;
        server = s;
        resolve();
      });
    });
  await listen();
  return {
    url: () => {
      const url = new URL(target);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      return url.toString();
    },
    async cut() {
      const closing = new Promise<void>((resolve) => server!.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closing;
    },
    restore: listen,
    /** Redis stops answering but keeps the connections (a frozen server, a partition dropping packets). */
    freeze() {
      frozen = true;
      for (const socket of sockets) socket.pause();
    },
    thaw() {
      frozen = false;
      for (const socket of sockets) socket.resume();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => (server?.listening ? server.close(() => resolve()) : resolve()));
    },
  };
}

describe.skipIf(!redisUrl)('Redis goes away and comes back', () => {
  let proxy: Awaited<ReturnType<typeof redisProxy>>;
  let server: TestServer;
  let ws: WorkspaceCredentials;
  let editor: LiveEditor | undefined;
  const log = memoryLogger();
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    proxy = await redisProxy(new URL(redisUrl!));
    server = await startTestServer({ REDIS_URL: proxy.url(), EMAIL_STATUS_LIMIT_PER_EMAIL: '3' }, { logger: log.logger });
    ws = await server.workspace();
    expect((await post('/v2/users/add', { organizationId: 'org-a', documentId: 'doc-a', createDocument: true, users: [{ userId: 'ann' }] })).status).toBe(200);
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    editor?.close();
    await server?.close();
    await proxy?.close();
  });

  const post = (path: string, data: unknown) => server.post(path, { data }, appHeaders(ws));
  const readyz = async () => {
    const res = await fetch(`${server.url}/readyz`);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const emailStatus = (email: string) => server.post('/v2/workspace/email/status', { data: { ownerEmail: email } });

  it('serves on, says so in /readyz, rate-limits in memory meanwhile, and uses Redis again once it is back', async () => {
    expect(await readyz()).toEqual({ status: 200, body: { status: 'ok', checks: { database: 'ok', redis: 'ok' } } });
    // A WebSocket client of this process, on the document.
    const token = await post('/v2/auth/generate_token', {
      userId: 'ann',
      userProperties: { name: 'Ann', email: 'ann@example.com' },
      permissions: { resources: [{ type: 'organization', id: 'org-a', accessRole: 'editor' }] },
    });
    editor = connectEditor(server.url, { organizationId: 'org-a', documentId: 'doc-a', editorId: 'main' }, token.body.result.data.token);
    await editor.ready;

    await proxy.cut();
    await eventually(async () => (await readyz()).body.status === 'degraded', '/readyz to report the outage');
    // Still in rotation: the database answers, and one process can serve alone.
    expect(await readyz()).toEqual({ status: 200, body: { status: 'degraded', checks: { database: 'ok', redis: 'unavailable' } } });

    // Authenticated operations (standard tier, failed-auth gate), a public one (per-IP and per-email tiers), Get Presence (the directory).
    expect((await post('/v2/users/get', { organizationId: 'org-a' })).status).toBe(200);
    // Real-time messages still reach this process's own clients: an API presence entry appears in the editor's awareness.
    expect((await post('/v2/presence/add', { organizationId: 'org-a', documentId: 'doc-a', user: { userId: 'bot' }, state: { status: 'outage' } })).status).toBe(200);
    await untilAwareness(editor, () => apiPresenceOf(editor!, 'bot').length === 1);
    const presence = await post('/v2/presence/get', { organizationId: 'org-a', documentId: 'doc-a' });
    expect(presence.status).toBe(200);
    expect(presence.body.result.data.map((entry: { userId: string; source: string }) => [entry.userId, entry.source])).toEqual([
      ['ann', 'connection'],
      ['bot', 'api'],
    ]);
    const wrongToken = await server.post('/v2/users/get', { data: { organizationId: 'org-a' } }, { ...appHeaders(ws), 'x-service-auth-token': 'at_wrong' });
    expect(wrongToken.body.error?.status).toBe('PERMISSION_DENIED');
    // The per-email limit (3) still holds, counted in this process's memory.
    const email = `outage-${Date.now()}@example.com`;
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await emailStatus(email)).status);
    expect(statuses).toEqual([404, 404, 404, 429]);

    await proxy.restore();
    await eventually(async () => (await readyz()).body.status === 'ok', '/readyz to report Redis back', 20_000, 100);
    expect(await readyz()).toEqual({ status: 200, body: { status: 'ok', checks: { database: 'ok', redis: 'ok' } } });
    // Counting is back in Redis: a fresh email's counter starts there.
    const back = `back-${Date.now()}@example.com`;
    expect((await emailStatus(back)).status).toBe(404);
    const { Redis } = await import('ioredis');
    const direct = new Redis(redisUrl!);
    try {
      const keys = await direct.keys(`collab:rl:email-address:*${back}*`);
      expect(keys).toHaveLength(1);
    } finally {
      direct.disconnect();
    }
    expect((await post('/v2/users/get', { organizationId: 'org-a' })).status).toBe(200);
    expect(unhandled).toEqual([]);
  }, 60_000);

  it('a Redis that keeps the connection but stops answering: requests are served, /readyz says degraded, then ok once it answers', async () => {
    expect((await readyz()).body.status).toBe('ok');
    proxy.freeze();
    try {
      // Each request waits at most the client's command timeout once, then counts in memory.
      const email = `frozen-${Date.now()}@example.com`;
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await emailStatus(email)).status);
      expect(statuses).toEqual([404, 404, 404, 429]);
      expect((await post('/v2/users/get', { organizationId: 'org-a' })).status).toBe(200);
      expect(await readyz()).toEqual({ status: 200, body: { status: 'degraded', checks: { database: 'ok', redis: 'unavailable' } } });
    } finally {
      proxy.thaw();
    }
    await eventually(async () => (await readyz()).body.status === 'ok', '/readyz to report Redis back', 20_000, 100);
    expect(unhandled).toEqual([]);
  }, 60_000);
});
