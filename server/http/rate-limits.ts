import type { Request, RequestHandler, Response } from 'express';
import { MemoryStore, ipKeyGenerator, rateLimit, type Options, type Store } from 'express-rate-limit';
import type { RateLimitTier } from '../../contract/common/envelope.js';
import type { RateLimitConfig } from '../config.js';
import { routeMeta } from './context.js';
import { sendError } from './error-handler.js';

/** Builds a counter store per limiter: in memory by default, Redis when REDIS_URL is set. */
export type StoreFactory = (prefix: string) => Store | undefined;

/**
 * The limits, in the three places of the request path where their keys are
 * known (see createApp):
 * - beforeAuth: what needs only the client's address;
 * - afterAuth: what keys by the authenticated caller, still before the body is read;
 * - afterParse: what keys by a field of the body.
 */
export interface RateLimits {
  beforeAuth: RequestHandler;
  afterAuth: RequestHandler;
  afterParse: RequestHandler;
  /**
   * Counts a refused or missing credential against the client's address.
   * Past the limit it answers 429 itself and resolves true; otherwise the
   * caller answers with the authentication error.
   */
  failedAuth(req: Request, res: Response): Promise<boolean>;
}

type Stage = 'beforeAuth' | 'afterAuth' | 'afterParse';

/**
 * Named tiers, chosen by each route's metadata:
 * - standard: per authenticated application (per workspace on workspace
 *   operations). Keyed after authentication, so neither a rotated API-key
 *   header nor someone else's API key with a wrong token touches an
 *   application's counter. Generous: it exists to stop a runaway client, not
 *   to meter normal use.
 * - emailStatus: the public email check, which can be called without any
 *   credential and so could be used to probe which emails have workspaces;
 *   limited per IP (before the body is read) and, independently, per email
 *   asked about (which needs the parsed body).
 * - ai: Ask AI, per application, counted in addition to the standard tier
 *   (a call uses up both). Each call spends the application's own provider
 *   credit and holds a connection for up to AI_TIMEOUT_MS, so a runaway
 *   client is stopped long before the standard tier would.
 * Failed authentications are limited per client address apart from the
 * tiers, after the credential is checked (failedAuth): see
 * RateLimitConfig.failedAuthPerIp for the number and why a valid credential
 * is never refused by it. The client address is req.ip: the TCP peer, or
 * what the proxies TRUST_PROXY names put in X-Forwarded-For.
 */
export function rateLimits(config: RateLimitConfig, storeFor: StoreFactory = () => undefined): RateLimits {
  const retryHint = 'retry after the time in the RateLimit header';
  const limiter = (name: string, limit: number, key: (req: Request) => string | undefined, what = 'rate limit') =>
    rateLimit({
      windowMs: config.windowMs,
      limit,
      standardHeaders: 'draft-7',
      legacyHeaders: false,
      store: storeFor(`rl:${name}:`),
      skip: (req) => key(req) === undefined,
      keyGenerator: (req) => key(req) ?? '',
      handler: (_req, res) =>
        sendError(res, 'RESOURCE_EXHAUSTED', `${what} exceeded (${limit} requests per ${config.windowMs / 1000} s); ${retryHint}`),
    });

  const ip = (req: Request) => ipKeyGenerator(req.ip ?? 'unknown');
  const caller = (req: Request) => {
    const principal = req.principal;
    if (principal?.kind === 'application') return `app:${principal.apiKeyId}`;
    if (principal?.kind === 'workspace') return `ws:${principal.workspaceId}`;
    return `ip:${ip(req)}`;
  };

  // Counted only when a credential fails, and consulted only then: a valid
  // credential is never refused, so failures from an address (a broken or
  // hostile client behind the same proxy or NAT) cannot lock out the clients
  // that share it.
  const failures = storeFor('rl:auth-failures:') ?? new MemoryStore();
  void failures.init?.({ windowMs: config.windowMs } as Options);
  const failedAuth = async (req: Request, res: Response): Promise<boolean> => {
    const { totalHits, resetTime } = await failures.increment(ip(req));
    if (totalHits <= config.failedAuthPerIp) return false;
    if (resetTime !== undefined) res.setHeader('Retry-After', String(Math.max(1, Math.ceil((resetTime.getTime() - Date.now()) / 1000))));
    sendError(
      res,
      'RESOURCE_EXHAUSTED',
      `too many failed authentications from this address (${config.failedAuthPerIp} per ${config.windowMs / 1000} s); retry after the time in the Retry-After header`,
    );
    return true;
  };

  // One instance, so the tiers that include it share its counters.
  const standard = limiter('standard', config.standardPerApiKey, caller);
  const tiers: Record<RateLimitTier, Record<Stage, RequestHandler[]>> = {
    standard: {
      beforeAuth: [],
      afterAuth: [standard],
      afterParse: [],
    },
    ai: {
      beforeAuth: [],
      afterAuth: [standard, limiter('ai', config.aiPerApiKey, caller, 'Ask AI rate limit')],
      afterParse: [],
    },
    emailStatus: {
      beforeAuth: [limiter('email-ip', config.emailStatusPerIp, ip)],
      afterAuth: [],
      afterParse: [
        limiter('email-address', config.emailStatusPerEmail, (req) => {
          const email = (req.body as { data?: { ownerEmail?: unknown } } | undefined)?.data?.ownerEmail;
          return typeof email === 'string' ? email.trim().toLowerCase() : undefined;
        }),
      ],
    },
  };

  const stage =
    (name: Stage): RequestHandler =>
    (req, res, next) => {
      if (req.operation === undefined) return next(); // the GET routes (JWKS) have no tier
      const chain = tiers[routeMeta(req).rateLimit][name];
      let index = 0;
      const step = (err?: unknown): void => {
        const handler = chain[index++];
        if (err !== undefined || handler === undefined) return next(err);
        handler(req, res, step);
      };
      step();
    };

  return {
    beforeAuth: stage('beforeAuth'),
    afterAuth: stage('afterAuth'),
    afterParse: stage('afterParse'),
    failedAuth,
  };
}
