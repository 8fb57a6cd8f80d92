import { z } from 'zod';
import { OutboundError, postBytes } from '../../../lib/outbound-http.js';
import { errorCodeOf, errorMessageOf, fetchWith, type GatherError } from './fetch-page.js';
import type { FetchOptions } from './findings.js';

/**
 * The rest-api strategy: requests an agent's configuration describes, sent
 * for each page, their answers given to the agent as `restApiData`.
 *
 * `strategyOptions['rest-api']`:
 * ```
 * { url, method?: 'GET'|'POST', body?, headers?, auth?, requests?: [{ url, method?, body? }] }
 * ```
 * `url` is the first request, `requests` up to 9 more. `headers` and `auth`
 * (`{ bearer }` or `{ username, password }`) are the secrets of the
 * configuration: they sit at the top level because that is where the
 * storage seals them (contract/agents/secret-places.ts), and they are sent
 * only to the origin of the top-level `url`, the address the storage keeps
 * them for. A request of its own has no headers for the same reason.
 *
 * `{{url}}`, `{{origin}}` and `{{path}}` in a URL or in a string of the body
 * become the page's URL, origin and path; inside a URL's query they are
 * percent-encoded. GET answers follow redirects (through the guard); POST
 * sends the body as JSON and follows none. Header values never appear in
 * results or errors, and result URLs are given without their query, which
 * may carry a key.
 */

export const MAX_REST_REQUESTS = 10;

const ZMethod = z.enum(['GET', 'POST']);
const ZRequest = z.object({ url: z.string().min(1).max(2048), method: ZMethod.optional(), body: z.unknown().optional() }).strict();
const ZAuth = z.union([z.object({ bearer: z.string().min(1) }).strict(), z.object({ username: z.string(), password: z.string() }).strict()]);
const ZRestApiOptions = z.object({
  url: z.string().min(1).max(2048).optional(),
  method: ZMethod.optional(),
  body: z.unknown().optional(),
  headers: z.record(z.union([z.string(), z.number(), z.boolean()])).optional(),
  auth: ZAuth.optional(),
  requests: z.array(ZRequest).max(MAX_REST_REQUESTS).optional(),
});
type RestApiOptions = z.infer<typeof ZRestApiOptions>;

export interface RestApiResult {
  /** The request's place: 0 for the top-level `url`, then `requests` in order. */
  index: number;
  method: 'GET' | 'POST';
  /** Origin and path only. */
  url: string;
  status: number;
  contentType: string;
  /** The answer parsed as JSON, else its text. */
  data: unknown;
  truncated: boolean;
}

interface PageParts {
  url: string;
  origin: string;
  path: string;
}

function pageParts(pageUrl: string): PageParts {
  const url = new URL(pageUrl);
  return { url: url.href, origin: url.origin, path: url.pathname };
}

const PLACEHOLDER = /\{\{\s*(url|origin|path)\s*\}\}/g;

function fill(text: string, page: PageParts, encode: boolean): string {
  return text.replace(PLACEHOLDER, (_match, name: keyof PageParts) => (encode ? encodeURIComponent(page[name]) : page[name]));
}

function fillUrl(template: string, page: PageParts): string {
  const query = template.search(/[?#]/);
  if (query === -1) return fill(template, page, false);
  return fill(template.slice(0, query), page, false) + fill(template.slice(query), page, true);
}

function fillBody(body: unknown, page: PageParts): unknown {
  if (typeof body === 'string') return fill(body, page, false);
  if (Array.isArray(body)) return body.map((item) => fillBody(item, page));
  if (typeof body === 'object' && body !== null) return Object.fromEntries(Object.entries(body).map(([key, value]) => [key, fillBody(value, page)]));
  return body;
}

function secretHeaders(options: RestApiOptions): Record<string, string> {
  const headers: Record<string, string> = Object.fromEntries(Object.entries(options.headers ?? {}).map(([name, value]) => [name, String(value)]));
  const auth = options.auth;
  if (auth && 'bearer' in auth) headers.authorization = `Bearer ${auth.bearer}`;
  else if (auth) headers.authorization = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
  return headers;
}

function withoutQuery(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

function parseAnswer(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export async function gatherRestApi(pageUrl: string, raw: unknown, options: FetchOptions): Promise<{ data: RestApiResult[]; errors: GatherError[] }> {
  const errors: GatherError[] = [];
  const fail = (code: GatherError['code'], message: string) => errors.push({ strategy: 'rest-api', code, message });
  const parsed = ZRestApiOptions.safeParse(raw);
  if (!parsed.success) {
    // Paths and rules only: zod's messages do not repeat values, which may be secrets.
    const issues = parsed.error.issues.slice(0, 5).map((issue) => `${['rest-api', ...issue.path].join('.')}: ${issue.message}`);
    fail('UNSUPPORTED', `strategyOptions.rest-api is not usable: ${issues.join('; ')}`);
    return { data: [], errors };
  }
  const config = parsed.data;
  const requests = [
    ...(config.url === undefined ? [] : [{ url: config.url, method: config.method, body: config.body }]),
    ...(config.requests ?? []),
  ];
  if (requests.length === 0 || requests.length > MAX_REST_REQUESTS) {
    fail('UNSUPPORTED', `strategyOptions.rest-api needs 1 to ${MAX_REST_REQUESTS} requests (url, then requests); it has ${requests.length}`);
    return { data: [], errors };
  }
  const page = pageParts(pageUrl);
  const secrets = secretHeaders(config);
  const hasSecrets = Object.keys(secrets).length > 0;
  let secretOrigin: string | undefined;
  try {
    secretOrigin = config.url === undefined ? undefined : new URL(fillUrl(config.url, page)).origin;
  } catch {
    secretOrigin = undefined;
  }
  if (hasSecrets && config.url === undefined) fail('UNSUPPORTED', 'rest-api headers and auth are sent only to the origin of its top-level url, and it has none: they were not sent');

  const data: RestApiResult[] = [];
  for (const [index, request] of requests.entries()) {
    if (options.signal.aborted) break;
    const method = request.method ?? 'GET';
    let url: string;
    try {
      url = new URL(fillUrl(request.url, page)).href;
    } catch {
      fail('UNSUPPORTED', `rest-api request ${index}: its url is not a valid URL once filled in`);
      continue;
    }
    const headers = { 'user-agent': options.userAgent, accept: 'application/json', ...(new URL(url).origin === secretOrigin ? secrets : {}) };
    try {
      if (method === 'GET') {
        const answer = await fetchWith(url, options, { headers });
        data.push({ index, method, url: withoutQuery(answer.finalUrl), status: answer.status, contentType: answer.contentType, data: parseAnswer(answer.text), truncated: answer.truncated });
      } else {
        const body = Buffer.from(JSON.stringify(fillBody(request.body ?? null, page)) ?? 'null', 'utf8');
        const answer = await postBytes(url, body, {
          headers,
          timeoutMs: options.timeoutMs,
          allowPrivate: options.allowPrivate,
          maxResponseBytes: options.maxBytes,
          truncateResponse: true,
          signal: options.signal,
        });
        const contentType = String(answer.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
        data.push({ index, method, url: withoutQuery(url), status: answer.status, contentType, data: parseAnswer(answer.text), truncated: Buffer.byteLength(answer.text) >= options.maxBytes });
      }
    } catch (error) {
      // OutboundError messages name a header at most, never its value (see outbound-http.ts).
      const message = error instanceof OutboundError ? errorMessageOf(error) : 'internal error';
      fail(errorCodeOf(error), `rest-api request ${index} (${method} ${withoutQuery(url)}): ${message}`);
    }
  }
  return { data, errors };
}
