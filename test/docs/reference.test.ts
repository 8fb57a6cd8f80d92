import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appHeaders, startTestServer, type TestServer } from '../helpers/server.js';

const root = join(import.meta.dirname, '..', '..');
const redocBundle = join(dirname(createRequire(import.meta.url).resolve('redoc/package.json')), 'bundles', 'redoc.standalone.js');

/** helmet 8's default policy, written out: any change to what every other response gets fails here. */
const STRICT_CSP =
  "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';img-src 'self' data:;" +
  "object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' https: 'unsafe-inline';upgrade-insecure-requests";
/** What the API reference page gets (server/http/docs.ts says why each directive). */
const DOCS_CSP =
  "default-src 'none';script-src 'self';script-src-attr 'none';style-src 'unsafe-inline';img-src data:;connect-src 'self';" +
  "worker-src blob:;base-uri 'none';form-action 'none';frame-ancestors 'self';object-src 'none'";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const get = (path: string) => fetch(new URL(path, server.url));

async function bundleUrl(): Promise<string> {
  const html = await (await get('/docs')).text();
  const src = /<script src="([^"]+)"><\/script>/.exec(html)?.[1];
  expect(src).toBeDefined();
  return src!;
}

/** A GET with a body, which fetch refuses to send. */
function getWithBody(path: string): Promise<{ status: number; body: string }> {
  const body = '{"data":{}}';
  const headers = { 'content-type': 'application/json', 'content-length': String(body.length) };
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, server.url), { method: 'GET', headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('GET /openapi.json', () => {
  it('serves the checked-in document byte for byte, as JSON, without credentials', async () => {
    const res = await get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(join(root, 'openapi', 'openapi.json')))).toBe(true);
  });

  it('has an ETag, so a page view revalidates with a 304 instead of downloading it again', async () => {
    const etag = (await get('/openapi.json')).headers.get('etag');
    expect(etag).toMatch(/^"[\w-]{27}"$/);
    const again = await fetch(new URL('/openapi.json', server.url), { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const stale = await fetch(new URL('/openapi.json', server.url), { headers: { 'if-none-match': '"other"' } });
    expect(stale.status).toBe(200);
  });
});

describe('GET /docs', () => {
  it('is an HTML page that points Redoc at /openapi.json and at a bundle this server serves', async () => {
    const res = await get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    expect(html).toContain('<title>Collab Backend REST interface — API reference</title>');
    expect(html).toMatch(/<redoc spec-url="\/openapi.json"[^>]*><\/redoc>/);
    expect(await bundleUrl()).toBe('/docs/assets/redoc-2.5.4.standalone.js');
    // No absolute or protocol-relative URL: everything the page names is on this origin.
    expect(html).not.toMatch(/(https?:)?\/\//i);
  });

  it('serves the Redoc bundle from node_modules, cacheable for a year', async () => {
    const res = await get(await bundleUrl());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/javascript; charset=UTF-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(redocBundle))).toBe(true);
  });

  it('serves nothing else under /docs/assets', async () => {
    for (const path of ['/docs/assets/redoc.standalone.js', '/docs/assets/redoc.standalone.js.LICENSE.txt', '/docs/assets/redoc-2.5.4.standalone.js.map']) {
      const res = await get(path);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: { status: string } }).error.status).toBe('NOT_FOUND');
    }
  });

  it('answers POST with the NOT_FOUND envelope and refuses a body on GET, like every other GET route', async () => {
    for (const path of ['/docs', '/openapi.json']) {
      const post = await server.post(path, { data: {} });
      expect([post.status, post.body]).toEqual([404, { error: { message: `no operation at ${path}`, status: 'NOT_FOUND' } }]);
      expect(await getWithBody(path)).toEqual({
        status: 400,
        body: JSON.stringify({ error: { message: `GET ${path} takes no request body`, status: 'INVALID_ARGUMENT' } }),
      });
    }
  });
});

describe('content security policy', () => {
  it('is relaxed for the reference page and its bundle only', async () => {
    expect((await get('/docs')).headers.get('content-security-policy')).toBe(DOCS_CSP);
    expect((await get(await bundleUrl())).headers.get('content-security-policy')).toBe(DOCS_CSP);
  });

  it("stays helmet's strict default on operations, errors, the JWKS and the document itself", async () => {
    const ws = await server.workspace();
    const operation = await server.post('/v2/workspace/activityconfig/get', { data: {} }, appHeaders(ws));
    expect(operation.status).toBe(200);
    expect(operation.headers.get('content-security-policy')).toBe(STRICT_CSP);
    const unknown = await server.post('/v2/no/such/operation', { data: {} });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-security-policy')).toBe(STRICT_CSP);
    for (const path of ['/openapi.json', '/.well-known/jwks.json', '/docs/other']) {
      expect((await get(path)).headers.get('content-security-policy')).toBe(STRICT_CSP);
    }
  });
});
