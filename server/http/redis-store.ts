import { Redis } from 'ioredis';
import { MemoryStore, type ClientRateLimitInfo, type IncrementResponse, type Options, type Store } from 'express-rate-limit';
import { RedisStore } from 'rate-limit-redis';
import { blameVariable } from '../lib/startup-error.js';
import type { StoreFactory } from './rate-limits.js';

/**
 * With REDIS_URL set, rate-limit counters live in Redis so several server
 * processes enforce one limit. Connects eagerly: a wrong URL fails the start
 * instead of the first request.
 */
export async function connectRedis(
  url: string,
  onOutage: (error: unknown) => void = () => undefined,
): Promise<{ redis: Redis; storeFor: StoreFactory; ready(): boolean; check(): Promise<boolean> }> {
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
    // A lost connection is retried above; the outage is reported once by the stores (onOutage) and in /readyz.
  });
  // A Redis that keeps the connection but stops answering (frozen, a partition dropping packets)
  // would otherwise hold every rate-limited request until TCP gives up, minutes later.
  redis.options.commandTimeout = COMMAND_TIMEOUT_MS;
  let down = false;
  // After a failed command Redis is not tried for a while: each request would wait out the timeout.
  let suspectUntil = 0;
  const ready = () => redis.status === 'ready' && Date.now() >= suspectUntil;
  const outage = (error: unknown) => {
    if (!down) onOutage(error);
    down = true;
    suspectUntil = Date.now() + RETRY_AFTER_MS;
  };
  const answered = () => {
    down = false;
    suspectUntil = 0;
  };
  redis.on('ready', answered);
  const check = async () => {
    if (redis.status !== 'ready') return false;
    try {
      await redis.ping();
      answered();
      return true;
    } catch (error) {
      outage(error);
      return false;
    }
  };
  const storeFor: StoreFactory = (prefix) =>
    new FallbackStore(
      new RedisStore({
        prefix: `collab:${prefix}`,
        sendCommand: (command: string, ...args: string[]) => redis.call(command, ...args) as never,
      }),
      ready,
      outage,
      answered,
    );
  return { redis, storeFor, ready, check };
}

/** How long one rate-limit command may take before the process counts in memory instead. */
const COMMAND_TIMEOUT_MS = 500;
/** How long Redis is left alone after a command failed or timed out (a /readyz PING tries it sooner). */
const RETRY_AFTER_MS = 1000;

/**
 * Counts in Redis while it answers, in this process's memory while it does
 * not: a Redis outage must not take the service down with it (every request
 * passes a limiter). Meanwhile each process enforces the limits on its own
 * traffic, so a client spread over N processes gets up to N times the limit
 * for the length of the outage. While the client is not connected, Redis is
 * not even tried: its offline queue would hold each request for seconds.
 */
class FallbackStore implements Store {
  readonly localKeys = false;
  readonly prefix: string | undefined;
  readonly #memory = new MemoryStore();

  constructor(
    private readonly redis: RedisStore,
    private readonly ready: () => boolean,
    private readonly onOutage: (error: unknown) => void,
    private readonly onAnswer: () => void,
  ) {
    this.prefix = redis.prefix;
  }

  init(options: Options): void {
    this.redis.init(options);
    this.#memory.init(options);
  }

  async #either<T>(remote: () => Promise<T>, local: () => T | Promise<T>): Promise<T> {
    if (!this.ready()) {
      this.onOutage(new Error('redis is not connected'));
      return local();
    }
    try {
      const result = await remote();
      this.onAnswer();
      return result;
    } catch (error) {
      this.onOutage(error);
      return local();
    }
  }

  get(key: string): Promise<ClientRateLimitInfo | undefined> {
    return this.#either(() => this.redis.get(key), () => this.#memory.get(key));
  }

  increment(key: string): Promise<IncrementResponse> {
    return this.#either(() => this.redis.increment(key), () => this.#memory.increment(key));
  }

  decrement(key: string): Promise<void> {
    return this.#either(() => this.redis.decrement(key), () => this.#memory.decrement(key));
  }

  resetKey(key: string): Promise<void> {
    return this.#either(() => this.redis.resetKey(key), () => this.#memory.resetKey(key));
  }

  shutdown(): void {
    this.#memory.shutdown();
  }
}
