import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatherContext } from '../../server/domains/agents/run/context.js';
import { brokenLinks, type LinkOutcome } from '../../server/domains/agents/run/services/broken-links.js';
import { BUILTIN_SERVICES } from '../../server/domains/agents/run/services/catalog.js';
import { imageSize } from '../../server/domains/agents/run/services/image-size.js';
import { ogImageChecker } from '../../server/domains/agents/run/services/og-image-checker.js';
import { BUILTIN_AGENTS } from '../../server/domains/agents/builtins.js';
import { localFetch, pngHeader, startSite, type Site } from './site.js';

let site: Site;
beforeAll(async () => {
  site = await startSite();
});
afterAll(() => site.close());

async function run(serviceId: string, url: string) {
  const service = BUILTIN_SERVICES[serviceId]!;
  const page = await gatherContext(url, service.needs, localFetch());
  return service.run(page, localFetch());
}

describe('built-in services', () => {
  it('exist for every built-in agent', () => {
    expect(Object.keys(BUILTIN_SERVICES).sort()).toEqual(BUILTIN_AGENTS.map((agent) => agent.id).sort());
  });

  it('broken-links: checks every link and reports the broken ones', async () => {
    const { findings, output } = await run('broken-links', `${site.base}/`);
    const links = (output as { links: LinkOutcome[] }).links;
    expect(links).toEqual([
      { url: `${site.base}/about`, status: 200, ok: true },
      { url: `${site.base}/broken`, status: 404, ok: false, errorType: 'http_error' },
      { url: `${site.base}/redirect`, status: 200, ok: true },
      { url: `${site.base}/private`, status: 200, ok: true },
      { url: `http://127.0.0.1:${site.closedPort}/x`, ok: false, errorType: 'network_error' },
      { url: `${site.base}/file.pdf`, status: 404, ok: false, errorType: 'http_error' },
    ]);
    expect(findings).toHaveLength(3);
    expect(findings[0]).toEqual({
      title: 'Broken link: Old post',
      description: `The link to ${site.base}/broken answers HTTP 404.`,
      severity: 'high',
      targetText: 'Old post',
      occurrence: 1,
      sourceUrl: `${site.base}/`,
      suggestion: `Fix or remove the link to ${site.base}/broken.`,
      htmlSelector: 'a[href="/broken"]',
      isPageLevel: false,
      issueType: 'broken-link',
      confidence: 100,
      source: 'service:broken-links',
    });
    expect(findings[1]).toMatchObject({ targetText: 'Elsewhere', severity: 'medium', confidence: 80 });
    // HEAD first; the site answers HEAD, so no GET was needed.
    expect(site.requests.some((r) => r.path === '/broken' && r.method === 'HEAD')).toBe(true);
  });

  it('broken-links: a link checker refused by the guard reports no finding', async () => {
    const page = await gatherContext(`${site.base}/`, brokenLinks.needs, localFetch());
    const { findings, output } = await brokenLinks.run(page, localFetch({ allowPrivate: false }));
    expect(findings).toEqual([]);
    expect((output as { links: LinkOutcome[] }).links.every((link) => link.errorType === 'unknown')).toBe(true);
  });

  it('og-image-checker: reads the tags and the image size', async () => {
    const { findings, output } = await run('og-image-checker', `${site.base}/`);
    expect(output).toEqual({
      tags: { 'og:title': 'Home', 'og:description': 'The home page', 'og:image': '/og.png', 'og:url': `${site.base}/`, 'twitter:card': 'summary_large_image' },
      image: { url: `${site.base}/og.png`, status: 200, contentType: 'image/png', size: { format: 'png', width: 600, height: 315 }, ok: true },
    });
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ title: 'og:image is smaller than recommended', severity: 'low', isPageLevel: true, issueType: 'open-graph', htmlSelector: 'meta[property="og:image"]', source: 'service:og-image-checker' });
  });

  it('og-image-checker: reports the missing tags of a page without them', async () => {
    const { findings } = await run('og-image-checker', `${site.base}/about`);
    expect(findings.map((finding) => [finding.title, finding.severity])).toEqual([
      ['Missing og:title', 'medium'],
      ['Missing og:description', 'low'],
      ['Missing og:image', 'medium'],
      ['Missing og:url', 'low'],
      ['Missing twitter:card', 'low'],
    ]);
    expect(findings.every((finding) => finding.isPageLevel && finding.targetText === '')).toBe(true);
  });

  it('og-image-checker: an unreachable image is high', async () => {
    const page = await gatherContext(`${site.base}/`, ogImageChecker.needs, localFetch());
    page.html = page.html!.replace('/og.png', '/missing.png');
    const { findings } = await ogImageChecker.run(page, localFetch());
    expect(findings).toEqual([expect.objectContaining({ title: 'og:image is unreachable', severity: 'high' })]);
  });

  it('crawler: lists the pages with title, status and links', async () => {
    const { findings, output } = await run('crawler', `${site.base}/`);
    expect(findings).toEqual([]);
    const { pages, skipped } = output as { pages: Array<{ url: string; status?: number; title?: string; linksCount?: number }>; skipped: unknown[] };
    expect(pages.map((page) => [page.url, page.status])).toEqual([
      [`${site.base}/`, 200],
      [`${site.base}/about`, 200],
      [`${site.base}/broken`, 404],
      [`${site.base}/redirect`, 200],
      [`${site.base}/deep?x=1`, 200],
    ]);
    expect(pages[1]).toMatchObject({ title: 'About', linksCount: 2 });
    expect(skipped).toHaveLength(2);
  });

  // screenshot and accessibility-checker: test/agents/browser.test.ts.
});

describe('imageSize', () => {
  it('reads PNG, GIF, JPEG and WebP headers', () => {
    expect(imageSize(pngHeader(1200, 630))).toEqual({ format: 'png', width: 1200, height: 630 });
    const gif = Buffer.from('GIF89a\x20\x03\x58\x02', 'latin1');
    expect(imageSize(gif)).toEqual({ format: 'gif', width: 800, height: 600 });
    // SOI, an APP0 segment of 16 bytes, then SOF0 with height 480 and width 640.
    const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.alloc(14), Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0xe0, 0x02, 0x80, 0x03])]);
    expect(imageSize(jpeg)).toEqual({ format: 'jpeg', width: 640, height: 480 });
    const webp = Buffer.alloc(30);
    webp.write('RIFF', 0, 'latin1');
    webp.write('WEBPVP8X', 8, 'latin1');
    webp.writeUIntLE(1199, 24, 3);
    webp.writeUIntLE(629, 27, 3);
    expect(imageSize(webp)).toEqual({ format: 'webp', width: 1200, height: 630 });
    expect(imageSize(Buffer.from('<svg/>'))).toBeUndefined();
    expect(imageSize(pngHeader(1, 1).subarray(0, 20))).toBeUndefined();
  });
});
