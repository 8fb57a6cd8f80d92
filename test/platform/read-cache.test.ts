import { describe, expect, it } from 'vitest';
import { createReadCache } from '../../server/platform/read-cache.js';
import { localFanout } from '../../server/platform/fanout.js';

function cacheWith(options: { inTransaction?: () => boolean; transaction?: () => object | undefined; effects?: (() => void)[] } = {}) {
  let clock = 0;
  const fanout = localFanout();
  const cache = createReadCache({
    fanout,
    inTransaction: options.inTransaction ?? (() => false),
    ...(options.transaction ? { transaction: options.transaction } : {}),
    afterCommit: (effect) => options.effects?.push(effect),
    nowMs: () => clock,
  });
  return { cache, fanout, tick: (ms: number) => (clock += ms) };
}

function counter<V>(values: V[]) {
  let calls = 0;
  return { load: async () => values[Math.min(calls++, values.length - 1)]!, calls: () => calls };
}

describe('the read cache', () => {
  it('serves a loaded value until its TTL, then loads again', async () => {
    const { cache, tick } = cacheWith();
    const space = cache.space<string>('s', { ttlMs: 1000 });
    const source = counter(['a', 'b']);
    expect(await space.get('k', source.load)).toBe('a');
    tick(999);
    expect(await space.get('k', source.load)).toBe('a');
    tick(1);
    expect(await space.get('k', source.load)).toBe('b');
    expect(source.calls()).toBe(2);
  });

  it('loads a key once for concurrent callers', async () => {
    const { cache } = cacheWith();
    const space = cache.space<number>('s');
    const source = counter([1]);
    const results = await Promise.all([space.get('k', source.load), space.get('k', source.load), space.get('k', source.load)]);
    expect(results).toEqual([1, 1, 1]);
    expect(source.calls()).toBe(1);
  });

  it('drops an entry on invalidate, here at once and in the other processes through the fan-out', async () => {
    const fanout = localFanout();
    const deps = { fanout, inTransaction: () => false, afterCommit: () => undefined, nowMs: () => 0 };
    const here = createReadCache(deps).space<string>('s', { ttlMs: 60_000 });
    const there = createReadCache(deps).space<string>('s', { ttlMs: 60_000 });
    const hereSource = counter(['old', 'new']);
    const thereSource = counter(['old', 'new']);
    await here.get('k', hereSource.load);
    await there.get('k', thereSource.load);
    here.invalidate('k');
    expect(await here.get('k', hereSource.load)).toBe('new');
    // The fan-out delivers after the caller continues (as Redis does).
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(await there.get('k', thereSource.load)).toBe('new');
  });

  it('does not keep a value whose load was under way when an invalidation came', async () => {
    const { cache } = cacheWith();
    const space = cache.space<string>('s', { ttlMs: 60_000 });
    let release!: (value: string) => void;
    const slow = space.get('k', () => new Promise<string>((resolve) => (release = resolve)));
    space.invalidate('k');
    release('read before the change');
    expect(await slow).toBe('read before the change');
    expect(await space.get('k', async () => 'after the change')).toBe('after the change');
  });

  it('neither serves nor keeps values inside a transaction, and drops again after the commit', async () => {
    let inTx = false;
    const effects: (() => void)[] = [];
    const { cache } = cacheWith({ inTransaction: () => inTx, effects });
    const space = cache.space<string>('s', { ttlMs: 60_000 });
    await space.get('k', async () => 'committed');
    inTx = true;
    expect(await space.get('k', async () => 'uncommitted')).toBe('uncommitted');
    space.invalidate('k');
    inTx = false;
    // Between the write and the commit another request may read (and cache) the old row...
    expect(await space.get('k', async () => 'committed')).toBe('committed');
    // ...so the commit drops it again.
    effects.forEach((effect) => effect());
    expect(await space.get('k', async () => 'new')).toBe('new');
  });

  it('inside a transaction serves entries, but not of a key that transaction invalidated, and keeps what it loads once committed', async () => {
    let tx: object | undefined;
    const effects: (() => void)[] = [];
    const { cache } = cacheWith({ inTransaction: () => tx !== undefined, transaction: () => tx, effects });
    const space = cache.space<string>('s', { ttlMs: 60_000 });
    const other = cache.space<string>('other', { ttlMs: 60_000 });
    await space.get('k', async () => 'committed');
    await space.get('j', async () => 'j committed');
    await other.get('k', async () => 'other committed');
    tx = {};
    expect(await space.get('k', async () => 'read in the transaction')).toBe('committed');
    space.invalidate('k');
    const mine = tx;
    // Another request, outside the transaction, stores the old row again before the commit...
    tx = undefined;
    expect(await space.get('k', async () => 'committed')).toBe('committed');
    tx = mine;
    // ...yet the transaction that wrote it reads its own write.
    expect(await space.get('k', async () => 'written in the transaction')).toBe('written in the transaction');
    // Other keys and spaces are still served; so is this key to another transaction.
    expect(await space.get('j', async () => 'j loaded')).toBe('j committed');
    expect(await other.get('k', async () => 'other loaded')).toBe('other committed');
    tx = {};
    expect(await space.get('k', async () => 'loaded')).toBe('committed');
    // An invalidation of the whole space counts for every key of it.
    space.invalidate();
    expect(await space.get('j', async () => 'j in the transaction')).toBe('j in the transaction');
    // A miss inside a transaction is kept only once it commits, and not if an invalidation came meanwhile.
    effects.length = 0;
    tx = {};
    expect(await space.get('new', async () => 'read in the transaction')).toBe('read in the transaction');
    tx = undefined;
    expect(await space.get('new', async () => 'before the commit')).toBe('before the commit');
    effects.forEach((effect) => effect());
    expect(await space.get('new', async () => 'after the commit')).toBe('read in the transaction');
    effects.length = 0;
    tx = {};
    expect(await space.get('newer', async () => 'read in the transaction')).toBe('read in the transaction');
    space.invalidate('unrelated');
    tx = undefined;
    effects.forEach((effect) => effect());
    expect(await space.get('newer', async () => 'loaded')).toBe('loaded');
  });

  it('keeps keys named like Object.prototype members as plain keys, and does not keep undefined', async () => {
    const { cache } = cacheWith();
    const space = cache.space<string | undefined>('s');
    expect(await space.get('__proto__', async () => 'p')).toBe('p');
    expect(await space.get('constructor', async () => 'c')).toBe('c');
    expect(await space.get('__proto__', async () => 'other')).toBe('p');
    const missing = counter<string | undefined>([undefined, 'now there']);
    expect(await space.get('absent', missing.load)).toBeUndefined();
    expect(await space.get('absent', missing.load)).toBe('now there');
  });

  it('holds at most `max` entries, dropping the oldest', async () => {
    const { cache } = cacheWith();
    const space = cache.space<number>('s', { max: 2 });
    await space.get('a', async () => 1);
    await space.get('b', async () => 2);
    await space.get('c', async () => 3);
    expect(cache.sizes()).toEqual({ s: 2 });
    expect(await space.get('a', async () => 10)).toBe(10);
  });

  it('does not cache a failed load', async () => {
    const { cache } = cacheWith();
    const space = cache.space<number>('s');
    await expect(space.get('k', async () => Promise.reject(new Error('database down')))).rejects.toThrow('database down');
    expect(await space.get('k', async () => 7)).toBe(7);
  });
});
