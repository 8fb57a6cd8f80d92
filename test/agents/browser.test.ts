import dns from 'node:dns';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { syncBuiltinESMExports } from 'node:module';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { Request, Route } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { browserRunning, closeBrowser, createRequestGuard, MAX_PARALLEL_FETCHES, visitPage, type BrowserError, type MainDocumentHooks } from '../../server/domains/agents/run/browser.js';
import { MAX_SCREENSHOT_HEIGHT } from '../../server/domains/agents/run/browser-strategies.js';
import { BROWSER_STRATEGIES, gatherContext } from '../../server/domains/agents/run/context.js';
import { runStages } from '../../server/domains/agents/run/stages.js';
import { localFetch } from './site.js';

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const missing = existsSync(executablePath) ? undefined : `no Chromium at ${executablePath} (apt-get install -y chromium, or set CHROMIUM_PATH)`;
if (missing) console.warn(`test/agents/browser.test.ts: the tests in Chromium skipped: ${missing}`);

/**
 * A page with known styles and known accessibility faults: an image
 * without alt text (axe's image-alt), a button without a name
 * (button-name) and grey on white (color-contrast).
 */
const PAGE = `<!doctype html><html lang="en"><head><title>Shop</title><style>
  body { margin: 0; font-family: serif }
  h1 { color: rgb(10, 20, 30); font-size: 40px; margin: 0px; padding: 4px }
  .faint { color: #ccc; background-color: #fff }
</style></head><body><main><h1>Welcome</h1><img src="/pic.png"><button></button><p class="faint">Hardly readable</p><div style="height: 1200px"></div></main></body></html>`;

/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

/** Evaluated in the page (no DOM types here): each image's id and natural width, 0 when it did not load. */
const IMAGE_WIDTHS = 'Object.fromEntries([...document.images].map((image) => [image.id, image.naturalWidth]))';

const html = (res: ServerResponse, body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(body);

/** A page whose script writes what it met into the title. */
const scripted = (script: string) => `<!doctype html><html lang="en"><title>waiting</title><body><h1>Scripted</h1><script>${script}</script></body></html>`;

interface Site {
  base: string;
  port: number;
  userAgents: string[];
  /** Every request, in order. */
  requests: Array<{ method: string; path: string; headers: IncomingHttpHeaders }>;
  /** WebSocket upgrades asked for. */
  upgrades: number;
  /** Requests to /hold, answered by release(). */
  held: ServerResponse[];
  server: Server;
}

async function startPages(): Promise<Site> {
  const site: Site = { base: '', port: 0, userAgents: [], requests: [], upgrades: 0, held: [], server: createServer() };
  const routes: Record<string, (res: ServerResponse) => void> = {
    '/': (res) => html(res, PAGE),
    '/tall': (res) => html(res, '<!doctype html><html lang="en"><title>Tall</title><body><div style="height: 20000px">Long</div></body></html>'),
    '/slow': () => site.server.emit('slow'), // never answers
    '/hold': (res) => void site.held.push(res),
    '/moved': (res) => res.writeHead(302, { location: '/', 'set-cookie': 'moved=1; Path=/' }).end(),
    '/moved-out': (res) => res.writeHead(302, { location: `http://user:pw@127.0.0.1:${site.port}/` }).end(),
    '/moved-to-file': (res) => res.writeHead(302, { location: 'file:///etc/passwd' }).end(),
    '/loop': (res) => res.writeHead(302, { location: '/loop' }).end(),
    '/rich': (res) =>
      html(
        res,
        '<!doctype html><html lang="en"><head><title>Rich</title><link rel="stylesheet" href="/style.css"></head><body><h1>Rich</h1>' +
          '<img id="moved" src="/img/old"><img id="direct" src="/img.png"><img id="out" src="/img/out"><img id="file" src="/img/file"><script src="/app.js"></script></body></html>',
      ),
    '/style.css': (res) => res.writeHead(200, { 'content-type': 'text/css' }).end('h1 { color: rgb(1, 2, 3) }'),
    '/app.js': (res) => res.writeHead(200, { 'content-type': 'text/javascript', 'content-encoding': 'gzip' }).end(gzipSync('document.title = "script ran";')),
    '/img.png': (res) => res.writeHead(200, { 'content-type': 'image/png' }).end(PNG),
    '/img/old': (res) => res.writeHead(301, { location: '/img.png' }).end(),
    '/img/out': (res) => res.writeHead(302, { location: `http://user:pw@127.0.0.1:${site.port}/img.png` }).end(),
    '/img/file': (res) => res.writeHead(302, { location: 'file:///etc/passwd' }).end(),
    '/inline': (res) =>
      html(
        res,
        `<!doctype html><html lang="en"><title>Inline</title><img id="data" src="data:image/png;base64,${PNG.toString('base64')}"><img id="blob">` +
          `<script>const bytes = Uint8Array.from(atob('${PNG.toString('base64')}'), (c) => c.charCodeAt(0)); document.getElementById('blob').src = URL.createObjectURL(new Blob([bytes], { type: 'image/png' }));</script>`,
      ),
    '/big': (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(4096)),
    '/post': (res) => html(res, scripted(`fetch('/sink', { method: 'POST', body: 'form=1' }).then(() => 'sent', () => 'refused').then((r) => { document.title = r; });`)),
    '/socket': (res) =>
      html(res, scripted(`const ws = new WebSocket('ws://' + location.host + '/ws'); ws.onclose = (e) => { document.title = 'closed ' + e.code; };`)),
  };
  site.server.on('request', (req, res) => {
    site.userAgents.push(req.headers['user-agent'] ?? '');
    site.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers });
    const route = routes[req.url ?? ''];
    if (route) route(res);
    else res.writeHead(404, { 'content-type': 'text/html' }).end('<!doctype html><title>Missing</title><p>No such page');
  });
  site.server.on('upgrade', (_req, socket) => {
    site.upgrades += 1;
    socket.destroy();
  });
  site.server.listen(0, '127.0.0.1');
  await once(site.server, 'listening');
  site.port = (site.server.address() as AddressInfo).port;
  site.base = `http://127.0.0.1:${site.port}`;
  return site;
}

