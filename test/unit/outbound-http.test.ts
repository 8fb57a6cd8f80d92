import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../server/lib/app-error.js';
import { OutboundError, assertAllowedUrl, isBlockedAddress, postJson } from '../../server/lib/outbound-http.js';
import { closeReceivers, startReceiver, type Received } from '../helpers/receiver.js';

const receiver = (handle: (req: Received, res: ServerResponse) => void) => startReceiver(handle);

afterEach(closeReceivers);

async function outboundError(promise: Promise<unknown>): Promise<OutboundError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OutboundError);
  return error as OutboundError;
}

async function appError(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('assertAllowedUrl', () => {
  it.each([
    'http://127.0.0.1/',
    'http://127.1.2.3:8080/x',
    'http://localhost/',
    'http://10.0.0.1/',
    'http://172.16.5.4/',
    'http://192.168.1.1/',
    'http://100.64.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://0.0.0.0/',
    'http://224.0.0.1/',
    'http://255.255.255.255/',
    'http://[::1]/',
    'http://[::]/',
    'http://[fd00::1]/',
    'http://[fe80::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:169.254.169.254]/',
    'http://2130706433/', // 127.0.0.1 spelled as one number
    'http://0x7f.1/',
  ])('refuses %s', async (url) => {
    const error = await appError(assertAllowedUrl(url, { allowPrivate: false }));
    expect(error.status).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain('WEBHOOK_ALLOW_PRIVATE_URLS');
  });

  it.each([
    ['ftp://example.com/', 'scheme'],
    ['file:///etc/passwd', 'scheme'],
    ['http://user:pass@example.com/', 'credentials'],
    ['http://user@example.com/', 'credentials'],
    ['not a url', 'not a valid URL'],
  ])('refuses %s (%s)', async (url, reason) => {
    const error = await appError(assertAllowedUrl(url, { allowPrivate: true }));
    expect(error.status).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain(reason);
  });

  it('refuses a host that does not resolve', async () => {
    const error = await appError(assertAllowedUrl('https://no-such-host.invalid/', { allowPrivate: false }));
    expect(error.status).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain('does not resolve');
  });

  it('accepts public addresses and, when allowed, private ones', async () => {
    await expect(assertAllowedUrl('https://8.8.8.8/x', { allowPrivate: false })).resolves.toBeInstanceOf(URL);
    await expect(assertAllowedUrl('http://[2606:4700::1111]/', { allowPrivate: false })).resolves.toBeInstanceOf(URL);
    const url = await assertAllowedUrl('http://127.0.0.1:3000/p', { allowPrivate: true });
    expect(url.href).toBe('http://127.0.0.1:3000/p');
  });

  it('classifies addresses', () => {
    expect(isBlockedAddress('172.31.255.255')).toBe(true);
    expect(isBlockedAddress('172.32.0.1')).toBe(false);
    expect(isBlockedAddress('100.128.0.1')).toBe(false);
    expect(isBlockedAddress('fe80::1%eth0')).toBe(true);
    expect(isBlockedAddress('::ffff:10.1.2.3')).toBe(true);
    expect(isBlockedAddress('::ffff:8.8.8.8')).toBe(false);
    expect(isBlockedAddress('2001:4860:4860::8888')).toBe(false);
    expect(isBlockedAddress('not-an-ip')).toBe(true);
  });
});

describe('postJson', () => {
  it('posts JSON and returns the parsed answer', async () => {
    const target = await receiver((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ok: true }));
    });
    const result = await postJson(target.url, { hello: 'wörld' }, {
      headers: { authorization: 'Bearer t0k' },
      timeoutMs: 2000,
      allowPrivate: true,
    });
    expect(result).toEqual({ status: 200, body: { ok: true }, text: '{"ok":true}' });
    const [request] = target.received;
    expect(request?.method).toBe('POST');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers.authorization).toBe('Bearer t0k');
    expect(request?.body).toBe('{"hello":"wörld"}');
  });

  it('returns a non-JSON body as text with body undefined', async () => {
    const target = await receiver((_req, res) => res.writeHead(502).end('<html>bad gateway</html>'));
    const result = await postJson(target.url, {}, { timeoutMs: 2000, allowPrivate: true });
    expect(result).toEqual({ status: 502, body: undefined, text: '<html>bad gateway</html>' });
  });

  it('does not follow redirects', async () => {
    const elsewhere = await receiver((_req, res) => res.end('{}'));
    const target = await receiver((_req, res) => res.writeHead(307, { location: elsewhere.url }).end());
    const result = await postJson(target.url, {}, { timeoutMs: 2000, allowPrivate: true });
    expect(result.status).toBe(307);
    expect(elsewhere.received).toHaveLength(0);
  });

  it('times out when the receiver never answers', async () => {
    const target = await receiver(() => {});
    const error = await outboundError(postJson(target.url, {}, { timeoutMs: 200, allowPrivate: true }));
    expect(error.kind).toBe('timeout');
  });

  it('times out when the answer stalls half-way', async () => {
    const target = await receiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data":');
    });
    const error = await outboundError(postJson(target.url, {}, { timeoutMs: 200, allowPrivate: true }));
    expect(error.kind).toBe('timeout');
  });

  it('refuses an answer larger than the cap, declared or streamed', async () => {
    const declared = await receiver((_req, res) => res.end('x'.repeat(2000)));
    const streamed = await receiver((_req, res) => {
      res.write('x'.repeat(600));
      res.end('x'.repeat(600)); // chunked: no content-length to go by
    });
    for (const target of [declared, streamed]) {
      const error = await outboundError(
        postJson(target.url, {}, { timeoutMs: 2000, allowPrivate: true, maxResponseBytes: 1000 }),
      );
      expect(error.kind).toBe('too_large');
    }
  });

  it('caps at 1 MiB by default', async () => {
    const target = await receiver((_req, res) => res.end(Buffer.alloc(1024 * 1024 + 1, 0x20)));
    const error = await outboundError(postJson(target.url, {}, { timeoutMs: 5000, allowPrivate: true }));
    expect(error.kind).toBe('too_large');
  });

  it('reports a refused connection as a network error', async () => {
    const target = await receiver(() => {});
    await closeReceivers();
    const error = await outboundError(postJson(target.url, {}, { timeoutMs: 2000, allowPrivate: true }));
    expect(error.kind).toBe('network');
  });

  it('refuses loopback at connect time when private addresses are not allowed', async () => {
    const target = await receiver((_req, res) => res.end('{}'));
    // By name, so the check happens in the connect-time lookup, and by literal.
    for (const url of [`http://localhost:${target.port}/hook`, target.url, `http://[::ffff:127.0.0.1]:${target.port}/`]) {
      const error = await outboundError(postJson(url, {}, { timeoutMs: 2000, allowPrivate: false }));
      expect(error.kind).toBe('blocked');
      expect(error.message).toContain('WEBHOOK_ALLOW_PRIVATE_URLS');
    }
    expect(target.received).toHaveLength(0);
  });

  it('refuses unusable URLs and headers without sending anything', async () => {
    for (const url of ['ftp://example.com/', 'http://u:p@example.com/']) {
      const error = await outboundError(postJson(url, {}, { timeoutMs: 2000, allowPrivate: true }));
      expect(error.kind).toBe('invalid_request');
    }
    const target = await receiver((_req, res) => res.end('{}'));
    const error = await outboundError(
      postJson(target.url, {}, { headers: { authorization: 'Bearer a\r\nx-injected: 1' }, timeoutMs: 2000, allowPrivate: true }),
    );
    expect(error.kind).toBe('invalid_request');
    expect(target.received).toHaveLength(0);
  });
});
