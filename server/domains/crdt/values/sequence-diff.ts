/** old[aStart, aEnd) becomes new[bStart, bEnd); either side may be empty. */
export interface Hunk {
  aStart: number;
  aEnd: number;
  bStart: number;
  bEnd: number;
}

/**
 * What one write may spend on diffing, in steps of the search below (one
 * step is one comparison or one diagonal visited, some 15 ns): about 75 ms.
 * A request is untrusted, and two unrelated 50k-character texts would cost
 * Myers' algorithm tens of seconds. Real edits cost far less: the search is
 * about quadratic in the number of differences, not in the length, so a
 * thousand scattered one-letter changes in a 100 KB text still get a minimal
 * diff (in some 55 ms). Once the budget is spent, what is left is replaced as
 * a whole: still correct, only a larger edit.
 */
export const DEFAULT_DIFF_BUDGET = 5_000_000;

export class DiffBudget {
  constructor(public remaining: number = DEFAULT_DIFF_BUDGET) {}
}

/**
 * The hunks, in order, of a shortest edit script between two sequences while
 * the budget lasts (Myers 1986, the linear-space bisection as
 * diff-match-patch implements it). Elements are compared with ===; callers
 * map their items to numbers.
 */
export function diffSequences(a: ArrayLike<number>, b: ArrayLike<number>, budget: DiffBudget): Hunk[] {
  let start = 0;
  let aEnd = a.length;
  let bEnd = b.length;
  while (start < aEnd && start < bEnd && a[start] === b[start]) start++;
  while (aEnd > start && bEnd > start && a[aEnd - 1] === b[bEnd - 1]) {
    aEnd--;
    bEnd--;
  }
  if (start === aEnd && start === bEnd) return [];
  if (budget.remaining <= 0) return [{ aStart: start, aEnd, bStart: start, bEnd }];
  const out: Hunk[] = [];
  solve(a, start, aEnd, b, start, bEnd, budget, out);
  return merge(out);
}

function merge(hunks: Hunk[]): Hunk[] {
  const out: Hunk[] = [];
  for (const hunk of hunks) {
    const last = out[out.length - 1];
    if (last && last.aEnd === hunk.aStart && last.bEnd === hunk.bStart) {
      last.aEnd = hunk.aEnd;
      last.bEnd = hunk.bEnd;
    } else {
      out.push({ ...hunk });
    }
  }
  return out;
}

function solve(
  a: ArrayLike<number>,
  aLo: number,
  aHi: number,
  b: ArrayLike<number>,
  bLo: number,
  bHi: number,
  budget: DiffBudget,
  out: Hunk[],
): void {
  while (aLo < aHi && bLo < bHi && a[aLo] === b[bLo]) {
    aLo++;
    bLo++;
  }
  while (aLo < aHi && bLo < bHi && a[aHi - 1] === b[bHi - 1]) {
    aHi--;
    bHi--;
  }
  if (aLo === aHi || bLo === bHi) {
    if (aLo < aHi || bLo < bHi) out.push({ aStart: aLo, aEnd: aHi, bStart: bLo, bEnd: bHi });
    return;
  }
  // Out of budget, this range (and every later one) is replaced as a whole;
  // the ranges already solved keep their minimal edits.
  const split = budget.remaining > 0 ? bisect(a, aLo, aHi, b, bLo, bHi, budget) : null;
  if (split === null) {
    out.push({ aStart: aLo, aEnd: aHi, bStart: bLo, bEnd: bHi });
    return;
  }
  solve(a, aLo, aLo + split[0], b, bLo, bLo + split[1], budget, out);
  solve(a, aLo + split[0], aHi, b, bLo + split[1], bHi, budget, out);
}

/**
 * Walks from both ends until the paths meet and returns the meeting point
 * (relative to aLo/bLo), or null when the ranges have nothing in common or
 * the budget ran out (then it is left at zero).
 */
function bisect(
  a: ArrayLike<number>,
  aLo: number,
  aHi: number,
  b: ArrayLike<number>,
  bLo: number,
  bHi: number,
  budget: DiffBudget,
): [number, number] | null {
  const n = aHi - aLo;
  const m = bHi - bLo;
  const maxD = Math.ceil((n + m) / 2);
  // d never exceeds what the budget allows (each round visits d diagonals),
  // so the arrays need not be larger than that either.
  const dLimit = Math.min(maxD, Math.ceil(Math.sqrt(2 * Math.max(budget.remaining, 0))) + 1);
  const offset = dLimit + 1;
  const length = 2 * dLimit + 3;
  const forward = new Int32Array(length).fill(-1);
  const reverse = new Int32Array(length).fill(-1);
  forward[offset + 1] = 0;
  reverse[offset + 1] = 0;
  const delta = n - m;
  const front = delta % 2 !== 0;
  let k1start = 0;
  let k1end = 0;
  let k2start = 0;
  let k2end = 0;
  let spent = 0;
  for (let d = 0; d < maxD; d++) {
    if (d >= dLimit || spent > budget.remaining) {
      budget.remaining = 0;
      return null;
    }
    for (let k1 = -d + k1start; k1 <= d - k1end; k1 += 2) {
      const k1Offset = offset + k1;
      let x1 =
        k1 === -d || (k1 !== d && forward[k1Offset - 1]! < forward[k1Offset + 1]!)
          ? forward[k1Offset + 1]!
          : forward[k1Offset - 1]! + 1;
      let y1 = x1 - k1;
      const x1Start = x1;
      while (x1 < n && y1 < m && a[aLo + x1] === b[bLo + y1]) {
        x1++;
        y1++;
      }
      spent += 1 + x1 - x1Start;
      forward[k1Offset] = x1;
      if (x1 > n) {
        k1end += 2;
      } else if (y1 > m) {
        k1start += 2;
      } else if (front) {
        const k2Offset = offset + delta - k1;
        if (k2Offset >= 0 && k2Offset < length && reverse[k2Offset] !== -1) {
          if (x1 >= n - reverse[k2Offset]!) {
            budget.remaining -= spent;
            return [x1, y1];
          }
        }
      }
    }
    for (let k2 = -d + k2start; k2 <= d - k2end; k2 += 2) {
      const k2Offset = offset + k2;
      let x2 =
        k2 === -d || (k2 !== d && reverse[k2Offset - 1]! < reverse[k2Offset + 1]!)
          ? reverse[k2Offset + 1]!
          : reverse[k2Offset - 1]! + 1;
      let y2 = x2 - k2;
      const x2Start = x2;
      while (x2 < n && y2 < m && a[aHi - 1 - x2] === b[bHi - 1 - y2]) {
        x2++;
        y2++;
      }
      spent += 1 + x2 - x2Start;
      reverse[k2Offset] = x2;
      if (x2 > n) {
        k2end += 2;
      } else if (y2 > m) {
        k2start += 2;
      } else if (!front) {
        const k1Offset = offset + delta - k2;
        if (k1Offset >= 0 && k1Offset < length && forward[k1Offset] !== -1) {
          const x1 = forward[k1Offset]!;
          const y1 = offset + x1 - k1Offset;
          if (x1 >= n - x2) {
            budget.remaining -= spent;
            return [x1, y1];
          }
        }
      }
    }
  }
  budget.remaining -= spent;
  return null;
}