/**
 * Answers of the server's DNS lookups for some names: `check` for
 * dns.promises.lookup (assertAllowedUrl, the check before fetching),
 * `connect` for dns.lookup (what Node connects to, guardedLookup
 * included). Chromium's own resolver is not touched.
 */
function stubDns(answers: { check?: Record<string, string>; connect?: Record<string, string> }): void {
  const realLookup = dns.lookup;
  const realPromisesLookup = dns.promises.lookup;
  const entry = (address: string) => ({ address, family: address.includes(':') ? 6 : 4 });
  dns.lookup = ((host: string, ...rest: unknown[]) => {
    const address = answers.connect?.[host];
    if (address === undefined) return (realLookup as (...args: unknown[]) => void)(host, ...rest);
    const options = (typeof rest[0] === 'object' ? rest[0] : {}) as { all?: boolean };
    const callback = rest.at(-1) as (error: null, address: unknown, family?: number) => void;
    process.nextTick(() => (options.all ? callback(null, [entry(address)]) : callback(null, address, entry(address).family)));
  }) as typeof dns.lookup;
  dns.promises.lookup = (async (host: string, options?: unknown) => {
    const address = answers.check?.[host];
    if (address === undefined) return realPromisesLookup(host, options as never);
    return (options as { all?: boolean } | undefined)?.all ? [entry(address)] : entry(address);
  }) as typeof dns.promises.lookup;
  // outbound-http imports `lookup` from node:dns by name: its binding follows this.
  syncBuiltinESMExports();
  restoreDns = () => {
    dns.lookup = realLookup;
    dns.promises.lookup = realPromisesLookup;
    syncBuiltinESMExports();
  };
}
let restoreDns = () => {};
afterEach(() => {
  restoreDns();
  restoreDns = () => {};
});

let site: Site;
beforeAll(async () => {
  site = await startPages();
});
afterAll(async () => {
  await closeBrowser();
  site.server.closeAllConnections();
  site.server.close();
});

