import type { TExecutionError } from '../../../../contract/agents/executions.js';
import { getResource, OutboundError, type GetResourceOptions, type GetResourceResult } from '../../../lib/outbound-http.js';
import type { FetchOptions } from './findings.js';

/**
 * Every fetch of a run (pages, robots.txt, sitemaps, stylesheets, links,
 * images, REST APIs) goes through getResource with the run's options, and
 * its failures become the run's error codes in one place.
 */

export type ExecutionErrorCode = TExecutionError['code'];

/** A failure of one strategy or fetch, safe to show (never a header value or a secret). */
export interface GatherError {
  strategy: string;
  code: ExecutionErrorCode;
  message: string;
}

/**
 * blocked: the guard refused the address; timeout: our per-request limit;
 * aborted: the run was stopped (cancelled, its deadline, its lease), which
 * the run itself reports; anything else the fetch met is the site's.
 */
export function errorCodeOf(error: unknown): ExecutionErrorCode {
  if (!(error instanceof OutboundError)) return 'INTERNAL';
  switch (error.kind) {
    case 'blocked':
      return 'BLOCKED_URL';
    case 'timeout':
      return 'TIMEOUT';
    case 'aborted':
      return 'CANCELLED';
    case 'network':
    case 'too_large':
    case 'invalid_request':
      return 'CRAWLER_ERROR';
  }
}

/** OutboundError messages are written to be shown; anything else is ours and stays in the log. */
export function errorMessageOf(error: unknown): string {
  return error instanceof OutboundError ? error.message : 'internal error';
}

/** A GET with the run's options; pages are cut at maxBytes rather than refused (FetchOptions.maxBytes). */
export function fetchWith(
  url: string,
  options: FetchOptions,
  overrides: Partial<Pick<GetResourceOptions, 'maxBytes' | 'truncate' | 'method' | 'headers' | 'timeoutMs' | 'maxRedirects'>> = {},
): Promise<GetResourceResult> {
  const { headers, ...rest } = overrides;
  return getResource(url, {
    allowPrivate: options.allowPrivate,
    timeoutMs: options.timeoutMs,
    maxBytes: options.maxBytes,
    truncate: true,
    signal: options.signal,
    ...rest,
    headers: { 'user-agent': options.userAgent, ...headers },
  });
}

export const isSuccess = (status: number): boolean => status >= 200 && status < 300;

/** Media types read as HTML; a server that names none gets the benefit of the doubt. */
export function isHtml(contentType: string): boolean {
  return contentType === '' || contentType === 'text/html' || contentType === 'application/xhtml+xml';
}
