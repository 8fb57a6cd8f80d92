import type { Clock } from '../../../lib/clock.js';

/** createdAt and updatedAt of a new row: the clock's present in BigInt Unix ms, as every table stores time. */
export function created(clock: Clock): { createdAt: bigint; updatedAt: bigint } {
  const at = BigInt(clock.nowMs());
  return { createdAt: at, updatedAt: at };
}
