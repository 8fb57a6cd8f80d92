import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatherContext } from '../../server/domains/agents/run/context.js';
import { localFetch, startSite, type Site } from './site.js';

let site: Site;
beforeAll(async () => {
  site = await startSite();
});
afterAll(() => site.close());

describe('gatherContext', () => {
  it('reads text, cleaned HTML, links and CSS from one fetch of the page', async () => {
    const before = site.requests.filter((r) => r.path === '/').length;
    const context = await gatherContext(`${site.base}/`, ['web-page-text', 'web-page-html', 'web-page-links', 'web-page-css'], localFetch());
    expect(site.requests.filter((r) => r.path === '/').length - before).toBe(1);
    expect(context.status).toBe(200);
    expect(context.finalUrl).toBe(`${site.base}/`);
    expect(context.errors).toEqual([]);

    expect(context.text).toContain('Welcome');
    expect(context.text).toContain('About us');
    expect(context.text).not.toContain('Menu about'); // navigation is left out
    expect(context.text).not.toContain('alert');

    expect(context.html).toContain('<h1>Welcome</h1>');
    expect(context.html).not.toMatch(/<script|onclick|a comment|<style/);

    const links = context.links!;
    expect(links.map((link) => link.url)).toEqual([
      `${site.base}/about`,
      `${site.base}/broken`,
      `${site.base}/redirect`,
      `${site.base}/private`,
      `http://127.0.0.1:${site.closedPort}/x`,
      `${site.base}/file.pdf`,
    ]);
    expect(links.every((link) => link.internal === link.url.startsWith(site.base))).toBe(true);
    expect(links.find((link) => link.url.endsWith('/broken'))).toMatchObject({ text: 'Old post', href: '/broken', count: 2, occurrence: 1 });
    expect(links.find((link) => link.url.endsWith('/about'))).toMatchObject({ text: 'Menu about', count: 2 });

    // The inline style and the same-origin stylesheet; the other origin's is not fetched.
    expect(context.css).toEqual([{ text: 'body { color: red }' }, { href: `${site.base}/style.css`, text: 'h1 { font-size: 2em }' }]);
  });

  it('reads robots.txt and says whether the page is allowed', async () => {
    const allowed = await gatherContext(`${site.base}/about`, ['robots-txt'], localFetch());
    expect(allowed.status).toBeNull(); // the page itself was not needed
    expect(allowed.robots).toMatchObject({ url: `${site.base}/robots.txt`, allowed: true });
    expect(allowed.robots?.txt).toContain('Disallow: /private');
    const disallowed = await gatherContext(`${site.base}/private`, ['robots-txt'], localFetch());
    expect(disallowed.robots?.allowed).toBe(false);

    const bare = await startSite({ robots: false });
    try {
      const missing = await gatherContext(`${bare.base}/private`, ['robots-txt'], localFetch());
      expect(missing.robots).toEqual({ url: `${bare.base}/robots.txt`, txt: '', allowed: true });
      expect(missing.errors).toEqual([]);
    } finally {
      await bare.close();
    }
  });

  it('reads the sitemap robots.txt names, through its index', async () => {
    const context = await gatherContext(`${site.base}/`, ['sitemap-data'], localFetch());
    expect(context.errors).toEqual([]);
    expect(context.sitemap).toEqual({
      sources: [`${site.base}/sitemap-index.xml`, `${site.base}/sitemap.xml`],
      entries: [{ loc: `${site.base}/`, lastmod: '2025-01-01' }, { loc: `${site.base}/about` }],
      truncated: false,
    });
  });

  it('falls back to /sitemap.xml without a Sitemap line', async () => {
    const bare = await startSite({ robots: false });
    try {
      const context = await gatherContext(`${bare.base}/`, ['sitemap-data'], localFetch());
      expect(context.sitemap?.sources).toEqual([`${bare.base}/sitemap.xml`]);
      expect(context.sitemap?.entries).toHaveLength(2);
    } finally {
      await bare.close();
    }
  });

  it('sends the rest-api requests with the page filled in, secrets only to their own origin', async () => {
    const secret = 'sk-very-secret-1234';
    const context = await gatherContext(`${site.base}/about?x=1`, ['rest-api'], {
      ...localFetch(),
      strategyOptions: {
        'rest-api': {
          url: `${site.base}/api/info?page={{url}}&key=k`,
          auth: { bearer: secret },
          headers: { 'x-api-key': secret },
          requests: [
            { url: `${site.base}/api/post{{path}}`, method: 'POST', body: { page: '{{url}}', n: 1 } },
            // localhost is another origin than 127.0.0.1: no secrets there.
            { url: `${site.base.replace('127.0.0.1', 'localhost')}/api/other` },
          ],
        },
      },
    });
    expect(context.errors).toEqual([]);
    const data = context.restApiData!;
    expect(data.map((entry) => [entry.index, entry.method, entry.status])).toEqual([
      [0, 'GET', 200],
      [1, 'POST', 200],
      [2, 'GET', 200],
    ]);
    expect(data[0]).toMatchObject({ url: `${site.base}/api/info`, data: { method: 'GET', path: `/api/info?page=${encodeURIComponent(`${site.base}/about?x=1`)}&key=k` } });
    expect(data[1]?.data).toEqual({ method: 'POST', path: '/api/post/about', body: JSON.stringify({ page: `${site.base}/about?x=1`, n: 1 }) });
    const api = site.requests.filter((r) => r.path.startsWith('/api/'));
    expect(api.slice(-3).map((r) => r.authorization)).toEqual([true, true, false]);
    expect(JSON.stringify(context)).not.toContain(secret);
  });

  it('says what is wrong with unusable rest-api options, never their values', async () => {
    const context = await gatherContext(`${site.base}/`, ['rest-api'], { ...localFetch(), strategyOptions: { 'rest-api': { headers: { 'x-api-key': 'sk-hidden' }, method: 'PUT' } } });
    expect(context.errors).toHaveLength(1);
    expect(context.errors[0]).toMatchObject({ strategy: 'rest-api', code: 'UNSUPPORTED' });
    expect(context.errors[0]?.message).toContain('rest-api.method');
    expect(JSON.stringify(context)).not.toContain('sk-hidden');
  });

  // The browser strategies: test/agents/browser.test.ts.
  it('reports unknown strategies, and a failing page, per strategy', async () => {
    const context = await gatherContext(`${site.base}/missing`, ['web-page-text', 'web-page-links', 'magic'], localFetch());
    expect(context.status).toBe(404);
    expect(context.text).toBeUndefined();
    expect(context.errors.map((error) => [error.strategy, error.code])).toEqual([
      ['magic', 'UNSUPPORTED'],
      ['web-page-text', 'CRAWLER_ERROR'],
      ['web-page-links', 'CRAWLER_ERROR'],
    ]);
  });

  it('follows a redirect to the page, and refuses a private address without allowPrivate', async () => {
    const moved = await gatherContext(`${site.base}/redirect`, ['web-page-text'], localFetch());
    expect(moved.finalUrl).toBe(`${site.base}/about`);
    expect(moved.text).toContain('About us.');

    const blocked = await gatherContext(`${site.base}/`, ['web-page-text', 'robots-txt'], localFetch({ allowPrivate: false }));
    expect(blocked.errors.map((error) => [error.strategy, error.code])).toEqual([
      ['web-page-text', 'BLOCKED_URL'],
      ['robots-txt', 'BLOCKED_URL'],
    ]);
    expect(blocked.robots?.allowed).toBe(false);
  });
});
