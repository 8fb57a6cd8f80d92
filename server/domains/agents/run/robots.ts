import robotsParserModule from 'robots-parser';
import { errorCodeOf, errorMessageOf, fetchWith, type ExecutionErrorCode } from './fetch-page.js';
import type { FetchOptions } from './findings.js';

/**
 * robots.txt as RFC 9309 reads it: a 4xx answer (none there) allows
 * everything; a 5xx answer or no answer at all disallows everything (the
 * site may be down, and we cannot know what it forbids).
 */

/**
 * The product token robots.txt groups are matched against. Not the fetches'
 * User-Agent: that one follows the run's device type and may read like a
 * browser's, whose first token (`Mozilla`) no robots.txt means us by.
 */
export const ROBOTS_AGENT = 'CollabBackendAgent';

// The package is CommonJS (module.exports = the function) but its types declare an ES default export, which NodeNext then reads as `.default`.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

// robots.txt files are small; Google reads the first 500 KiB and so do we.
const MAX_ROBOTS_BYTES = 500 * 1024;

export interface RobotsRules {
  /** robots.txt's URL. */
  url: string;
  /** The HTTP status of robots.txt, or undefined when it could not be fetched. */
  status: number | undefined;
  txt: string;
  /** `Sitemap:` lines, absolute. */
  sitemaps: string[];
  isAllowed(url: string): boolean;
  /** Why everything is disallowed when robots.txt could not be read. */
  error?: { code: ExecutionErrorCode; message: string };
}

export async function fetchRobots(pageUrl: string, options: FetchOptions): Promise<RobotsRules> {
  const url = new URL('/robots.txt', pageUrl).href;
  let status: number;
  let txt: string;
  try {
    const answer = await fetchWith(url, options, { maxBytes: MAX_ROBOTS_BYTES });
    status = answer.status;
    txt = answer.text;
  } catch (error) {
    const code = errorCodeOf(error);
    return { url, status: undefined, txt: '', sitemaps: [], isAllowed: () => false, error: { code, message: `robots.txt could not be fetched: ${errorMessageOf(error)}` } };
  }
  if (status >= 500) {
    return { url, status, txt: '', sitemaps: [], isAllowed: () => false, error: { code: 'CRAWLER_ERROR', message: `robots.txt answered HTTP ${status}: every page counts as disallowed` } };
  }
  if (status >= 400) return { url, status, txt: '', sitemaps: [], isAllowed: () => true };
  // A 2xx or an unfollowed 3xx: what is there is the file (a 3xx has none, so everything is allowed).
  const body = status >= 200 && status < 300 ? txt : '';
  const robot = robotsParser(url, body);
  return {
    url,
    status,
    txt: body,
    sitemaps: robot.getSitemaps().flatMap((sitemap) => absolute(sitemap, url) ?? []),
    // undefined for a URL of another origin, which this file does not govern.
    isAllowed: (page) => robot.isAllowed(page, ROBOTS_AGENT) !== false,
  };
}

function absolute(href: string, base: string): string | undefined {
  try {
    return new URL(href, base).href;
  } catch {
    return undefined;
  }
}
