import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config.js';
import { postFrom } from '../helpers/post-from.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';

/**
 * The client address that per-address limits count against (TRUST_PROXY,
 * server/http/trust-proxy.ts), seen through the failed-authentication limit:
 * the TCP peer unless the peer is a trusted proxy, and a valid credential is
 * never refused whatever its address has failed.
 */

const PATH = '/v2/workspace/activityconfig/get';
const LIMIT = '3';
const WRONG = { 'x-service-api-key': 'ak_wrong', 'x-service-auth-token': 'at_wrong' };

async function statuses(server: TestServer, count: number, from: string, headers: (i: number) => Record<string, string>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push(await postFrom(server.url, PATH, from, headers(i)));
  return out;
}

describe('without TRUST_PROXY (the default)', () => {
  let server: TestServer;
  let ws: WorkspaceCredentials;
  beforeAll(async () => {
    server = await startTestServer({ AUTH_FAILURE_LIMIT_PER_IP: LIMIT });
    ws = await server.workspace();
  });
  afterAll(() => server?.close());

  it('a burst of failures refuses only the failures of that address; valid credentials from it and from another address pass', async () => {
    expect(await statuses(server, 4, '127.0.10.1', () => WRONG)).toEqual([403, 403, 403, 429]);
    expect(await statuses(server, 3, '127.0.10.1', () => appHeaders(ws))).toEqual([200, 200, 200]);
    expect(await statuses(server, 2, '127.0.10.2', () => appHeaders(ws))).toEqual([200, 200]);
    // The other address has a counter of its own.
    expect(await statuses(server, 1, '127.0.10.2', () => WRONG)).toEqual([403]);
  });

  it('ignores X-Forwarded-For: a forged address per request still counts against the peer', async () => {
    const forged = (i: number) => ({ ...WRONG, 'x-forwarded-for': `203.0.113.${i + 1}` });
    expect(await statuses(server, 4, '127.0.11.1', forged)).toEqual([403, 403, 403, 429]);
    expect(await statuses(server, 1, '127.0.11.1', () => appHeaders(ws))).toEqual([200]);
  });
});

describe('TRUST_PROXY naming the proxy (loopback)', () => {
  let server: TestServer;
  let ws: WorkspaceCredentials;
  beforeAll(async () => {
    server = await startTestServer({ AUTH_FAILURE_LIMIT_PER_IP: LIMIT, TRUST_PROXY: 'loopback' });
    ws = await server.workspace();
  });
  afterAll(() => server?.close());

  it('counts against the client the proxy names, not against the proxy', async () => {
    const from = (client: string) => () => ({ ...WRONG, 'x-forwarded-for': client });
    expect(await statuses(server, 4, '127.0.12.1', from('203.0.113.7'))).toEqual([403, 403, 403, 429]);
    // Another client behind the same proxy is not refused…
    expect(await statuses(server, 1, '127.0.12.1', from('203.0.113.8'))).toEqual([403]);
    // …and the refused client's valid credentials pass.
    expect(await statuses(server, 1, '127.0.12.1', () => ({ ...appHeaders(ws), 'x-forwarded-for': '203.0.113.7' }))).toEqual([200]);
  });
});

describe.each([
  {
    trustProxy: '1',
    what: 'as a hop count, takes the address the nearest proxy appended; what the client wrote before it changes nothing',
    forwardedFor: (i: number) => `198.51.100.${i + 1}, 203.0.113.9`,
  },
  {
    trustProxy: '10.0.0.0/8',
    what: 'naming other proxies than the peer, ignores the header of the peer it does not trust',
    forwardedFor: (i: number) => `203.0.113.${i + 20}`,
  },
])('TRUST_PROXY=$trustProxy', ({ trustProxy, what, forwardedFor }) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ AUTH_FAILURE_LIMIT_PER_IP: LIMIT, TRUST_PROXY: trustProxy });
  });
  afterAll(() => server?.close());

  it(what, async () => {
    expect(await statuses(server, 4, '127.0.13.1', (i) => ({ ...WRONG, 'x-forwarded-for': forwardedFor(i) }))).toEqual([403, 403, 403, 429]);
  });
});

describe('a TRUST_PROXY the server cannot use', () => {
  it.each([
    ['true', /TRUST_PROXY=true would trust every peer/],
    ['10.0.0.0/40', /TRUST_PROXY must be a number of proxies or a comma-separated list .*"10\.0\.0\.0\/40"/],
    ['proxy.internal', /"proxy\.internal"/],
    ['101', /TRUST_PROXY must be a number of proxies from 0 to 100/],
  ])('%s: refused at start with a one-line reason', (value, message) => {
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(ConfigError);
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(message);
  });

  it.each([
    ['', false],
    ['0', false],
    ['false', false],
    ['2', 2],
    ['10.0.0.0/8, loopback,192.168.1.7,fd00::/8,10.1.0.0/255.255.0.0', ['10.0.0.0/8', 'loopback', '192.168.1.7', 'fd00::/8', '10.1.0.0/255.255.0.0']],
  ])('%j is taken as %j', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });
});
