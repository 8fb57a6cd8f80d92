import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { loadConfig } from '../../server/config.js';
import { startServer, type RunningServer } from '../../server/server.js';
import { eventually } from '../helpers/eventually.js';
import { closedPort } from '../helpers/closed-port.js';
import { postFrom as postFromAddress } from '../helpers/post-from.js';
import { captureLogger } from '../helpers/log-capture.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';
import { ROOT } from '../readme/readme.js';

/**
 * examples/nginx/collab-backend.conf in a real nginx in front of the server
 * (docs/operations.md#behind-a-reverse-proxy): REST, the /crdt WebSocket
 * upgrade, and TRUST_PROXY=1 taking the client's address from what nginx
 * appends, whatever the client wrote. The example's two upstream processes
 * are two servers on one PostgreSQL database and one Redis; on SQLite (one
 * process per file) both entries point at the one server.
 */

const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((path) => existsSync(path));
if (!NGINX) console.log('skipping the nginx example: nginx is not installed (apt-get install nginx-light)');
const EXAMPLE = readFileSync(join(ROOT, 'examples', 'nginx', 'collab-backend.conf'), 'utf8');
const PATH = '/v2/workspace/activityconfig/get';


describe.skipIf(!NGINX)('the nginx example in front of two server processes', () => {
  let first: TestServer;
  let second: RunningServer | undefined;
  let ws: WorkspaceCredentials;
  let nginx: ChildProcess;
  let dir: string;
  let base: string;

  beforeAll(async () => {
    // Two processes share their limits' counters through Redis, as the operator guide says to run them.
    const shared = process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL ? { REDIS_URL: process.env.TEST_REDIS_URL } : undefined;
    first = await startTestServer({ TRUST_PROXY: '1', AUTH_FAILURE_LIMIT_PER_IP: '3', ...shared });
    ws = await first.workspace();
    if (shared) second = await startServer(loadConfig({ ...first.env, PORT: '0' }), { logger: captureLogger() });
    const ports = [first.url, second?.url ?? first.url].map((url) => new URL(url).port);
    const listen = await closedPort();
    base = `http://127.0.0.1:${listen}`;

    // The example as shipped, with this run's ports: nginx's own listen port and the two processes'.
    const site = EXAMPLE.replace('listen 80;', `listen 127.0.0.1:${listen};`).replace('127.0.0.1:8080', `127.0.0.1:${ports[0]}`).replace('127.0.0.1:8081', `127.0.0.1:${ports[1]}`);
    expect(site).not.toContain(':8080');
    dir = mkdtempSync(join(tmpdir(), 'collab-nginx-'));
    writeFileSync(join(dir, 'site.conf'), site);
    writeFileSync(
      join(dir, 'nginx.conf'),
      [
        'daemon off;',
        'master_process off;',
        `pid ${join(dir, 'nginx.pid')};`,
        `error_log ${join(dir, 'error.log')} warn;`,
        'events { worker_connections 256; }',
        'http {',
        '  access_log off;',
        ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${join(dir, kind)};`),
        `  include ${join(dir, 'site.conf')};`,
        '}',
      ].join('\n'),
    );
    nginx = spawn(NGINX!, ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    nginx.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await eventually(
      async () => {
        if (nginx.exitCode !== null) throw new Error(`nginx exited: ${stderr}${existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : ''}`);
        return fetch(`${base}/healthz`).then(
          (r) => r.status === 200,
          () => false,
        );
      },
      'nginx to answer',
      15_000,
    );
  });
  afterAll(async () => {
    nginx?.kill('SIGTERM');
    if (nginx && nginx.exitCode === null) await once(nginx, 'exit');
    await second?.close();
    await first?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const postFrom = (localAddress: string, headers: Record<string, string>) => postFromAddress(base, PATH, localAddress, headers);
  const post = (headers: Record<string, string>) =>
    fetch(`${base}${PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{"data":{}}' }).then((r) => r.status);

  it('serves the REST operations through both processes', async () => {
    for (let i = 0; i < 6; i++) expect(await post(appHeaders(ws))).toBe(200);
  });

  it('passes the /crdt WebSocket upgrade through', async () => {
    const socket = new WebSocket(`${base.replace('http', 'ws')}/crdt`);
    try {
      await once(socket, 'open');
      expect(socket.readyState).toBe(WebSocket.OPEN);
    } finally {
      socket.close();
    }
  });

  it('with TRUST_PROXY=1 each client is the address nginx appends: counted apart, and a forged X-Forwarded-For changes nothing', async () => {
    const wrong = (i: number) => ({ 'x-service-api-key': 'ak_wrong', 'x-service-auth-token': 'at_wrong', 'x-forwarded-for': `203.0.113.${i + 1}` });
    // Loopback addresses of this run's own, so other runs against the same Redis keep their counters.
    const net = `127.${1 + Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 256)}`;
    const [a, b] = [`${net}.1`, `${net}.2`];
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push(await postFrom(a, wrong(i)));
    expect(statuses).toEqual([403, 403, 403, 429]);
    // Another client of the same proxy has its own count (without TRUST_PROXY both would be the proxy's)…
    expect(await postFrom(b, wrong(9))).toBe(403);
    // …and valid credentials from the refused client still pass.
    expect(await postFrom(a, appHeaders(ws))).toBe(200);
  });
});