describe('without a browser', () => {
  it('the browser strategies and services end BROWSER_UNAVAILABLE, pointing to the docs', async () => {
    vi.stubEnv('CHROMIUM_PATH', '/nonexistent/chromium');
    try {
      const context = await gatherContext(`${site.base}/`, [...BROWSER_STRATEGIES, 'web-page-text'], localFetch());
      expect(context.text).toContain('Welcome');
      expect(context.errors.map((error) => [error.strategy, error.code])).toEqual(BROWSER_STRATEGIES.map((strategy) => [strategy, 'BROWSER_UNAVAILABLE']));
      expect(context.errors[0]?.message).toContain('docs/agents.md, "Browser"');
      for (const id of ['screenshot', 'accessibility-checker']) {
        expect(await runStages.service(id, `${site.base}/`, localFetch())).toMatchObject({ error: { code: 'BROWSER_UNAVAILABLE', retryable: false } });
      }
      expect(browserRunning()).toBe(false);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

const LIMITS = { timeoutMs: 3_000, maxBytes: 1024 * 1024 };

/** A route as the guard sees it, recording how it was answered. */
function fakeRoute(url: string, init: { method?: string; headers?: Record<string, string>; main?: boolean } = {}) {
  const calls: Array<['abort', string | undefined] | ['fulfill', { status?: number; headers?: Record<string, string>; body?: string | Buffer }]> = [];
  const request = {
    url: () => url,
    method: () => init.method ?? 'GET',
    allHeaders: async () => init.headers ?? {},
    isNavigationRequest: () => init.main === true,
    frame: () => ({ parentFrame: () => null }),
  } as unknown as Request;
  const fake = {
    request: () => request,
    abort: async (code?: string) => void calls.push(['abort', code]),
    fulfill: async (answer: { status?: number; headers?: Record<string, string>; body?: string | Buffer }) => void calls.push(['fulfill', answer]),
  } as unknown as Pick<Route, 'request' | 'abort' | 'fulfill'>;
  return { fake, calls };
}

function mainHooks() {
  const heard: { failed: BrowserError[]; redirected: string[] } = { failed: [], redirected: [] };
  const hooks: MainDocumentHooks = { failed: (error) => void heard.failed.push(error), redirected: (to) => void heard.redirected.push(to) };
  return { hooks, heard };
}

describe('the request guard', () => {
  it('refuses what the outbound guard refuses, and other schemes, before anything is fetched', async () => {
    const guard = createRequestGuard({ allowPrivate: false, ...LIMITS });
    for (const url of ['http://127.0.0.1/x', 'http://169.254.169.254/latest/meta-data/', 'http://[::1]:8080/', 'http://[::ffff:10.0.0.1]/', 'http://10.1.2.3/', 'file:///etc/passwd', 'ftp://198.51.100.1/', 'http://user:pw@93.184.215.14/']) {
      expect(await guard.refusal(url), url).toBeTypeOf('string');
    }
    expect(await guard.refusal('http://127.0.0.1/x')).toContain('not publicly routable');
    for (const url of ['https://93.184.215.14/', 'data:image/png;base64,AAAA', 'blob:https://93.184.215.14/0f1e']) {
      expect(await guard.refusal(url), url).toBeUndefined();
    }

    const open = createRequestGuard({ allowPrivate: true, ...LIMITS });
    expect(await open.refusal('http://127.0.0.1/x')).toBeUndefined();
    expect(await open.refusal('file:///etc/passwd')).toBeTypeOf('string');
  });

  it('as the route handler: aborts a refused request and tells the main document\'s hooks why', async () => {
    const guard = createRequestGuard({ allowPrivate: false, ...LIMITS });
    const { hooks, heard } = mainHooks();
    const metadata = fakeRoute('http://169.254.169.254/', { main: true });
    await guard.handle(metadata.fake, hooks);
    expect(metadata.calls).toEqual([['abort', 'blockedbyclient']]);
    expect(heard.failed).toMatchObject([{ code: 'BLOCKED_URL', message: expect.stringContaining('not publicly routable') }]);
    // A sub-request's failure is the page's, not the visit's.
    const loopback = fakeRoute('http://127.0.0.1/x');
    await guard.handle(loopback.fake, hooks);
    expect(loopback.calls).toEqual([['abort', 'blockedbyclient']]);
    expect(heard.failed).toHaveLength(1);
  });

  it('refuses at connect time a sub-request whose host rebinds to a private address after the check', async () => {
    // The check before fetching sees a public address; the connection would go to 127.0.0.1.
    stubDns({ check: { localhost: '93.184.215.14' } });
    const guard = createRequestGuard({ allowPrivate: false, ...LIMITS });
    expect(await guard.refusal(`http://localhost:${site.port}/img.png`)).toBeUndefined();
    const before = site.requests.length;
    const image = fakeRoute(`http://localhost:${site.port}/img.png`);
    await guard.handle(image.fake);
    expect(image.calls).toEqual([['abort', 'blockedbyclient']]);
    expect(site.requests.length).toBe(before);
  });

  it('fetches the request from Node and fulfills it: its headers forwarded but hop-by-hop ones, the body decoded', async () => {
    const guard = createRequestGuard({ allowPrivate: true, ...LIMITS });
    const before = site.requests.length;
    const script = fakeRoute(`${site.base}/app.js`, {
      headers: { 'user-agent': 'Page/1.0', cookie: 'a=1', accept: '*/*', host: 'elsewhere.test', connection: 'keep-alive', 'accept-encoding': 'zstd', 'content-length': '9', upgrade: 'h2c' },
    });
    await guard.handle(script.fake);
    const [kind, answer] = script.calls[0] as ['fulfill', { status: number; headers: Record<string, string>; body: Buffer }];
    expect(kind).toBe('fulfill');
    expect(answer.status).toBe(200);
    expect(answer.body.toString()).toBe('document.title = "script ran";');
    expect(answer.headers).toMatchObject({ 'content-type': 'text/javascript' });
    expect(answer.headers).not.toHaveProperty('content-encoding');
    expect(answer.headers).not.toHaveProperty('content-length');
    expect(answer.headers).not.toHaveProperty('transfer-encoding');
    const sent = site.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers).toMatchObject({ 'user-agent': 'Page/1.0', cookie: 'a=1', accept: '*/*', host: `127.0.0.1:${site.port}`, 'accept-encoding': 'gzip, deflate, br' });
    expect(sent[0]!.headers).not.toHaveProperty('upgrade');
    expect(sent[0]!.headers).not.toHaveProperty('content-length');
  });

  it('refuses methods other than GET and HEAD without sending them', async () => {
    const guard = createRequestGuard({ allowPrivate: true, ...LIMITS });
    const before = site.requests.length;
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const { hooks, heard } = mainHooks();
      const write = fakeRoute(`${site.base}/sink`, { method, main: true });
      await guard.handle(write.fake, hooks);
      expect(write.calls).toEqual([['abort', 'blockedbyclient']]);
      expect(heard.failed).toMatchObject([{ code: 'BLOCKED_URL', message: expect.stringContaining(`${method} request was refused`) }]);
    }
    const head = fakeRoute(`${site.base}/img.png`, { method: 'HEAD' });
    await guard.handle(head.fake);
    expect(head.calls).toMatchObject([['fulfill', { status: 200, headers: { 'content-type': 'image/png' } }]]);
    expect(site.requests.slice(before).map((request) => request.method)).toEqual(['HEAD']);
  });

  it('follows a sub-request\'s redirects in Node, and hands the main document\'s back without its Location', async () => {
    const guard = createRequestGuard({ allowPrivate: true, ...LIMITS });
    const image = fakeRoute(`${site.base}/img/old`);
    await guard.handle(image.fake);
    expect(image.calls).toMatchObject([['fulfill', { status: 200, headers: { 'content-type': 'image/png' }, body: PNG }]]);
    const refusedHop = fakeRoute(`${site.base}/img/out`);
    await guard.handle(refusedHop.fake);
    expect(refusedHop.calls).toEqual([['abort', 'failed']]);

    const { hooks, heard } = mainHooks();
    const document = fakeRoute(`${site.base}/moved`, { main: true });
    await guard.handle(document.fake, hooks);
    const [, answer] = document.calls[0] as ['fulfill', { status: number; headers: Record<string, string> }];
    expect(answer.status).toBe(302);
    expect(answer.headers).not.toHaveProperty('location');
    expect(answer.headers['set-cookie']).toBe('moved=1; Path=/');
    expect(heard).toEqual({ failed: [], redirected: [`${site.base}/`] });
  });

  it('aborts a request that fails, times out or is too large; the main document is cut at the cap instead', async () => {
    const guard = createRequestGuard({ allowPrivate: true, timeoutMs: 300, maxBytes: 1024 });
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const closedPort = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, 'close');
    const unreachable = fakeRoute(`http://127.0.0.1:${closedPort}/`);
    await guard.handle(unreachable.fake);
    expect(unreachable.calls).toEqual([['abort', 'failed']]);

    const { hooks, heard } = mainHooks();
    const slow = fakeRoute(`${site.base}/slow`, { main: true });
    await guard.handle(slow.fake, hooks);
    expect(slow.calls).toEqual([['abort', 'timedout']]);
    expect(heard.failed).toMatchObject([{ code: 'TIMEOUT' }]);

    const big = fakeRoute(`${site.base}/big`);
    await guard.handle(big.fake);
    expect(big.calls).toEqual([['abort', 'failed']]);
    const bigDocument = fakeRoute(`${site.base}/big`, { main: true });
    await guard.handle(bigDocument.fake, mainHooks().hooks);
    expect(bigDocument.calls).toMatchObject([['fulfill', { status: 200 }]]);
    expect((bigDocument.calls[0]![1] as { body: Buffer }).body.length).toBe(1024);

    const stopping = new AbortController();
    const stopped = createRequestGuard({ allowPrivate: true, ...LIMITS, signal: stopping.signal });
    const pending = fakeRoute(`${site.base}/slow`);
    const handled = stopped.handle(pending.fake);
    await once(site.server, 'slow');
    stopping.abort();
    await handled;
    expect(pending.calls).toEqual([['abort', 'aborted']]);
  });

  it(`fetches at most ${MAX_PARALLEL_FETCHES} sub-requests at once; the main document does not wait`, async () => {
    const guard = createRequestGuard({ allowPrivate: true, ...LIMITS });
    site.held.length = 0;
    const routes = Array.from({ length: MAX_PARALLEL_FETCHES + 2 }, () => fakeRoute(`${site.base}/hold`));
    const handled = routes.map((route) => guard.handle(route.fake));
    await vi.waitFor(() => expect(site.held).toHaveLength(MAX_PARALLEL_FETCHES));
    const document = fakeRoute(`${site.base}/`, { main: true });
    await guard.handle(document.fake, mainHooks().hooks);
    expect(document.calls).toMatchObject([['fulfill', { status: 200 }]]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(site.held).toHaveLength(MAX_PARALLEL_FETCHES);
    // Each answer lets one waiting request go.
    for (let answered = 0; answered < routes.length; answered += 1) {
      await vi.waitFor(() => expect(site.held.length).toBeGreaterThan(answered));
      site.held[answered]!.writeHead(200, { 'content-type': 'text/plain' }).end('held');
    }
    await Promise.all(handled);
    expect(routes.map((route) => route.calls[0]?.[0])).toEqual(routes.map(() => 'fulfill'));
  });
});

describe.skipIf(missing !== undefined)('in Chromium', () => {
  it('reads the screenshot, the computed styles and axe-core\'s violations in one visit', async () => {
    const before = site.userAgents.length;
    const context = await gatherContext(`${site.base}/`, [...BROWSER_STRATEGIES], localFetch());
    expect(context.errors).toEqual([]);
    expect(context.status).toBe(200);
    // The page and its image: one visit for the three strategies.
    expect(site.userAgents.slice(before)).toEqual(['CollabBackendAgent/1.0 (test)', 'CollabBackendAgent/1.0 (test)']);

    const shot = context.screenshot!;
    expect(shot.mimeType).toBe('image/png');
    const png = Buffer.from(shot.base64, 'base64');
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(png.readUInt32BE(16)).toBe(1366);
    expect(shot.width).toBe(1366);
    expect(shot.height).toBeGreaterThan(1200); // the whole page, not the 768 px viewport
    expect(shot.height).toBe(png.readUInt32BE(20));

    const h1 = context.computedStyles!.find((entry) => entry.selector === 'h1')!;
    expect(h1.count).toBe(1);
    expect(h1.elements[0]).toMatchObject({ text: 'Welcome', styles: { color: 'rgb(10, 20, 30)', 'font-size': '40px', padding: '4px', display: 'block' } });
    expect(context.computedStyles!.map((entry) => entry.selector)).toEqual(['body', 'h1', 'h2', 'h3', 'p', 'a', 'button']);

    const ids = context.accessibility!.map((violation) => violation.id);
    expect(ids).toEqual(expect.arrayContaining(['image-alt', 'button-name', 'color-contrast']));
    const imageAlt = context.accessibility!.find((violation) => violation.id === 'image-alt')!;
    expect(imageAlt).toMatchObject({ impact: 'critical', nodeCount: 1, helpUrl: expect.stringContaining('dequeuniversity.com') });
    expect(imageAlt.nodes[0]).toMatchObject({ target: ['img'], html: '<img src="/pic.png">', text: '' });
    expect(imageAlt.nodes[0]?.failureSummary).toContain('alt');

    const text = (await runStages.gather(`${site.base}/`, ['web-page-screenshot', 'web-page-accessibility'], localFetch())).context;
    expect(text['web-page-screenshot']).toMatch(/^A full-page screenshot was taken \(PNG, 1366×\d+ px\)/);
    expect(JSON.parse(text['web-page-accessibility']!)).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'image-alt' })]));
  });

  it('reads the selectors of strategyOptions, and says which it cannot', async () => {
    const context = await gatherContext(`${site.base}/`, ['computed-styles'], { ...localFetch(), strategyOptions: { 'computed-styles': { selectors: ['.faint', 'p[', 'h6'] } } });
    expect(context.errors).toEqual([]);
    expect(context.computedStyles).toEqual([
      { selector: '.faint', count: 1, elements: [{ text: 'Hardly readable', styles: expect.objectContaining({ color: 'rgb(204, 204, 204)', 'background-color': 'rgb(255, 255, 255)' }) }] },
      { selector: 'p[', count: 0, elements: [], error: 'not a selector this browser accepts' },
      { selector: 'h6', count: 0, elements: [] },
    ]);
    const wrong = await gatherContext(`${site.base}/`, ['computed-styles'], { ...localFetch(), strategyOptions: { 'computed-styles': { selectors: 'h1' } } });
    expect(wrong.errors).toMatchObject([{ strategy: 'computed-styles', code: 'UNSUPPORTED' }]);
  });

  it('stops a long page\'s screenshot at its cap', async () => {
    const context = await gatherContext(`${site.base}/tall`, ['web-page-screenshot'], localFetch());
    expect(context.screenshot).toMatchObject({ width: 1366, height: MAX_SCREENSHOT_HEIGHT });
  });

  it('renders a mobile run in a phone\'s viewport with its user agent', async () => {
    const before = site.userAgents.length;
    const mobile = await gatherContext(`${site.base}/`, ['web-page-screenshot'], localFetch({ deviceType: 'mobile', userAgent: 'Phone/1.0' }));
    expect(mobile.screenshot?.width).toBe(390);
    expect(site.userAgents[before]).toBe('Phone/1.0');
  });

  it('the accessibility-checker service: a finding per violating element', async () => {
    const outcome = await runStages.service('accessibility-checker', `${site.base}/`, localFetch());
    if ('error' in outcome) throw new Error(outcome.error.message);
    const image = outcome.findings.find((finding) => finding.htmlSelector === 'img')!;
    expect(image).toMatchObject({
      severity: 'critical',
      issueType: 'accessibility',
      isPageLevel: false,
      confidence: 90,
      source: 'service:accessibility-checker',
      targetText: '',
      sourceUrl: `${site.base}/`,
      suggestion: expect.stringMatching(/^See https:\/\/dequeuniversity\.com\/rules\/axe\/[\d.]+\/image-alt/),
    });
    expect(image.title).toMatch(/alternative text/i);
    const contrast = outcome.findings.find((finding) => finding.title.includes('contrast'));
    expect(contrast).toMatchObject({ severity: 'high', htmlSelector: 'p', targetText: 'Hardly readable' });
    expect(outcome.findings.find((finding) => finding.htmlSelector === 'button')).toMatchObject({ severity: 'critical' });
  });

  it('the screenshot service: the PNG, no findings', async () => {
    const outcome = await runStages.service('screenshot', `${site.base}/`, localFetch());
    if ('error' in outcome) throw new Error(outcome.error.message);
    expect(outcome.findings).toEqual([]);
    const output = outcome.output as { mimeType: string; width: number; height: number; bytes: number; base64: string };
    expect(output).toMatchObject({ mimeType: 'image/png', width: 1366 });
    expect(Buffer.from(output.base64, 'base64').length).toBe(output.bytes);
  });

  it('ends a page that errors, is refused or is stopped with its own code', async () => {
    const notFound = await gatherContext(`${site.base}/missing`, ['web-page-screenshot'], localFetch());
    expect(notFound.errors).toMatchObject([{ strategy: 'web-page-screenshot', code: 'CRAWLER_ERROR', message: 'the page answered HTTP 404' }]);

    const refused = await gatherContext(`${site.base}/`, ['web-page-accessibility'], localFetch({ allowPrivate: false }));
    expect(refused.errors).toMatchObject([{ strategy: 'web-page-accessibility', code: 'BLOCKED_URL' }]);
    expect(refused.errors[0]?.message).toContain('not publicly routable');

    const controller = new AbortController();
    const asked = once(site.server, 'slow').then(() => controller.abort());
    const stopped = await gatherContext(`${site.base}/slow`, ['web-page-screenshot'], localFetch({ signal: controller.signal, timeoutMs: 20_000 }));
    await asked;
    expect(stopped.errors).toMatchObject([{ strategy: 'web-page-screenshot', code: 'CANCELLED' }]);

    const slow = await gatherContext(`${site.base}/slow`, ['web-page-screenshot'], localFetch({ timeoutMs: 500 }));
    expect(slow.errors).toMatchObject([{ strategy: 'web-page-screenshot', code: 'TIMEOUT' }]);
  });

  it('fetches every request of the page from Node: a host only the server resolves renders whole', async () => {
    // Chromium cannot resolve site.test (a reserved name); the server's lookups answer 127.0.0.1.
    stubDns({ check: { 'site.test': '127.0.0.1' }, connect: { 'site.test': '127.0.0.1' } });
    const before = site.requests.length;
    const origin = `http://site.test:${site.port}`;
    const seen = await visitPage(`${origin}/rich`, localFetch(), async ({ page, finalUrl, status }) => ({
      finalUrl,
      status,
      title: await page.title(),
      color: await page.evaluate<string>('getComputedStyle(document.querySelector("h1")).color'),
      images: await page.evaluate<Record<string, number>>(IMAGE_WIDTHS),
    }));
    // The stylesheet, the script (gzipped), the images, a redirected one; not those redirected to a refused URL.
    expect(seen).toEqual({ finalUrl: `${origin}/rich`, status: 200, title: 'script ran', color: 'rgb(1, 2, 3)', images: { moved: 1, direct: 1, out: 0, file: 0 } });
    const sent = site.requests.slice(before);
    expect(sent.map((request) => request.path).sort()).toEqual(['/app.js', '/img.png', '/img.png', '/img/file', '/img/old', '/img/out', '/rich', '/style.css']);
    for (const request of sent) {
      expect(request.headers).toMatchObject({ host: `site.test:${site.port}`, 'user-agent': 'CollabBackendAgent/1.0 (test)', connection: 'close' });
    }
  });

  it('refuses at connect time a host that answers a public address to the check and a private one to the connection', async () => {
    // DNS rebinding: the check before fetching sees a public address, the connection would go to 127.0.0.1.
    stubDns({ check: { localhost: '93.184.215.14' } });
    const before = site.requests.length;
    const document = visitPage(`http://localhost:${site.port}/`, localFetch({ allowPrivate: false }), async () => 'rendered');
    await expect(document).rejects.toMatchObject({ code: 'BLOCKED_URL', message: expect.stringContaining('localhost is, or resolves to, an address that is not publicly routable') });
    expect(site.requests.length).toBe(before);
  });

  it('follows the document\'s redirects as navigations, each checked again', async () => {
    const moved = await visitPage(`${site.base}/moved`, localFetch(), async ({ page, finalUrl, status }) => ({
      finalUrl,
      status,
      title: await page.title(),
      cookies: (await page.context().cookies()).map((cookie) => cookie.name),
    }));
    // The redirect's cookie is kept, as a browser would.
    expect(moved).toEqual({ finalUrl: `${site.base}/`, status: 200, title: 'Shop', cookies: ['moved'] });

    const never = async () => 'rendered';
    await expect(visitPage(`${site.base}/moved-out`, localFetch(), never)).rejects.toMatchObject({ code: 'BLOCKED_URL', message: expect.stringContaining('credentials') });
    await expect(visitPage(`${site.base}/moved-to-file`, localFetch(), never)).rejects.toMatchObject({ code: 'BLOCKED_URL', message: expect.stringContaining('file:') });
    await expect(visitPage(`${site.base}/loop`, localFetch(), never)).rejects.toMatchObject({ code: 'CRAWLER_ERROR', message: 'the page redirects more than 5 times' });
  });

  it('refuses a POST from the page\'s script, and the page still renders', async () => {
    const before = site.requests.length;
    const title = await visitPage(`${site.base}/post`, localFetch(), async ({ page }) => {
      await page.waitForFunction('document.title !== "waiting"');
      return page.title();
    });
    expect(title).toBe('refused');
    expect(site.requests.slice(before).map((request) => `${request.method} ${request.path}`)).toEqual(['GET /post']);
  });

  it('refuses WebSockets (close code 1008): none reaches the server', async () => {
    const title = await visitPage(`${site.base}/socket`, localFetch(), async ({ page }) => {
      await page.waitForFunction('document.title !== "waiting"');
      return page.title();
    });
    expect(title).toBe('closed 1008');
    expect(site.upgrades).toBe(0);
  });

  it('lets data: and blob: URLs through', async () => {
    const images = await visitPage(`${site.base}/inline`, localFetch(), async ({ page }) => {
      await page.waitForFunction('document.getElementById("blob").complete');
      return page.evaluate<Record<string, number>>(IMAGE_WIDTHS);
    });
    expect(images).toEqual({ data: 1, blob: 1 });
  });

  it('Chromium resolves no host itself: a request that escaped the route would reach no one', async () => {
    const before = site.requests.length;
    const answer = await visitPage(`${site.base}/tall`, localFetch(), async ({ page }) => {
      await page.context().unrouteAll();
      return page.evaluate<string>(`fetch('${site.base}/img.png').then((response) => 'HTTP ' + response.status, (error) => error.name)`);
    });
    expect(answer).toBe('TypeError');
    expect(site.requests.slice(before).map((request) => request.path)).toEqual(['/tall']);
  });

  it('closes the browser on request, and starts another on the next visit', async () => {
    expect(browserRunning()).toBe(true);
    await closeBrowser();
    expect(browserRunning()).toBe(false);
    const again = await gatherContext(`${site.base}/`, ['web-page-screenshot'], localFetch());
    expect(again.screenshot?.width).toBe(1366);
  });
});
