import type { Logger } from 'pino';

/**
 * Messages every server process must act on (a live-state broadcast, a
 * presence change, a document to drop, a cached credential or setting to
 * forget): through Redis when REDIS_URL is set, so clients connected to any
 * process get them, else within this process.
 * A message reaches every process, this one included, exactly once per process.
 */
export interface Fanout {
  publish(message: object): Promise<void>;
  subscribe(handler: (message: unknown) => void): void;
  close(): Promise<void>;
}

const CHANNEL = 'collab:realtime';

export function localFanout(): Fanout {
  const handlers: ((message: unknown) => void)[] = [];
  return {
    async publish(message) {
      // Same shape as through Redis: a copy, delivered after the caller continues.
      const copy: unknown = JSON.parse(JSON.stringify(message));
      queueMicrotask(() => handlers.forEach((handler) => handler(copy)));
    },
    subscribe: (handler) => void handlers.push(handler),
    close: async () => undefined,
  };
}

/**
 * ioredis loads with the first Redis client, never in a process without
 * REDIS_URL: it and its command table would hold memory there for nothing.
 */
export async function redisFanout(url: string, log: Logger): Promise<Fanout> {
  const { Redis } = await import('ioredis');
  // A subscriber connection may send nothing but (UN)SUBSCRIBE: the ready check's INFO must not run on it.
  // A Redis that stops answering must not hold a publishing request: the command times out and the message stays local.
  const pub = new Redis(url, { maxRetriesPerRequest: 2, commandTimeout: 1000 });
  const sub = new Redis(url, { enableReadyCheck: false });
  for (const client of [pub, sub]) client.on('error', (error) => log.warn({ err: error }, 'redis (real-time fan-out) connection error'));
  const handlers: ((message: unknown) => void)[] = [];
  const deliver = (raw: string) => {
    let message: unknown;
    try {
      message = JSON.parse(raw);
    } catch {
      return;
    }
    handlers.forEach((handler) => handler(message));
  };
  sub.on('message', (_channel: string, raw: string) => deliver(raw));
  await sub.subscribe(CHANNEL);
  // While Redis is away, this process's own clients still get its messages (the other processes miss them);
  // the offline queue is not waited on, it would hold the caller for seconds.
  const local = (raw: string) => queueMicrotask(() => deliver(raw));
  return {
    async publish(message) {
      const raw = JSON.stringify(message);
      if (pub.status !== 'ready') return local(raw);
      // The other processes still get it while only our subscriber reconnects; this process then gets it here.
      const echoed = sub.status === 'ready';
      try {
        await pub.publish(CHANNEL, raw);
        if (!echoed) local(raw);
      } catch (error) {
        log.warn({ err: error }, 'publishing to redis failed; delivered within this process only');
        local(raw);
      }
    },
    subscribe: (handler) => void handlers.push(handler),
    async close() {
      await Promise.allSettled([sub.quit(), pub.quit()]);
    },
  };
}

/**
 * Publish-only, for the operator CLI: it subscribes to nothing, and a Redis
 * that cannot be reached must not hang a command. A message that cannot be
 * sent is reported to `onError`; the servers then see the change when their
 * cached copy expires (see platform/read-cache.ts).
 */
export async function redisPublisher(url: string, onError: (error: unknown) => void): Promise<Fanout> {
  const { Redis } = await import('ioredis');
  // Every step bounded: connecting, and each command (a Redis that accepts connections but never
  // answers would otherwise hold the command, and the CLI, for ever). No ready check (its INFO is one more wait).
  const pub = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2000,
    commandTimeout: 2000,
    enableReadyCheck: false,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: true,
    retryStrategy: () => null,
  });
  pub.on('error', () => undefined);
  const pending = new Set<Promise<unknown>>();
  return {
    publish(message) {
      const sent = pub.publish(CHANNEL, JSON.stringify(message)).then(
        () => undefined,
        (error: unknown) => onError(error),
      );
      pending.add(sent);
      void sent.finally(() => pending.delete(sent));
      return sent;
    },
    subscribe: () => undefined,
    async close() {
      await Promise.allSettled([...pending]);
      if (pub.status === 'ready') await pub.quit().catch(() => pub.disconnect());
      else pub.disconnect();
    },
  };
}
