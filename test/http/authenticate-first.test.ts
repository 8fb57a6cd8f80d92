import { request, type IncomingMessage } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';

/**
 * Credentials and the limits that key by caller are settled from method, path
 * and headers before the body is read: an anonymous client must not make the
 * server inflate and parse up to BODY_LIMIT_BYTES.
 */

const PATH = '/v2/workspace/activityconfig/get';

/** Sends the headers and the first chunk of a body declared as `declared` bytes, then waits for the answer without sending more. */
function sendPartly(url: string, path: string, headers: Record<string, string>, declared: number, first: Buffer) {
  return new Promise<{ status: number; body: any; sent: number }>((resolve, reject) => {
    const req = request(new URL(path, url), { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(declared), ...headers } });
    req.on('error', reject);
    req.on('response', (res: IncomingMessage) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), sent: first.length });
        req.destroy();
      });
    });
    req.write(first);
  });
}

describe('authentication before the body is read', () => {
  let server: TestServer;
  let ws: WorkspaceCredentials;
  beforeAll(async () => {
    server = await startTestServer();
    ws = await server.workspace();
  });
  afterAll(() => server?.close());

  it('answers a 5 MB body without credentials before the body has been sent', async () => {
    const declared = 5 * 1024 * 1024 - 1024;
    const res = await sendPartly(server.url, PATH, {}, declared, Buffer.from(`{"data":{"x":"${'a'.repeat(64 * 1024)}`));
    expect([res.status, res.body.error.status]).toEqual([401, 'UNAUTHENTICATED']);
    expect(res.sent).toBeLessThan(declared);
  });

  it('answers a 5 MB body with wrong credentials before the body has been sent', async () => {
    const declared = 5 * 1024 * 1024 - 1024;
    const headers = { ...appHeaders(ws), 'x-service-auth-token': 'at_wrong' };
    const res = await sendPartly(server.url, PATH, headers, declared, Buffer.from('{"data":{'));
    expect([res.status, res.body.error.status]).toEqual([403, 'PERMISSION_DENIED']);
  });

  it('answers an unknown path without reading the body', async () => {
    const res = await sendPartly(server.url, '/v2/no/such/operation', {}, 1024 * 1024, Buffer.from('{"data":'));
    expect([res.status, res.body.error.status]).toEqual([404, 'NOT_FOUND']);
  });

  it('a malformed, compressed or non-JSON body without credentials is UNAUTHENTICATED, not INVALID_ARGUMENT', async () => {
    expect((await server.post(PATH, '{"data": nope')).body.error.status).toBe('UNAUTHENTICATED');
    const wrong = { ...appHeaders(ws), 'x-service-api-key': 'ak_wrong' };
    expect((await server.post(PATH, '{"data": nope', wrong)).body.error.status).toBe('PERMISSION_DENIED');

    const gzip = await fetch(`${server.url}${PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(Buffer.from(`{"data":{"x":"${'a'.repeat(1024 * 1024)}"}}`)),
    });
    expect([gzip.status, ((await gzip.json()) as any).error.status]).toEqual([401, 'UNAUTHENTICATED']);

    const text = await fetch(`${server.url}${PATH}`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
    expect(text.status).toBe(401);
  });

  it('still validates the body of an authenticated request', async () => {
    const res = await server.post(PATH, '{"data": nope', appHeaders(ws));
    expect([res.status, res.body.error.status]).toEqual([400, 'INVALID_ARGUMENT']);
  });

  it('refuses a body on the GET routes instead of reading it', async () => {
    const res = await fetch(`${server.url}/.well-known/jwks.json`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(404);
    const withBody = await new Promise<number>((resolve, reject) => {
      const req = request(new URL('/.well-known/jwks.json', server.url), { method: 'GET', headers: { 'content-type': 'application/json', 'content-length': '2' } });
      req.on('error', reject);
      req.on('response', (r) => {
        r.resume();
        resolve(r.statusCode ?? 0);
      });
      req.end('{}');
    });
    expect(withBody).toBe(400);
  });
});

describe('failed authentications per IP', () => {
  let server: TestServer;
  let ws: WorkspaceCredentials;
  beforeAll(async () => {
    server = await startTestServer({ AUTH_FAILURE_LIMIT_PER_IP: '3' });
    ws = await server.workspace();
  });
  afterAll(() => server?.close());

  it('rotating fake keys gets no fresh bucket: RESOURCE_EXHAUSTED after the limit, for every failed credential from that address', async () => {
    // Authenticated requests do not count.
    for (let i = 0; i < 5; i++) expect((await server.post(PATH, { data: {} }, appHeaders(ws))).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await server.post(PATH, { data: {} }, { 'x-service-api-key': `ak_fake${i}`, 'x-service-auth-token': `at_fake${i}` })).status);
    }
    expect(statuses).toEqual([403, 403, 403]);
    const limited = await server.post(PATH, { data: {} }, { 'x-service-api-key': 'ak_fake_next', 'x-service-auth-token': 'at_fake_next' });
    expect([limited.status, limited.body.error.status]).toEqual([429, 'RESOURCE_EXHAUSTED']);
    expect(limited.body.error.message).toMatch(/failed authentications/);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Missing credentials and a real API key with a wrong token are failures too.
    expect((await server.post(PATH, { data: {} })).status).toBe(429);
    expect((await server.post(PATH, { data: {} }, { ...appHeaders(ws), 'x-service-auth-token': 'at_wrong' })).status).toBe(429);
    // Valid credentials from the same address are never refused by it: a flood of
    // failures behind one proxy or NAT cannot lock out the clients that share it.
    for (let i = 0; i < 3; i++) expect((await server.post(PATH, { data: {} }, appHeaders(ws))).status).toBe(200);
    // The public operation has its own limits.
    expect((await server.post('/v2/workspace/email/status', { data: { ownerEmail: 'nobody@example.com' } })).status).toBe(404);
  });
});

describe('per-application limit', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ RATE_LIMIT_PER_MINUTE: '4' });
  });
  afterAll(() => server?.close());

  it('two auth tokens of one application share its counter; another application has its own', async () => {
    const ws = await server.workspace();
    const { authToken } = await server.cli<{ authToken: string }>('auth-token', 'create', '--api-key', ws.apiKey);
    const first = appHeaders(ws);
    const second = { ...first, 'x-service-auth-token': authToken };
    const statuses: number[] = [];
    for (const headers of [first, second, first, second, first, second]) statuses.push((await server.post(PATH, { data: {} }, headers)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    expect((await server.post(PATH, { data: {} }, appHeaders(await server.workspace()))).status).toBe(200);
  });

  it("requests with an application's API key and a wrong token do not use up its counter", async () => {
    const victim = await server.workspace();
    for (let i = 0; i < 6; i++) {
      expect((await server.post(PATH, { data: {} }, { ...appHeaders(victim), 'x-service-auth-token': `at_wrong${i}` })).status).toBe(403);
    }
    expect((await server.post(PATH, { data: {} }, appHeaders(victim))).status).toBe(200);
  });
});
