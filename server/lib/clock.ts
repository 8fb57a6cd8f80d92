/**
 * The one time source. Every domain, job and projection reads time from the
 * clock it was given, so a test can hold time still or move it forward
 * (expiries, retries with backoff, leases) without sleeping.
 */
export interface Clock {
  now(): Date;
  /** Milliseconds since the epoch: what jobs and events store (64-bit integers, the same on both databases). */
  nowMs(): number;
}

export const systemClock: Clock = {
  now: () => new Date(),
  nowMs: () => Date.now(),
};

export interface TestClock extends Clock {
  advance(ms: number): void;
  set(at: Date | number): void;
}

/** A clock that moves only when told to. */
export function testClock(start: Date | number = Date.UTC(2026, 0, 1)): TestClock {
  let ms = typeof start === 'number' ? start : start.getTime();
  return {
    now: () => new Date(ms),
    nowMs: () => ms,
    advance: (by) => {
      ms += by;
    },
    set: (at) => {
      ms = typeof at === 'number' ? at : at.getTime();
    },
  };
}

/** Unix seconds of a clock's present. */
export function nowSeconds(clock: Clock): number {
  return Math.floor(clock.nowMs() / 1000);
}

/** A stored time (Unix ms, as BigInt columns hold it) as the ISO 8601 text the API and CLI show. */
export function isoOfMs(ms: bigint | number): string {
  return new Date(Number(ms)).toISOString();
}
