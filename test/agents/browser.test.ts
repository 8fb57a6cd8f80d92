import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Request, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { browserRunning, closeBrowser, createRequestGuard } from '../../server/domains/agents/run/browser.js';
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

interface Site {
  base: string;
  userAgents: string[];
  server: Server;
}

async function startPages(): Promise<Site> {
  const userAgents: string[] = [];
  const server = createServer((req, res) => {
    userAgents.push(req.headers['user-agent'] ?? '');
    if (req.url === '/') res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    else if (req.url === '/tall') res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html lang="en"><title>Tall</title><body><div style="height: 20000px">Long</div></body></html>');
    else if (req.url === '/slow') server.emit('slow'); // never answers
    else res.writeHead(404, { 'content-type': 'text/html' }).end('<!doctype html><title>Missing</title><p>No such page');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, userAgents, server };
}

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

describe('the request guard', () => {
  it('refuses what the outbound guard refuses, and other schemes, before Chromium sends anything', async () => {
    const guard = createRequestGuard({ allowPrivate: false });
    for (const url of ['http://127.0.0.1/x', 'http://169.254.169.254/latest/meta-data/', 'http://[::1]:8080/', 'http://[::ffff:10.0.0.1]/', 'http://10.1.2.3/', 'file:///etc/passwd', 'ftp://198.51.100.1/', 'http://user:pw@93.184.215.14/']) {
      expect(await guard.refusal(url), url).toBeTypeOf('string');
    }
    expect(await guard.refusal('http://127.0.0.1/x')).toContain('not publicly routable');
    for (const url of ['https://93.184.215.14/', 'data:image/png;base64,AAAA', 'blob:https://93.184.215.14/0f1e']) {
      expect(await guard.refusal(url), url).toBeUndefined();
    }

    const open = createRequestGuard({ allowPrivate: true });
    expect(await open.refusal('http://127.0.0.1/x')).toBeUndefined();
    expect(await open.refusal('file:///etc/passwd')).toBeTypeOf('string');
  });

  it('as the route handler: aborts a refused request and tells why first, continues the others', async () => {
    const guard = createRequestGuard({ allowPrivate: false });
    const route = (url: string) => {
      const calls: string[] = [];
      const fake = {
        request: () => ({ url: () => url }) as Request,
        abort: async (code?: string) => void calls.push(`abort ${code}`),
        continue: async () => void calls.push('continue'),
      } as unknown as Pick<Route, 'request' | 'abort' | 'continue'>;
      return { fake, calls };
    };
    const refused: string[] = [];
    const metadata = route('http://169.254.169.254/');
    await guard.handle(metadata.fake, (request) => refused.push(request.url()));
    expect(metadata.calls).toEqual(['abort blockedbyclient']);
    expect(refused).toEqual(['http://169.254.169.254/']);
    const loopback = route('http://127.0.0.1/x');
    await guard.handle(loopback.fake);
    expect(loopback.calls).toEqual(['abort blockedbyclient']);
    const publicHost = route('https://93.184.215.14/');
    await guard.handle(publicHost.fake);
    expect(publicHost.calls).toEqual(['continue']);
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

  it('closes the browser on request, and starts another on the next visit', async () => {
    expect(browserRunning()).toBe(true);
    await closeBrowser();
    expect(browserRunning()).toBe(false);
    const again = await gatherContext(`${site.base}/`, ['web-page-screenshot'], localFetch());
    expect(again.screenshot?.width).toBe(1366);
  });
});
