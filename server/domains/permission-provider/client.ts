import { z } from 'zod';
import { AppError } from '../../lib/app-error.js';
import { OutboundError, postJson, type OutboundLog } from '../../lib/outbound-http.js';

/**
 * Asks an application's permission provider (an HTTP endpoint the customer
 * runs) whether users may access resources. Every failure is an error, never
 * a grant: a provider we cannot hear from or understand denies nothing and
 * allows nothing, the caller gets UNAVAILABLE.
 */

export type ResourceType = 'organization' | 'folder' | 'document';

export interface ProviderRequest {
  userId: string;
  resource: { id: string; type: ResourceType; organizationId: string };
}

export interface ProviderAnswer {
  userId: string;
  resourceId: string;
  type: ResourceType;
  hasAccess: boolean;
  accessRole?: 'viewer' | 'editor';
  /** Unix seconds; past it the answer means no access. */
  expiresAt?: number;
}

export interface ProviderTarget {
  apiKeyId: string;
  url: string;
  authToken: string;
}

export interface PermissionProviderClient {
  /** Answers keyed by answerKey(userId, type, resourceId); one per distinct request. */
  ask(target: ProviderTarget, requests: ProviderRequest[]): Promise<Map<string, ProviderAnswer>>;
  /** The application's provider configuration changed: forget what it said. */
  invalidate(apiKeyId: string): void;
}

export interface PermissionProviderClientOptions {
  allowPrivateUrls: boolean;
  timeoutMs?: number;
  cacheTtlMs?: number;
  now?: () => number;
  /** Entries kept before the oldest are dropped. */
  maxCacheEntries?: number;
  /** Gets what callers are not told: resolved addresses, ports, socket error codes. */
  log?: OutboundLog;
}

// JSON keeps the key unambiguous whatever characters the ids contain.
export function answerKey(userId: string, type: ResourceType, resourceId: string): string {
  return JSON.stringify([userId, type, resourceId]);
}

const ZResourceType = z.enum(['organization', 'folder', 'document']);

const ZProviderResponse = z.object({
  data: z.array(
    z.object({
      userId: z.string(),
      resourceId: z.string(),
      type: ZResourceType,
      hasAccess: z.boolean(),
      accessRole: z.enum(['viewer', 'editor']).optional(),
      expiresAt: z.number().finite().optional(),
    }),
  ),
});

function describePath(path: (string | number)[]): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : out === '' ? part : `.${part}`;
  return out === '' ? 'the answer' : out;
}

function describeIssue(issue: z.ZodIssue): string {
  const where = describePath(issue.path);
  switch (issue.code) {
    case 'invalid_type':
      return issue.received === 'undefined' ? `${where} is required` : `${where} must be ${issue.expected}`;
    case 'invalid_enum_value':
      return `${where} must be one of ${issue.options.map((option) => `'${String(option)}'`).join(', ')}`;
    default:
      return `${where}: ${issue.message}`;
  }
}

interface CacheEntry {
  apiKeyId: string;
  answer: ProviderAnswer;
  storedAt: number;
}

const MAX_CACHE_ENTRIES = 10_000;

