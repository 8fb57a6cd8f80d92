import type { TAgentFinding } from '../../../../../contract/agents/executions.js';
import { OutboundError } from '../../../../lib/outbound-http.js';
import type { PageContext } from '../context.js';
import { fetchWith } from '../fetch-page.js';
import type { DraftFinding, FetchOptions } from '../findings.js';
import { cssString, type PageLink } from '../read-html.js';
import type { BuiltinService, ServiceResult } from './service.js';

/**
 * The broken-links service: every http(s) link of the page checked, a
 * finding per link that is broken for its readers.
 *
 * errorType: http_error (a 4xx or 5xx other than these), auth_required
 * (401, 403: it may well work for readers who are signed in, so no finding),
 * timeout, network_error (refused, reset, unresolvable, a redirect loop), and
 * unknown: we could not check it (the guard refused the address, 429, the
 * run stopped); an intranet link may work for its readers, so no finding
 * either.
 */

export interface LinkOutcome {
  url: string;
  status?: number;
  ok: boolean;
  errorType?: 'http_error' | 'timeout' | 'network_error' | 'auth_required' | 'unknown';
}

/** Links checked at once: enough to get through a long page, few enough not to look like an attack on a small site. */
export const LINK_CHECK_CONCURRENCY = 8;
/** Per link: a link that takes longer than this is broken for its readers anyway. */
export const LINK_CHECK_TIMEOUT_MS = 10_000;
// A GET reads this much at most: the status is the answer, the body is not.
const LINK_CHECK_BYTES = 16 * 1024;

const SOURCE = 'service:broken-links';

export async function checkLink(url: string, options: FetchOptions): Promise<LinkOutcome> {
  const request = { timeoutMs: Math.min(options.timeoutMs, LINK_CHECK_TIMEOUT_MS), maxBytes: LINK_CHECK_BYTES, truncate: true };
  try {
    let answer = await fetchWith(url, options, { ...request, method: 'HEAD' });
    // Servers that do not implement HEAD say so with 405 or 501: ask again with GET.
    if (answer.status === 405 || answer.status === 501) answer = await fetchWith(url, options, { ...request, method: 'GET' });
    const status = answer.status;
    if (status < 400) return { url, status, ok: true };
    if (status === 401 || status === 403) return { url, status, ok: false, errorType: 'auth_required' };
    if (status === 429) return { url, status, ok: false, errorType: 'unknown' };
    return { url, status, ok: false, errorType: 'http_error' };
  } catch (error) {
    if (error instanceof OutboundError && error.kind === 'timeout') return { url, ok: false, errorType: 'timeout' };
    if (error instanceof OutboundError && error.kind === 'network') return { url, ok: false, errorType: 'network_error' };
    return { url, ok: false, errorType: 'unknown' };
  }
}

/** Runs `work` on every item, at most `limit` at a time, results in the items' order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function severityOf(outcome: LinkOutcome): TAgentFinding['severity'] {
  const status = outcome.status ?? 0;
  return status === 404 || status === 410 || status >= 500 ? 'high' : 'medium';
}

function findingOf(link: PageLink, outcome: LinkOutcome, page: PageContext): DraftFinding {
  const what =
    outcome.errorType === 'http_error' ? `answers HTTP ${outcome.status}` : outcome.errorType === 'timeout' ? 'did not answer in time' : 'could not be reached';
  return {
    title: `Broken link: ${link.text || link.url}`,
    description: `The link to ${link.url} ${what}.`,
    severity: severityOf(outcome),
    targetText: link.text,
    occurrence: link.occurrence,
    sourceUrl: page.url,
    suggestion: `Fix or remove the link to ${link.url}.`,
    htmlSelector: `a[href=${cssString(link.href)}]`,
    isPageLevel: false,
    issueType: 'broken-link',
    confidence: outcome.errorType === 'http_error' ? 100 : outcome.errorType === 'timeout' ? 70 : 80,
    source: SOURCE,
  };
}

const REPORTED = new Set<LinkOutcome['errorType']>(['http_error', 'timeout', 'network_error']);

export async function checkBrokenLinks(page: PageContext, options: FetchOptions): Promise<ServiceResult> {
  const links = page.links ?? [];
  const outcomes = await mapLimited(links, LINK_CHECK_CONCURRENCY, (link) =>
    options.signal.aborted ? Promise.resolve<LinkOutcome>({ url: link.url, ok: false, errorType: 'unknown' }) : checkLink(link.url, options),
  );
  const findings = links.flatMap((link, index) => {
    const outcome = outcomes[index]!;
    return !outcome.ok && REPORTED.has(outcome.errorType) ? [findingOf(link, outcome, page)] : [];
  });
  return { findings, output: { links: outcomes } };
}

export const brokenLinks: BuiltinService = { needs: ['web-page-links'], run: checkBrokenLinks };
