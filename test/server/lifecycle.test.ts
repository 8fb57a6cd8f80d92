import { spawn } from 'node:child_process';
import { Agent, request, type IncomingMessage } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { appHeaders, startTestServer } from '../helpers/server.js';

describe('graceful shutdown', () => {
  it('finishes an in-flight request, refuses new connections, then closes the database', async () => {
    const server = await startTestServer();
    const ws = await server.workspace();
    const body = JSON.stringify({ data: {} });
    const url = new URL('/v2/workspace/activityconfig/get', server.url);

    // A request whose body is still arriving when shutdown starts.
    const inFlight = request(url, {
      method: 'POST',
      headers: { ...appHeaders(ws), 'content-type': 'application/json', 'content-length': String(body.length) },
    });
    const response = once(inFlight, 'response');
    const arrived = once(server.running.server, 'request');
    inFlight.write(body.slice(0, 5));
    await arrived;

    const closed = server.running.close();
    await expect(fetch(url, { method: 'POST', body })).rejects.toThrow();

    inFlight.end(body.slice(5));
    const [res] = (await response) as [import('node:http').IncomingMessage];
    let text = '';
    for await (const chunk of res) text += chunk;
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(text).result.status).toBe('success');
    await closed;
    await server.close();
  });

  it('answers a request in flight on a kept-alive connection with Connection: close, so its client sends nothing more on it', async () => {
    const server = await startTestServer();
    const ws = await server.workspace();
    const body = JSON.stringify({ data: {} });
    const url = new URL('/v2/workspace/activityconfig/get', server.url);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const post = () =>
      request(url, { method: 'POST', agent, headers: { ...appHeaders(ws), 'content-type': 'application/json', 'content-length': String(body.length) } });
    const read = async (res: IncomingMessage) => {
      let text = '';
      for await (const chunk of res) text += chunk;
      return text;
    };

    // A first request leaves the connection open for the next, as keep-alive clients and balancers do.
    const first = post();
    first.end(body);
    const [firstRes] = (await once(first, 'response')) as [IncomingMessage];
    await read(firstRes);
    expect(firstRes.headers.connection).toBe('keep-alive');

    // The next one on the same connection is still arriving when shutdown starts.
    const second = post();
    const response = once(second, 'response');
    const arrived = once(server.running.server, 'request');
    second.write(body.slice(0, 5));
    await arrived;
    expect(second.reusedSocket).toBe(true);
    const closed = server.running.close();
    second.end(body.slice(5));
    const [res] = (await response) as [IncomingMessage];
    expect(JSON.parse(await read(res)).result.status).toBe('success');
    // Without it the client would send its next request on a connection the stopping server is about to drop.
    expect(res.headers.connection).toBe('close');
    await closed;
    agent.destroy();
    await server.close();
  });
});

describe('npm start entry point', () => {
  it('prints "listening on http://HOST:PORT" and exits 0 on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'collab-main-'));
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '..', '..', 'server', 'main.ts')], {
      env: { ...process.env, PORT: '0', DATABASE_URL: `file:${join(dir, 'collab.db')}`, COLLAB_DATA_DIR: dir, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let stdout = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
          if (match) resolve(match[1]!);
        });
        child.once('exit', (code) => reject(new Error(`exited with ${code}: ${stdout}`)));
      });
      const res = await fetch(`${url}/v2/workspace/email/status`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"data":{"ownerEmail":"x@example.com"}}' });
      expect(res.status).toBe(404);

      const exit = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = await exit;
      expect(code).toBe(0);
      expect(stdout).toContain('shutdown complete');
    } finally {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('refuses to start on a bad configuration with one line on stderr', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '..', '..', 'server', 'main.ts')], {
      env: { ...process.env, PORT: 'eighty' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = await once(child, 'exit');
    expect(code).toBe(1);
    expect(stderr.trim()).toBe('collab-backend failed to start: PORT must be an integer from 0 to 65535 (got "eighty")');
  }, 60_000);
});
