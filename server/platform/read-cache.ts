import type { Fanout } from './fanout.js';

/**
 * Short-lived process-local copies of the rows every request reads: the
 * credential behind an auth token, an application's feature flags and
 * settings. Without them each authenticated request paid one or two database
 * round trips (and the ORM's per-query cost) before doing its own work.
 *
 * Freshness has two bounds, written once here rather than per domain:
 * - a writer calls `invalidate`, which drops the entry in this process at once
 *   and, through the fan-out (Redis with REDIS_URL), in every other process as
 *   soon as the message arrives;
 * - an entry lives at most `ttlMs` (1 s by default), so a change made where no
 *   message can come from (the operator CLI, a process whose Redis connection
 *   dropped) is seen everywhere within that.
 *
 * Inside a unit of work an entry is served as outside it (the same bounds
 * hold), unless that unit of work invalidated its key: then the read goes to
 * the transaction, which sees its own write, while other requests may already
 * have stored the old row again. A load inside a unit of work is stored
 * only once it commits (it may have seen uncommitted rows; a rollback keeps
 * nothing). A load that was in flight when an invalidation came is not
 * stored (it may have read the old row).
 */
export interface ReadCache {
  /** The space of this name, made on first use (later options are ignored): repos of one table share it. */
  space<V>(name: string, options?: SpaceOptions): CacheSpace<V>;
  /** Entries held, by space (for the metrics and tests). */
  sizes(): Record<string, number>;
  /** Drops every entry of every space in this process only (what an invalidation message does). */
  dropAll(): void;
}

export interface SpaceOptions {
  /** How long an entry is trusted without an invalidation; default 1000 ms. */
  ttlMs?: number;
  /** Entries kept; the oldest is dropped beyond it. Default 10,000. */
  max?: number;
}

export interface CacheSpace<V> {
  /** The cached value, else `load()` (one load per key at a time; the result is kept unless it is `undefined`). */
  get(key: string, load: () => Promise<V>): Promise<V>;
  /**
   * Drops `key` (every key when omitted) in this process now and in every
   * other process through the fan-out. Inside a unit of work it drops again
   * after the commit, when the new rows are visible to other connections.
   */
  invalidate(key?: string): void;
}

interface Entry<V> {
  value: V;
  expires: number;
}

interface InvalidateMessage {
  kind: 'cache.invalidate';
  space: string;
  key: string | null;
  origin: string;
}

export interface ReadCacheDeps {
  fanout: Fanout;
  /** Whether the caller runs inside a unit of work (UnitOfWork.active). */
  inTransaction: () => boolean;
  /** The current unit of work (UnitOfWork.scope); without it, every read inside one goes to the database. */
  transaction?: () => object | undefined;
  /** UnitOfWork.afterCommit. */
  afterCommit: (effect: () => void) => void;
  /** The spaces' default `ttlMs` (DEFAULT_TTL_MS). */
  ttlMs?: number;
  /** Monotonic milliseconds; a test may move it. */
  nowMs?: () => number;
  onPublishError?: (error: unknown) => void;
}

export const DEFAULT_TTL_MS = 1000;
const DEFAULT_MAX = 10_000;

