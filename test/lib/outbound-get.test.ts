import type { ServerResponse } from 'node:http';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { OutboundError, getResource, type GetResourceOptions } from '../../server/lib/outbound-http.js';
import { closeReceivers, startReceiver, type Received } from '../helpers/receiver.js';

afterEach(closeReceivers);

// The receiver listens on 127.0.0.1, which the guard refuses: tests of everything but the guard allow private addresses.
const local: GetResourceOptions = { allowPrivate: true, timeoutMs: 5_000, maxBytes: 1024 * 1024 };

async function outboundError(promise: Promise<unknown>): Promise<OutboundError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OutboundError);
  return error as OutboundError;
}

/** A receiver on port 0 that answers by path; its base URL without the receiver's default path. */
async function site(routes: Record<string, (req: Received, res: ServerResponse) => void>) {
  const receiver = await startReceiver((req, res) => {
    const route = routes[req.path ?? ''];
    if (route) route(req, res);
    else res.writeHead(404).end('not found');
  });
  return { ...receiver, base: `http://127.0.0.1:${receiver.port}` };
}

const html = (body: string) => (_req: Received, res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
const redirect = (status: number, location: string) => (_req: Received, res: ServerResponse) => res.writeHead(status, { location }).end();

describe('getResource', () => {
  it('answers status, media type, text and bytes, and sends the caller headers', async () => {
    const { base, received } = await site({ '/page': html('<p>héllo</p>') });
    const result = await getResource(`${base}/page`, { ...local, headers: { 'user-agent': 'collab-agent-test' } });
    expect(result).toMatchObject({ status: 200, contentType: 'text/html', text: '<p>héllo</p>', finalUrl: `${base}/page`, truncated: false, redirects: [] });
    expect(result.body.equals(Buffer.from('<p>héllo</p>'))).toBe(true);
    expect(received[0]?.headers['user-agent']).toBe('collab-agent-test');
    expect(received[0]?.headers['accept-encoding']).toBe('gzip, deflate, br');
  });

  it('follows a chain of redirects, relative and absolute', async () => {
    const chain = await site({
      '/a': redirect(302, '/b?x=1'),
      '/b?x=1': (_req, res) => res.writeHead(301, { location: `${chain.base}/c#frag` }).end(),
      '/c': redirect(307, 'd'),
      '/d': html('end'),
    });
    const result = await getResource(`${chain.base}/a`, local);
    expect(result.status).toBe(200);
    expect(result.text).toBe('end');
    expect(result.redirects).toEqual([`${chain.base}/b?x=1`, `${chain.base}/c`, `${chain.base}/d`]);
    expect(result.finalUrl).toBe(`${chain.base}/d`);
  });

  it('fails past maxRedirects on a redirect loop', async () => {
    const { base, received } = await site({ '/loop': redirect(302, '/loop') });
    const error = await outboundError(getResource(`${base}/loop`, { ...local, maxRedirects: 3 }));
    expect(error.kind).toBe('network');
    expect(error.message).toBe('more than 3 redirects');
    expect(received).toHaveLength(4);
  });

  it('returns a 3xx without Location as it is', async () => {
    const { base } = await site({ '/odd': (_req, res) => res.writeHead(302).end('no location') });
    const result = await getResource(`${base}/odd`, local);
    expect(result.status).toBe(302);
    expect(result.text).toBe('no location');
  });

  it('hands a redirect back unfollowed with followRedirects false: its status and Location, no body read', async () => {
    const { base, received } = await site({ '/a': (_req, res) => res.writeHead(302, { location: '/b', 'set-cookie': 'k=1' }).end('moved'), '/b': html('end') });
    const result = await getResource(`${base}/a`, { ...local, followRedirects: false });
    expect(result).toMatchObject({ status: 302, finalUrl: `${base}/a`, redirects: [], text: '' });
    expect(result.headers).toMatchObject({ location: '/b', 'set-cookie': ['k=1'] });
    expect(received.map((request) => request.path)).toEqual(['/a']);
    // An answer that is not a redirect comes back as ever.
    expect(await getResource(`${base}/b`, { ...local, followRedirects: false })).toMatchObject({ status: 200, text: 'end' });
  });

  it('refuses a redirect to a scheme other than http and https', async () => {
    const { base } = await site({ '/file': redirect(302, 'file:///etc/passwd') });
    const error = await outboundError(getResource(`${base}/file`, local));
    expect(error.kind).toBe('invalid_request');
  });

  it('refuses a private address without allowPrivate, an IP literal before connecting and a host name at lookup', async () => {
    const { port, received } = await site({ '/': html('secret') });
    for (const url of [`http://127.0.0.1:${port}/`, `http://localhost:${port}/`, 'http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/']) {
      const error = await outboundError(getResource(url, { ...local, allowPrivate: false, timeoutMs: 2_000 }));
      expect(error.kind, url).toBe('blocked');
      expect(error.message).toContain('WEBHOOK_ALLOW_PRIVATE_URLS');
    }
    expect(received).toHaveLength(0);
  });

  it('keeps the caller headers from a redirect to another origin', async () => {
    const other = await site({ '/landing': html('landed') });
    // localhost and 127.0.0.1 are different origins on the same machine.
    const first = await site({ '/go': redirect(302, `http://localhost:${other.port}/landing`) });
    const result = await getResource(`${first.base}/go`, { ...local, headers: { 'x-api-key': 'k-123', 'user-agent': 'ua' } });
    expect(result.text).toBe('landed');
    expect(first.received[0]?.headers['x-api-key']).toBe('k-123');
    expect(other.received[0]?.headers['x-api-key']).toBeUndefined();
    expect(other.received[0]?.headers['user-agent']).toBe('ua');
  });

  it('times out on a server that does not answer', async () => {
    const { base } = await site({ '/slow': () => {} });
    const error = await outboundError(getResource(`${base}/slow`, { ...local, timeoutMs: 150 }));
    expect(error.kind).toBe('timeout');
  });

  it('refuses a body past maxBytes, or cuts it with truncate', async () => {
    const big = 'x'.repeat(10_000);
    const { base } = await site({
      '/big': html(big),
      '/chunked': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write(big);
        res.end(big);
      },
    });
    expect((await outboundError(getResource(`${base}/big`, { ...local, maxBytes: 1000 }))).kind).toBe('too_large');
    expect((await outboundError(getResource(`${base}/chunked`, { ...local, maxBytes: 15_000 }))).kind).toBe('too_large');
    const cut = await getResource(`${base}/big`, { ...local, maxBytes: 1000, truncate: true });
    expect(cut.truncated).toBe(true);
    expect(cut.text).toBe('x'.repeat(1000));
  });

  it('stops when the signal is aborted', async () => {
    let arrived!: () => void;
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    const { base } = await site({ '/hang': () => arrived() });
    const controller = new AbortController();
    const pending = getResource(`${base}/hang`, { ...local, signal: controller.signal });
    await arrival;
    controller.abort();
    expect((await outboundError(pending)).kind).toBe('aborted');
    expect((await outboundError(getResource(`${base}/hang`, { ...local, signal: controller.signal }))).kind).toBe('aborted');
  });

  it('decompresses gzip and brotli bodies, and caps the decompressed size', async () => {
    const text = 'compressed page '.repeat(500);
    const { base } = await site({
      '/gz': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(gzipSync(text)),
      '/br': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'br' }).end(brotliCompressSync(text)),
      '/bad': (_req, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end('not gzip at all'),
    });
    expect((await getResource(`${base}/gz`, local)).text).toBe(text);
    expect((await getResource(`${base}/br`, local)).text).toBe(text);
    // 8 KB compress to far fewer bytes: the cap is of what we decode.
    expect((await outboundError(getResource(`${base}/gz`, { ...local, maxBytes: 4000 }))).kind).toBe('too_large');
    expect((await getResource(`${base}/gz`, { ...local, maxBytes: 4000, truncate: true })).text).toBe(text.slice(0, 4000));
    expect((await outboundError(getResource(`${base}/bad`, local))).kind).toBe('network');
  });

  it('reads only the headers with HEAD', async () => {
    const { base, received } = await site({ '/h': html('body') });
    const result = await getResource(`${base}/h`, { ...local, method: 'HEAD' });
    expect(result.status).toBe(200);
    expect(result.text).toBe('');
    expect(received[0]?.method).toBe('HEAD');
  });
});
