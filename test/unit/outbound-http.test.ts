import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../server/lib/app-error.js';
import { OutboundError, addressRange, assertAllowedUrl, isBlockedAddress, postJson } from '../../server/lib/outbound-http.js';
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
    'http://[::ffff:0:7f00:1]/', // SIIT IPv4-translated 127.0.0.1
    'http://[64:ff9b::a00:1]/', // NAT64 of 10.0.0.1
    'http://[64:ff9b::a9fe:a9fe]/', // NAT64 of 169.254.169.254
    'http://[2002:7f00:1::]/', // 6to4 through 127.0.0.1
    'http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/', // Teredo (server 65.54.227.120, client 10.0.0.1)
    'http://[::7f00:1]/', // IPv4-compatible 127.0.0.1
    'http://[::808:808]/', // IPv4-compatible 8.8.8.8: the whole block is deprecated
    'http://192.88.99.1/', // 6to4 relay anycast
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

});

describe('address classification', () => {
  it.each([
    // IPv4: only unicast passes.
    ['8.8.8.8', 'unicast', false],
    ['172.32.0.1', 'unicast', false],
    ['100.128.0.1', 'unicast', false],
    ['0.0.0.0', 'unspecified', true],
    ['0.1.2.3', 'unspecified', true],
    ['10.1.2.3', 'private', true],
    ['172.31.255.255', 'private', true],
    ['192.168.0.1', 'private', true],
    ['100.64.0.1', 'carrierGradeNat', true],
    ['127.0.0.1', 'loopback', true],
    ['169.254.169.254', 'linkLocal', true],
    ['192.0.0.8', 'reserved', true],
    ['192.0.2.1', 'reserved', true],
    ['192.88.99.1', 'reserved', true], // 6to4 relay anycast
    ['198.18.0.1', 'reserved', true],
    ['203.0.113.9', 'reserved', true],
    ['224.0.0.1', 'multicast', true],
    ['240.0.0.1', 'reserved', true],
    ['255.255.255.255', 'broadcast', true],
    ['192.31.196.1', 'as112', true],
    ['192.52.193.1', 'amt', true],
    // IPv6 unicast and the plain special ranges.
    ['2001:4860:4860::8888', 'unicast', false],
    ['2606:4700::1111', 'unicast', false],
    ['::', 'unspecified', true],
    ['::1', 'loopback', true],
    ['fe80::1', 'linkLocal', true],
    ['fe80::1%eth0', 'linkLocal', true],
    ['fd00::1', 'uniqueLocal', true],
    ['fec0::1', 'deprecatedSiteLocal', true],
    ['ff02::1', 'multicast', true],
    ['100::1', 'discard', true],
    ['2001:db8::1', 'reserved', true],
    // IPv4 carried in IPv6: mapped and NAT64 are judged by the IPv4 address...
    ['::ffff:8.8.8.8', 'ipv4Mapped:unicast', false],
    ['::ffff:10.1.2.3', 'ipv4Mapped:private', true],
    ['::ffff:127.0.0.1', 'ipv4Mapped:loopback', true],
    ['::ffff:7f00:1', 'ipv4Mapped:loopback', true],
    ['::ffff:169.254.169.254', 'ipv4Mapped:linkLocal', true],
    ['::ffff:192.88.99.1', 'ipv4Mapped:reserved', true],
    ['64:ff9b::8.8.8.8', 'nat64:unicast', false],
    ['64:ff9b::10.0.0.1', 'nat64:private', true],
    ['64:ff9b::7f00:1', 'nat64:loopback', true],
    ['64:ff9b::a9fe:a9fe', 'nat64:linkLocal', true],
    // ...the other forms are refused whatever they carry.
    ['64:ff9b:1::a00:1', 'rfc6052', true], // local-use NAT64: where the IPv4 sits depends on the prefix length
    ['::ffff:0:7f00:1', 'rfc6145', true],
    ['::ffff:0:808:808', 'rfc6145', true],
    ['2002:7f00:1::1', '6to4', true],
    ['2002:808:808::1', '6to4', true],
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'teredo', true],
    ['::7f00:1', 'ipv4Compatible', true],
    ['::8.8.8.8', 'ipv4Compatible', true],
    // Not canonical addresses: refused rather than guessed at.
    ['not-an-ip', 'invalid', true],
    ['0x7f.1', 'invalid', true],
    ['2130706433', 'invalid', true],
    ['', 'invalid', true],
  ] as const)('%s is %s (blocked: %s)', (address, range, blocked) => {
    expect(addressRange(address)).toBe(range);
    expect(isBlockedAddress(address)).toBe(blocked);
  });
});

describe('what callers are told', () => {
  it('a refused URL names the host given, not what it resolved to; the log gets the address', async () => {
    const logged: object[] = [];
    const log = { warn: (detail: object) => void logged.push(detail) };
    const error = await appError(assertAllowedUrl('http://localhost:8080/x', { allowPrivate: false, log }));
    expect(error.message).toMatch(/^URL host localhost is, or resolves to, an address that is not publicly routable/);
    expect(error.message).not.toMatch(/127\.0\.0\.1|::1|8080/);
    expect(logged).toEqual([expect.objectContaining({ host: 'localhost', address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/) })]);
  });

  it('a failed connection reveals no address, port or socket code; the detail has them', async () => {
    const target = await receiver(() => {});
    await closeReceivers();
    const error = await outboundError(postJson(target.url, {}, { timeoutMs: 2000, allowPrivate: true }));
    expect(error.message).toBe('could not connect, or the connection broke');
    expect(error.detail).toMatchObject({ code: 'ECONNREFUSED', port: target.port });
  });

  it('a refusal at connect time reveals no resolved address', async () => {
    const target = await receiver((_req, res) => res.end('{}'));
    const error = await outboundError(postJson(`http://localhost:${target.port}/`, {}, { timeoutMs: 2000, allowPrivate: false }));
    expect(error.kind).toBe('blocked');
    expect(error.message).not.toMatch(/127\.0\.0\.1|::1/);
    expect(error.detail).toMatchObject({ host: 'localhost', address: expect.any(String) });
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
