import express from 'express';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorHandler } from '../../server/http/error-handler.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';

// Every failure leaves as {error:{message,status}} with the table's HTTP code, never HTML.
let server: TestServer;
let ws: WorkspaceCredentials;
const PATH = '/v2/workspace/activityconfig/get';

beforeAll(async () => {
  server = await startTestServer({ BODY_LIMIT_BYTES: '2048' });
  ws = await server.workspace();
});
afterAll(() => server?.close());

function expectEnvelope(res: { status: number; body: any; headers: Headers }, http: number, status: string, message?: RegExp) {
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.status).toBe(http);
  expect(res.body.error.status).toBe(status);
  expect(typeof res.body.error.message).toBe('string');
  if (message) expect(res.body.error.message).toMatch(message);
}

describe('request envelope', () => {
  it('accepts {data:{}} and answers the success envelope', async () => {
    const res = await server.post(PATH, { data: {} }, appHeaders(ws));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: { status: 'success', message: expect.any(String), data: { activityServiceConfig: { isEnabled: false } } } });
  });

  it('rejects a body not wrapped in data', async () => {
    expectEnvelope(await server.post(PATH, {}, appHeaders(ws)), 400, 'INVALID_ARGUMENT', /data is required/);
  });

  it('rejects unknown top-level keys, naming them', async () => {
    expectEnvelope(await server.post(PATH, { data: {}, extra: 1 }, appHeaders(ws)), 400, 'INVALID_ARGUMENT', /extra/);
  });

  it('rejects unknown fields inside data, naming them with their path', async () => {
    expectEnvelope(await server.post(PATH, { data: { nope: true } }, appHeaders(ws)), 400, 'INVALID_ARGUMENT', /data\.nope/);
  });

  it('names the field of a type error', async () => {
    const res = await server.post('/v2/workspace/email/status', { data: { ownerEmail: 42 } });
    expectEnvelope(res, 400, 'INVALID_ARGUMENT', /data\.ownerEmail must be string/);
  });

  it('rejects a non-object body', async () => {
    expectEnvelope(await server.post(PATH, [1, 2], appHeaders(ws)), 400, 'INVALID_ARGUMENT');
    expectEnvelope(await server.post(PATH, '"text"', appHeaders(ws)), 400, 'INVALID_ARGUMENT');
  });

  it('rejects malformed JSON', async () => {
    expectEnvelope(await server.post(PATH, '{"data": {', appHeaders(ws)), 400, 'INVALID_ARGUMENT', /not valid JSON/);
  });

  it('rejects a body over the configured limit', async () => {
    const res = await server.post(PATH, { data: { padding: 'x'.repeat(4096) } }, appHeaders(ws));
    expectEnvelope(res, 400, 'INVALID_ARGUMENT', /exceeds the limit of 2048 bytes/);
  });

  it('rejects NUL characters in strings, on SQLite as on PostgreSQL', async () => {
    const res = await server.post('/v2/organizations/documents/add', '{"data":{"organizationId":"o","documentId":"a\\u0000b"}}', appHeaders(ws));
    expectEnvelope(res, 400, 'INVALID_ARGUMENT', /NUL character/);
  });

  it('rejects a body that is not JSON', async () => {
    const res = await fetch(`${server.url}${PATH}`, { method: 'POST', headers: { ...appHeaders(ws), 'content-type': 'text/plain' }, body: 'data=1' });
    expectEnvelope({ status: res.status, body: await res.json(), headers: res.headers }, 400, 'INVALID_ARGUMENT', /Content-Type: application\/json/);
  });
});

describe('routing', () => {
  it('answers NOT_FOUND for an unknown path', async () => {
    expectEnvelope(await server.post('/v2/nothing/here', { data: {} }, appHeaders(ws)), 404, 'NOT_FOUND', /no operation at \/v2\/nothing\/here/);
  });

  it('answers NOT_FOUND with Allow: POST for another method on a known path', async () => {
    const res = await fetch(`${server.url}${PATH}`, { headers: appHeaders(ws) });
    expectEnvelope({ status: res.status, body: await res.json(), headers: res.headers }, 404, 'NOT_FOUND', /every operation is POST/);
    expect(res.headers.get('allow')).toBe('POST');
  });
});

describe('cross-cutting headers', () => {
  it('returns a request id, keeping a sane incoming one', async () => {
    const own = await server.post(PATH, { data: {} }, { ...appHeaders(ws), 'x-request-id': 'trace-123' });
    expect(own.headers.get('x-request-id')).toBe('trace-123');
    const made = await server.post(PATH, { data: {} }, { ...appHeaders(ws), 'x-request-id': 'bad id with spaces' });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('sends security headers and no x-powered-by', async () => {
    const res = await server.post(PATH, { data: {} }, appHeaders(ws));
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-powered-by')).toBeNull();
  });
});

describe('thrown errors', () => {
  it('become INTERNAL without internals in the body', async () => {
    const app = express();
    app.post('/boom', () => {
      throw new Error('password=hunter2 at db.internal:5432');
    });
    app.use(errorHandler);
    const http = createServer(app).listen(0, '127.0.0.1');
    await new Promise((resolve) => http.once('listening', resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(http.address() as AddressInfo).port}/boom`, { method: 'POST' });
      const text = await res.text();
      expect(res.status).toBe(500);
      expect(JSON.parse(text)).toEqual({ error: { status: 'INTERNAL', message: expect.any(String) } });
      expect(text).not.toMatch(/hunter2|db\.internal|at /);
    } finally {
      http.close();
    }
  });
});
