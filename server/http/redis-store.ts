import { Redis } from 'ioredis';
import { RedisStore } from 'rate-limit-redis';
import { blameVariable } from '../lib/startup-error.js';
import type { StoreFactory } from './rate-limits.js';

/**
 * With REDIS_URL set, rate-limit counters live in Redis so several server
 * processes enforce one limit. Connects eagerly: a wrong URL fails the start
 * instead of the first request.
 */
export async function connectRedis(url: string): Promise<{ redis: Redis; storeFor: StoreFactory }> {
  // No retries while starting: an unreachable Redis is a configuration error to report, not to wait out.
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2, retryStrategy: () => null, connectTimeout: 5000 });
  // ioredis prints unhandled 'error' events to the console as multi-line traces.
  let cause: unknown;
  const swallow = (error: unknown) => (cause ??= error);
  redis.on('error', swallow);
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    // connect() rejects with "Connection is closed."; the socket error says why.
    throw blameVariable('REDIS_URL', cause ?? error, url);
  }
  redis.off('error', swallow);
  // Once running, reconnect after a Redis restart (the default backoff).
  redis.options.retryStrategy = (times) => Math.min(times * 50, 2000);
  redis.on('error', () => {
    // Reported per request by the rate limiter; a lost connection is retried above.
  });
  const storeFor: StoreFactory = (prefix) =>
    new RedisStore({
      prefix: `collab:${prefix}`,
      sendCommand: (command: string, ...args: string[]) => redis.call(command, ...args) as never,
    });
  return { redis, storeFor };
}