export function createPermissionProviderClient(options: PermissionProviderClientOptions): PermissionProviderClient {
  const timeoutMs = options.timeoutMs ?? 5000;
  const cacheTtlMs = options.cacheTtlMs ?? 30_000;
  const now = options.now ?? Date.now;
  const maxEntries = options.maxCacheEntries ?? MAX_CACHE_ENTRIES;

  // Map iteration follows insertion order, which makes "drop oldest" cheap.
  const cache = new Map<string, CacheEntry>();
  // Bumped by invalidate so an ask already in flight does not store answers
  // from the configuration that was just replaced.
  const generations = new Map<string, number>();

  const cacheKey = (target: ProviderTarget, userId: string, type: ResourceType, resourceId: string) =>
    JSON.stringify([target.apiKeyId, target.url, userId, type, resourceId]);

  function cached(key: string): ProviderAnswer | undefined {
    const entry = cache.get(key);
    if (entry === undefined) return undefined;
    if (now() - entry.storedAt >= cacheTtlMs) {
      cache.delete(key);
      return undefined;
    }
    return entry.answer;
  }

  function store(key: string, apiKeyId: string, answer: ProviderAnswer): void {
    cache.delete(key);
    cache.set(key, { apiKeyId, answer, storedAt: now() });
    while (cache.size > maxEntries) {
      const oldest = cache.keys().next();
      if (oldest.done) break;
      cache.delete(oldest.value);
    }
  }

  // Expiry is judged when the answer is used, so a cached answer expires too.
  function effective(answer: ProviderAnswer): ProviderAnswer {
    if (answer.hasAccess && answer.expiresAt !== undefined && answer.expiresAt * 1000 <= now()) {
      const { accessRole: _dropped, ...rest } = answer;
      return { ...rest, hasAccess: false };
    }
    return answer;
  }

  async function fetchAnswers(target: ProviderTarget, requests: ProviderRequest[]) {
    let response: Awaited<ReturnType<typeof postJson>>;
    try {
      response = await postJson(
        target.url,
        {
          data: {
            requests: requests.map((request) => ({
              userId: request.userId,
              resource: {
                id: request.resource.id,
                type: request.resource.type,
                organizationId: request.resource.organizationId,
              },
            })),
          },
        },
        {
          headers: { authorization: `Bearer ${target.authToken}` },
          timeoutMs,
          allowPrivate: options.allowPrivateUrls,
        },
      );
    } catch (error) {
      if (error instanceof OutboundError) {
        options.log?.warn({ apiKeyId: target.apiKeyId, host: hostOf(target.url), kind: error.kind, ...error.detail }, 'permission provider request failed');
      }
      throw toAppError(error, target, timeoutMs);
    }

    if (response.status < 200 || response.status > 299) {
      throw new AppError('UNAVAILABLE', `permission provider answered HTTP ${response.status}`);
    }
    if (response.body === undefined) {
      throw new AppError('UNAVAILABLE', 'permission provider answer is not JSON');
    }
    const parsed = ZProviderResponse.safeParse(response.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const reason = issue ? describeIssue(issue) : 'unexpected shape';
      throw new AppError('UNAVAILABLE', `permission provider answer is malformed: ${reason}`);
    }

    const answers = new Map<string, ProviderAnswer>();
    parsed.data.data.forEach((raw, index) => {
      const answer: ProviderAnswer = {
        userId: raw.userId,
        resourceId: raw.resourceId,
        type: raw.type,
        hasAccess: raw.hasAccess,
      };
      if (raw.hasAccess) answer.accessRole = raw.accessRole ?? 'editor';
      if (raw.expiresAt !== undefined) answer.expiresAt = raw.expiresAt;
      const key = answerKey(raw.userId, raw.type, raw.resourceId);
      const earlier = answers.get(key);
      // Picking one of two contradicting answers could be a silent grant.
      if (earlier && (earlier.hasAccess !== answer.hasAccess || earlier.accessRole !== answer.accessRole)) {
        throw new AppError(
          'UNAVAILABLE',
          `permission provider answer is malformed: data[${index}] contradicts an earlier answer for ${raw.type} ${raw.resourceId} of user ${raw.userId}`,
        );
      }
      answers.set(key, answer);
    });
    return answers;
  }

  return {
    async ask(target, requests) {
      const result = new Map<string, ProviderAnswer>();
      const missing = new Map<string, ProviderRequest>();
      for (const request of requests) {
        const key = answerKey(request.userId, request.resource.type, request.resource.id);
        if (result.has(key) || missing.has(key)) continue;
        const hit = cached(cacheKey(target, request.userId, request.resource.type, request.resource.id));
        if (hit) result.set(key, effective(hit));
        else missing.set(key, request);
      }
      if (missing.size === 0) return result;

      const generation = generations.get(target.apiKeyId) ?? 0;
      const answers = await fetchAnswers(target, [...missing.values()]);

      // Check every answer before caching any, so a partial answer stores nothing.
      const fresh: [ProviderRequest, string, ProviderAnswer][] = [];
      for (const [key, request] of missing) {
        const answer = answers.get(key);
        if (answer === undefined) {
          throw new AppError(
            'UNAVAILABLE',
            `permission provider gave no answer for ${request.resource.type} ${request.resource.id} of user ${request.userId}`,
          );
        }
        fresh.push([request, key, answer]);
      }
      const stillCurrent = (generations.get(target.apiKeyId) ?? 0) === generation;
      for (const [request, key, answer] of fresh) {
        if (stillCurrent) {
          store(cacheKey(target, request.userId, request.resource.type, request.resource.id), target.apiKeyId, answer);
        }
        result.set(key, effective(answer));
      }
      return result;
    },

    invalidate(apiKeyId) {
      generations.set(apiKeyId, (generations.get(apiKeyId) ?? 0) + 1);
      for (const [key, entry] of cache) {
        if (entry.apiKeyId === apiKeyId) cache.delete(key);
      }
    },
  };
}

function toAppError(error: unknown, target: ProviderTarget, timeoutMs: number): AppError {
  if (!(error instanceof OutboundError)) {
    return new AppError('UNAVAILABLE', 'permission provider could not be reached');
  }
  const host = hostOf(target.url);
  switch (error.kind) {
    case 'timeout':
      return new AppError('UNAVAILABLE', `permission provider did not answer within ${timeoutMs} ms`);
    case 'too_large':
      return new AppError('UNAVAILABLE', `permission provider answer is too large: ${error.message}`);
    case 'blocked':
      return new AppError(
        'FAILED_PRECONDITION',
        `permission provider URL host ${host} resolves to a private address; use a public URL, or set WEBHOOK_ALLOW_PRIVATE_URLS=true for development`,
      );
    case 'invalid_request':
      return new AppError('FAILED_PRECONDITION', `permission provider configuration is unusable: ${error.message}`);
    case 'aborted': // not sent with a signal; listed for the switch to stay exhaustive
    case 'network':
      // No socket code or address: telling refused from reset from unresolvable would make this a port scanner.
      return new AppError('UNAVAILABLE', `permission provider at ${host} could not be reached`);
  }
}

// The host name only: paths and query strings of customer URLs may carry
// secrets, and the port is left out with the other connection details.
function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '(invalid URL)';
  }
}