export function createReadCache(deps: ReadCacheDeps): ReadCache {
  const now = deps.nowMs ?? (() => performance.now());
  // Messages from this process were already applied when they were sent.
  const origin = `${process.pid}-${Math.random().toString(36).slice(2)}`;
  const spaces = new Map<string, { drop(key: string | null): void; size(): number; api: CacheSpace<never> }>();

  deps.fanout.subscribe((message) => {
    const m = message as Partial<InvalidateMessage>;
    if (m.kind !== 'cache.invalidate' || m.origin === origin || typeof m.space !== 'string') return;
    spaces.get(m.space)?.drop(typeof m.key === 'string' ? m.key : null);
  });

  // Per unit of work: the keys it invalidated, by space (null: the whole space).
  const written = new WeakMap<object, Map<string, Set<string | null>>>();
  const writtenIn = (tx: object | undefined, space: string, key: string) => {
    const keys = tx === undefined ? undefined : written.get(tx)?.get(space);
    return keys !== undefined && (keys.has(null) || keys.has(key));
  };

  const publish = (space: string, key: string | null) => {
    const message: InvalidateMessage = { kind: 'cache.invalidate', space, key, origin };
    deps.fanout.publish(message).catch((error: unknown) => deps.onPublishError?.(error));
  };

  return {
    space<V>(name: string, options: SpaceOptions = {}): CacheSpace<V> {
      const existing = spaces.get(name);
      if (existing !== undefined) return existing.api as unknown as CacheSpace<V>;
      const ttlMs = options.ttlMs ?? deps.ttlMs ?? DEFAULT_TTL_MS;
      const max = options.max ?? DEFAULT_MAX;
      // A Map: keys such as "__proto__" are plain keys here.
      const entries = new Map<string, Entry<V>>();
      const loading = new Map<string, Promise<V>>();
      // Bumped by every invalidation: a load that started before it must not be stored.
      let generation = 0;

      const drop = (key: string | null) => {
        generation++;
        if (key === null) {
          entries.clear();
          loading.clear();
        } else {
          entries.delete(key);
          loading.delete(key);
        }
      };
      /** The entry of `key` while it lasts; an expired one is dropped. */
      const fresh = (key: string): Entry<V> | undefined => {
        const entry = entries.get(key);
        if (entry === undefined || entry.expires > now()) return entry;
        entries.delete(key);
        return undefined;
      };
      /** Keeps a loaded value, unless an invalidation came after its load began (it may be the old row). */
      const keep = (key: string, value: V, started: number, readAt: number) => {
        if (generation !== started || value === undefined) return;
        if (entries.size >= max) entries.delete(entries.keys().next().value!);
        entries.set(key, { value, expires: readAt + ttlMs });
      };
      const api: CacheSpace<V> = {
        get(key, load) {
          if (deps.inTransaction()) {
            const tx = deps.transaction?.();
            if (tx === undefined || writtenIn(tx, name, key)) return load();
            const entry = fresh(key);
            if (entry !== undefined) return Promise.resolve(entry.value);
            const started = generation;
            const readAt = now();
            return load().then((value) => {
              // Kept once committed (then it is the committed row), unless the transaction invalidated it meanwhile.
              deps.afterCommit(() => {
                if (!writtenIn(tx, name, key)) keep(key, value, started, readAt);
              });
              return value;
            });
          }
          const entry = fresh(key);
          if (entry !== undefined) return Promise.resolve(entry.value);
          const pending = loading.get(key);
          if (pending !== undefined) return pending;
          const started = generation;
          // The entry's second counts from the read, not from its answer: a stall in between must not extend it.
          const readAt = now();
          const promise = load().then(
            (value) => {
              if (loading.get(key) === promise) loading.delete(key);
              keep(key, value, started, readAt);
              return value;
            },
            (error: unknown) => {
              if (loading.get(key) === promise) loading.delete(key);
              throw error;
            },
          );
          loading.set(key, promise);
          return promise;
        },
        invalidate(key) {
          const k = key ?? null;
          drop(k);
          if (deps.inTransaction()) {
            const tx = deps.transaction?.();
            if (tx !== undefined) {
              const bySpace = written.get(tx) ?? new Map<string, Set<string | null>>();
              written.set(tx, bySpace);
              const keys = bySpace.get(name) ?? new Set<string | null>();
              bySpace.set(name, keys.add(k));
            }
            deps.afterCommit(() => {
              drop(k);
              publish(name, k);
            });
          } else {
            publish(name, k);
          }
        },
      };
      spaces.set(name, { drop, size: () => entries.size, api: api as unknown as CacheSpace<never> });
      return api;
    },
    sizes: () => Object.fromEntries([...spaces].map(([name, space]) => [name, space.size()])),
    dropAll: () => spaces.forEach((space) => space.drop(null)),
  };
}
