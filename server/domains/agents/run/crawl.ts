import { errorCodeOf, errorMessageOf, fetchWith, isHtml, isSuccess, type ExecutionErrorCode } from './fetch-page.js';
import type { FetchOptions } from './findings.js';
import { linksOf, parseHtml, titleOf } from './read-html.js';
import { fetchRobots } from './robots.js';

/**
 * Which pages a cross-page run processes: breadth-first over the seed's
 * same-origin links, robots.txt honoured, at most `max` pages, the seed
 * first. Pages are fetched only to find more links; the run fetches each
 * again for its strategies (a crawl reads the HTML alone, a strategy may want
 * more, and the pages may have changed by then).
 */

export interface CrawledPage {
  url: string;
  /** After redirects. */
  finalUrl?: string;
  status?: number;
  title?: string;
  /** Links of the page, internal and external. */
  linksCount?: number;
  error?: { code: ExecutionErrorCode; message: string };
}

export interface Discovery {
  /** The pages to process, in the order found, at most `max`. */
  urls: string[];
  /** URLs found and left out, with why. */
  skipped: Array<{ url: string; reason: string }>;
  /** The pages fetched to find the others (a prefix of `urls`). */
  visited: CrawledPage[];
}

// Files a link can lead to that are not pages: fetching them would only cost time and bytes.
const NOT_A_PAGE = /\.(?:pdf|zip|gz|tgz|rar|7z|exe|dmg|msi|iso|png|jpe?g|gif|webp|svg|ico|bmp|tiff?|mp[34]|m4a|wav|ogg|webm|mov|avi|woff2?|ttf|eot|css|js|json|xml|txt|csv|docx?|xlsx?|pptx?)$/i;

/** A URL as the crawl compares them: no fragment; the query kept (it often selects content). */
export function normalizeUrl(url: string): string {
  const parsed = new URL(url);
  parsed.hash = '';
  return parsed.href;
}

export async function discoverPages(seed: string, max: number, options: FetchOptions): Promise<Discovery> {
  const start = normalizeUrl(seed);
  const origin = new URL(start).origin;
  const result: Discovery = { urls: [], skipped: [], visited: [] };
  const seen = new Set<string>([start]);
  const robots = await fetchRobots(start, options);
  const robotsReason = robots.error ? `robots.txt could not be read, so every page counts as disallowed (RFC 9309): ${robots.error.message}` : 'disallowed by robots.txt';

  const admit = (url: string): boolean => {
    if (!robots.isAllowed(url)) {
      result.skipped.push({ url, reason: robotsReason });
      return false;
    }
    result.urls.push(url);
    return true;
  };
  if (max < 1 || !admit(start)) return result;

  // urls doubles as the queue: each is visited in turn until enough are known.
  for (let next = 0; next < result.urls.length && result.urls.length < max; next++) {
    if (options.signal.aborted) break;
    const url = result.urls[next]!;
    const page: CrawledPage = { url };
    result.visited.push(page);
    let answer;
    try {
      answer = await fetchWith(url, options);
    } catch (error) {
      page.error = { code: errorCodeOf(error), message: errorMessageOf(error) };
      continue;
    }
    page.finalUrl = answer.finalUrl;
    page.status = answer.status;
    if (!isSuccess(answer.status) || !isHtml(answer.contentType)) continue;
    const doc = parseHtml(answer.text);
    page.title = titleOf(doc);
    const links = linksOf(doc, answer.finalUrl);
    page.linksCount = links.length;
    // A redirect to another origin leaves the site: its links are not the site's.
    if (new URL(answer.finalUrl).origin !== origin) continue;
    for (const link of links) {
      if (result.urls.length >= max) break;
      const found = normalizeUrl(link.url);
      if (!link.internal || seen.has(found)) continue;
      seen.add(found);
      if (NOT_A_PAGE.test(new URL(found).pathname)) {
        result.skipped.push({ url: found, reason: 'not a page (a file by its extension)' });
        continue;
      }
      admit(found);
    }
  }
  return result;
}
