// The keys a process seals and opens with during a master-key rotation
// (resolveKeys), a sealer's keyring, and the watcher that follows a rotation:
// the database state is what the rotation writes, held by a stand-in client.
import { randomBytes } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import type { Db } from '../../server/db/client.js';
import { testClock } from '../../server/lib/clock.js';
import { Sealer } from '../../server/lib/crypto.js';
import { ACK_PREFIX, CHECK_TEXT, resolveKeys, watchMasterKey, type RotationRecord } from '../../server/lib/master-key.js';

const [k1, k2, k3] = [randomBytes(32), randomBytes(32), randomBytes(32)];
const sealed = (key: Buffer, text: string) => new Sealer(key).seal(text);
const rotation = (from: Buffer, to: Buffer, phase: RotationRecord['phase']): RotationRecord => ({
  next: sealed(from, to.toString('base64')),
  previous: sealed(to, from.toString('base64')),
  phase,
  since: 1,
});

describe('resolveKeys', () => {
  it('without a rotation: the key that opens the check, or none', () => {
    expect(resolveKeys([k1], sealed(k1, CHECK_TEXT), undefined)).toEqual({ seal: k1, open: [k1, k1] });
    expect(resolveKeys([k2], sealed(k1, CHECK_TEXT), undefined)).toBeUndefined();
  });

  it.each([
    ['announce', 'old', k1],
    ['reseal', 'new', k2],
  ] as const)('during the %s phase, started with either key: opens with both, seals with the %s one', (phase, _which, expected) => {
    const check = sealed(k1, CHECK_TEXT);
    for (const started of [k1, k2]) {
      const keys = resolveKeys([started], check, rotation(k1, k2, phase))!;
      expect(keys.seal.equals(expected)).toBe(true);
      expect(keys.open.some((k) => k.equals(k1)) && keys.open.some((k) => k.equals(k2))).toBe(true);
    }
  });

  it('a key that is neither the old nor the new one of the rotation is refused', () => {
    expect(resolveKeys([k3], sealed(k1, CHECK_TEXT), rotation(k1, k2, 'reseal'))).toBeUndefined();
  });

  it('after a finished rotation, a process that learned the new key seals with it', () => {
    const keys = resolveKeys([k1, k2], sealed(k2, CHECK_TEXT), undefined)!;
    expect(keys.seal.equals(k2)).toBe(true);
  });
});

describe('Sealer', () => {
  it('opens with every key of its ring and seals with the first', () => {
    const sealer = new Sealer(k1);
    const old = sealer.seal('secret');
    sealer.useKeys(k2, [k1]);
    expect(sealer.open(old)).toBe('secret');
    expect(new Sealer(k2).open(sealer.seal('new'))).toBe('new');
  });

  it('current(): keeps a value under the sealing key, seals again one under another key', () => {
    const sealer = new Sealer(k1);
    sealer.useKeys(k2, [k1]);
    const underNew = sealed(k2, 'a');
    expect(sealer.current(underNew)).toBe(underNew);
    const again = sealer.current(sealed(k1, 'b'));
    expect(new Sealer(k2).open(again)).toBe('b');
    expect(() => sealer.current(sealed(k3, 'c'))).toThrow();
  });

  it('retired, it refuses to seal with UNAVAILABLE and still opens', () => {
    const sealer = new Sealer(k1);
    const value = sealer.seal('x');
    sealer.retire('restart me');
    expect(() => sealer.seal('y')).toThrow(expect.objectContaining({ status: 'UNAVAILABLE', message: 'restart me' }));
    expect(sealer.open(value)).toBe('x');
  });
});

/** A client whose ServerMeta holds `rows`, recording upserts. */
function metaDb(rows: Map<string, string>): Db {
  return {
    serverMeta: {
      findMany: async ({ where }: { where: { key: { in: string[] } } }) =>
        where.key.in.filter((key) => rows.has(key)).map((key) => ({ key, value: rows.get(key)!, createdAt: 0n })),
      upsert: async ({ where, create }: { where: { key: string }; create: { value: string } }) => void rows.set(where.key, create.value),
    },
  } as unknown as Db;
}

describe('watchMasterKey', () => {
  const clock = testClock(1000);

  it('follows a rotation under way at once, and acknowledges its phase', async () => {
    const rows = new Map([
      ['masterKeyCheck', sealed(k1, CHECK_TEXT)],
      ['masterKeyRotation', JSON.stringify(rotation(k1, k2, 'reseal'))],
    ]);
    const sealer = new Sealer(k1);
    const onChange = vi.fn();
    const watch = watchMasterKey(metaDb(rows), sealer, { intervalMs: 60_000, clock, onChange, onLost: vi.fn(), onError: vi.fn() });
    await vi.waitFor(() => expect([...rows.keys()].some((key) => key.startsWith(ACK_PREFIX))).toBe(true));
    watch.stop();
    expect(onChange).toHaveBeenCalledWith(true);
    expect(new Sealer(k2).open(sealer.seal('s'))).toBe('s');
    const ack = [...rows.entries()].find(([key]) => key.startsWith(ACK_PREFIX))![1];
    expect(JSON.parse(ack)).toEqual({ phase: 'reseal', since: 1, at: 1000 });
  });

  it('retires the sealer of a process that missed a finished rotation, and says so', async () => {
    const rows = new Map([['masterKeyCheck', sealed(k2, CHECK_TEXT)]]);
    const sealer = new Sealer(k1);
    const onLost = vi.fn();
    const watch = watchMasterKey(metaDb(rows), sealer, { intervalMs: 60_000, clock, onChange: vi.fn(), onLost, onError: vi.fn() });
    await vi.waitFor(() => expect(onLost).toHaveBeenCalledOnce());
    watch.stop();
    expect(onLost.mock.calls[0]![0]).toMatch(/restart it with the new COLLAB_MASTER_KEY/);
    expect(sealer.retired()).toBeDefined();
    expect(() => sealer.seal('x')).toThrow();
  });
});
