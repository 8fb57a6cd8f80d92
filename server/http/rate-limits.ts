import type { Request, RequestHandler } from 'express';
import { ipKeyGenerator, rateLimit, type Store } from 'express-rate-limit';
import type { RateLimitTier } from '../../contract/common/envelope.js';
import type { RateLimitConfig } from '../config.js';
import { HEADERS } from './authenticate.js';
import { routeMeta } from './context.js';
import { sendError } from './error-handler.js';

/** Builds a counter store per limiter: in memory by default, Redis when REDIS_URL is set. */
export type StoreFactory = (prefix: string) => Store | undefined;

/**
 * Named tiers, chosen by each route's metadata:
 * - standard: per API key (per IP when the header is absent). Generous: it
 *   exists to stop a runaway client, not to meter normal use.
 * - emailStatus: the public email check, which can be called without any
 *   credential and so could be used to probe which emails have workspaces;
 *   limited per IP and, independently, per email asked about.
 */
export function rateLimits(config: RateLimitConfig, storeFor: StoreFactory = () => undefined): RequestHandler {
  const limiter = (name: string, limit: number, key: (req: Request) => string | undefined) =>
    rateLimit({
      windowMs: config.windowMs,
      limit,
      standardHeaders: 'draft-7',
      legacyHeaders: false,
      store: storeFor(`rl:${name}:`),
      skip: (req) => key(req) === undefined,
      keyGenerator: (req) => key(req) ?? '',
      handler: (_req, res) =>
        sendError(res, 'RESOURCE_EXHAUSTED', `rate limit exceeded (${limit} requests per ${config.windowMs / 1000} s); retry after the time in the RateLimit header`),
    });

  const ip = (req: Request) => ipKeyGenerator(req.ip ?? 'unknown');
  const tiers: Record<RateLimitTier, RequestHandler[]> = {
    standard: [limiter('standard', config.standardPerApiKey, (req) => header(req, HEADERS.apiKey) ?? ip(req))],
    emailStatus: [
      limiter('email-ip', config.emailStatusPerIp, ip),
      limiter('email-address', config.emailStatusPerEmail, (req) => {
        const email = (req.body as { data?: { ownerEmail?: unknown } } | undefined)?.data?.ownerEmail;
        return typeof email === 'string' ? email.trim().toLowerCase() : undefined;
      }),
    ],
  };

  return (req, res, next) => {
    const chain = tiers[routeMeta(req).rateLimit];
    let index = 0;
    const step = (err?: unknown): void => {
      const handler = chain[index++];
      if (err !== undefined || handler === undefined) return next(err);
      handler(req, res, step);
    };
    step();
  };
}

function header(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
