import { describe, expect, it } from 'vitest';
import { testClock } from '../../server/lib/clock.js';
import { createIds } from '../../server/lib/ids.js';

describe('time-ordered IDs', () => {
  it('sort by creation time, also within one millisecond and when the clock steps back', () => {
    const clock = testClock(Date.UTC(2026, 10, 23));
    const ids = createIds(clock);
    const made: string[] = [];
    for (let i = 0; i < 1000; i++) {
      made.push(ids.next('cmt'));
      if (i % 100 === 0) clock.advance(1);
      if (i === 500) clock.advance(-5000);
    }
    expect([...made].sort()).toEqual(made);
    expect(new Set(made).size).toBe(made.length);
    expect(made[0]).toMatch(/^cmt_[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it('are unique across generators in the same millisecond', () => {
    const clock = testClock();
    const a = createIds(clock);
    const b = createIds(clock);
    const all = new Set(Array.from({ length: 500 }, (_, i) => (i % 2 ? a : b).next('x')));
    expect(all.size).toBe(500);
  });
});
