import { Redis } from 'ioredis';
import { RedisStore } from 'rate-limit-redis';
import type { StoreFactory } from './rate-limits.js';

/**
 * With REDIS_URL set, rate-limit counters live in Redis so several server
 * processes enforce one limit. Connects eagerly: a wrong URL fails the start
 * instead of the first request.
 */
export async function connectRedis(url: string): Promise<{ redis: Redis; storeFor: StoreFactory }> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2 });
  await redis.connect();
  const storeFor: StoreFactory = (prefix) =>
    new RedisStore({
      prefix: `collab:${prefix}`,
      sendCommand: (command: string, ...args: string[]) => redis.call(command, ...args) as never,
    });
  return { redis, storeFor };
}
