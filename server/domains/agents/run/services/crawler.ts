import { DEFAULT_MAX_URLS } from '../../../../../contract/agents/executions.js';
import type { PageContext } from '../context.js';
import { discoverPages } from '../crawl.js';
import type { FetchOptions } from '../findings.js';
import type { BuiltinService, ServiceResult } from './service.js';

/**
 * The crawler service: the pages of a site from the seed, each with its
 * title, status and number of links. No findings: it maps a site, and a page
 * that answers an error is already in its output (and is what broken-links
 * reports); a finding per page would be an annotation per page.
 */
export async function crawlSite(page: PageContext, options: FetchOptions & { maxUrls?: number }): Promise<ServiceResult> {
  const discovery = await discoverPages(page.url, options.maxUrls ?? DEFAULT_MAX_URLS, options);
  // Pages found but not fetched (the crawl stopped once it knew enough) have no status yet.
  const visited = new Map(discovery.visited.map((visit) => [visit.url, visit]));
  const pages = discovery.urls.map((url) => visited.get(url) ?? { url });
  return { findings: [], output: { pages, skipped: discovery.skipped } };
}

export const crawler: BuiltinService = { needs: [], run: crawlSite };
