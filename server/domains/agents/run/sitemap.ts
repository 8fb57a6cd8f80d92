import { XMLParser } from 'fast-xml-parser';
import { errorCodeOf, errorMessageOf, fetchWith, isSuccess, type GatherError } from './fetch-page.js';
import type { FetchOptions } from './findings.js';
import type { RobotsRules } from './robots.js';

/**
 * The sitemap-data strategy: the URLs a site lists in its sitemaps, from the
 * `Sitemap:` lines of robots.txt, else `/sitemap.xml`. A sitemap index is
 * followed one level (an index of indexes is not: the protocol forbids
 * nesting). Gzipped sitemap files (`.xml.gz` served as application/gzip)
 * are not read: only a Content-Encoding is decompressed.
 */

export interface SitemapEntry {
  loc: string;
  lastmod?: string;
}

export interface SitemapData {
  /** The sitemap files read, indexes included. */
  sources: string[];
  entries: SitemapEntry[];
  /** Whether entries were left out past MAX_SITEMAP_ENTRIES or MAX_SITEMAP_FILES. */
  truncated: boolean;
}

/** Enough for a model to see a site's shape; a site's full list can hold 50,000 per file. */
export const MAX_SITEMAP_ENTRIES = 500;
/** Sitemap files read at most, indexes included: each is a fetch of up to maxBytes. */
export const MAX_SITEMAP_FILES = 10;

const parser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  // No DOCTYPE entities: a sitemap has no use for them, and they are how XML bombs expand.
  processEntities: false,
  isArray: (name) => name === 'url' || name === 'sitemap',
});

interface Parsed {
  urls: SitemapEntry[];
  children: string[];
}

function parseSitemap(xml: string): Parsed | undefined {
  let doc: unknown;
  try {
    doc = parser.parse(xml);
  } catch {
    return undefined;
  }
  const root = doc as { urlset?: { url?: unknown[] }; sitemapindex?: { sitemap?: unknown[] } };
  const read = (items: unknown[] | undefined): SitemapEntry[] =>
    (items ?? []).flatMap((item) => {
      const { loc, lastmod } = (item ?? {}) as { loc?: unknown; lastmod?: unknown };
      if (typeof loc !== 'string' || loc.trim() === '') return [];
      return [{ loc: loc.trim(), ...(typeof lastmod === 'string' && lastmod.trim() !== '' ? { lastmod: lastmod.trim() } : {}) }];
    });
  if (root?.urlset) return { urls: read(root.urlset.url), children: [] };
  if (root?.sitemapindex) return { urls: [], children: read(root.sitemapindex.sitemap).map((entry) => entry.loc) };
  return undefined;
}

export async function gatherSitemap(pageUrl: string, robots: RobotsRules, options: FetchOptions): Promise<{ data: SitemapData; errors: GatherError[] }> {
  const errors: GatherError[] = [];
  const data: SitemapData = { sources: [], entries: [], truncated: false };
  const fail = (code: GatherError['code'], message: string) => errors.push({ strategy: 'sitemap-data', code, message });

  const read = async (url: string): Promise<Parsed | undefined> => {
    if (data.sources.length >= MAX_SITEMAP_FILES) {
      data.truncated = true;
      return undefined;
    }
    data.sources.push(url);
    try {
      const answer = await fetchWith(url, options);
      if (!isSuccess(answer.status)) {
        fail('CRAWLER_ERROR', `sitemap ${url} answered HTTP ${answer.status}`);
        return undefined;
      }
      const parsed = parseSitemap(answer.text);
      if (!parsed) fail('CRAWLER_ERROR', `sitemap ${url} is not a sitemap (urlset or sitemapindex XML)${answer.truncated ? ', or was cut at the size limit' : ''}`);
      return parsed;
    } catch (error) {
      fail(errorCodeOf(error), `sitemap ${url}: ${errorMessageOf(error)}`);
      return undefined;
    }
  };
  const add = (urls: SitemapEntry[]) => {
    for (const entry of urls) {
      if (data.entries.length >= MAX_SITEMAP_ENTRIES) {
        data.truncated = true;
        return;
      }
      data.entries.push(entry);
    }
  };

  const roots = robots.sitemaps.length > 0 ? [...new Set(robots.sitemaps)] : [new URL('/sitemap.xml', pageUrl).href];
  for (const root of roots) {
    if (data.entries.length >= MAX_SITEMAP_ENTRIES || options.signal.aborted) break;
    const parsed = await read(root);
    if (!parsed) continue;
    add(parsed.urls);
    for (const child of parsed.children) {
      if (data.entries.length >= MAX_SITEMAP_ENTRIES || options.signal.aborted) break;
      const nested = await read(child);
      // Only one level: an index named by an index is not followed.
      if (nested) add(nested.urls);
    }
  }
  return { data, errors };
}
