import { randomBytes } from 'node:crypto';
import type { Clock } from './clock.js';

/**
 * Time-ordered IDs: `<prefix>_` + 10 characters of millisecond timestamp +
 * 16 random characters, Crockford base32 (the ULID layout). Sorting IDs as
 * strings sorts them by creation time, so an ID is a usable keyset tie-break
 * and B-tree inserts stay at the right edge. Within one millisecond the random
 * part is incremented, so IDs from one process never go backwards.
 */
export interface Ids {
  next(prefix: string): string;
}

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const RANDOM_CHARS = 16;

export function createIds(clock: Clock): Ids {
  let lastMs = -1;
  let lastRandom: number[] = [];

  function freshRandom(): number[] {
    const bytes = randomBytes(RANDOM_CHARS);
    return Array.from(bytes, (b) => b & 31);
  }

  function increment(digits: number[]): number[] {
    const next = [...digits];
    for (let i = next.length - 1; i >= 0; i--) {
      if (next[i]! < 31) {
        next[i]! += 1;
        return next;
      }
      next[i] = 0;
    }
    return freshRandom(); // 2^80 IDs in one millisecond: not reachable in practice
  }

  return {
    next(prefix) {
      // A clock set backwards (tests, NTP) must not reorder IDs: stay on the last millisecond.
      const ms = Math.max(clock.nowMs(), lastMs);
      lastRandom = ms === lastMs ? increment(lastRandom) : freshRandom();
      lastMs = ms;
      let time = '';
      let rest = ms;
      for (let i = 0; i < 10; i++) {
        time = ALPHABET[rest % 32]! + time;
        rest = Math.floor(rest / 32);
      }
      return `${prefix}_${time}${lastRandom.map((d) => ALPHABET[d]).join('')}`;
    },
  };
}
