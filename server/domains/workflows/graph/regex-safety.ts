/**
 * Which `regex` patterns a `when` condition may use. JavaScript's regular
 * expressions backtrack, and a pattern the definition's author chose runs
 * on text that someone else wrote (an agent's findings, a reviewer's
 * comment), on the event loop, where nothing can interrupt it. So a
 * pattern is refused unless a cheap look at its shape bounds the work:
 *
 * 1. No backreferences (`\1`, `\k<name>`): matching with them is not
 *    bounded by any polynomial.
 * 2. No repeated group that itself repeats or branches: a group with a
 *    quantifier allowing more than one pass (`*`, `+`, `{n,}`, `{n,m}`
 *    with m > 1) may not contain a quantifier with a range (`*`, `+`, `?`,
 *    `{n,m}` with m > n) or an alternation (`|`), at any depth. This is
 *    what makes `(a+)+`, `(a*)*` or `(a|aa)+` exponential; harmless
 *    shapes such as `(\w+\.)+` are refused with them.
 * 3. A budget for the rest: the product of every quantifier's range (the
 *    input cap for an unbounded one, `m - n + 1` for `{n,m}`, 2 for `?`),
 *    times the input cap again when the pattern is not anchored with a
 *    leading `^` (the engine retries from every position), must stay
 *    within BACKTRACK_BUDGET. One unbounded quantifier passes anywhere
 *    (`urgent.*now`), two only behind `^` (`^\w+@\w+$`); `.*.*x`, which
 *    takes minutes on 10,000 characters, does not.
 *
 * The rule overestimates (it cannot see that `[a-z]+\d+` hardly
 * backtracks), so it refuses some harmless patterns; an author rewrites
 * them with fewer quantifiers, or with `^`.
 */

/** Longest pattern accepted. */
export const MAX_PATTERN_CHARS = 200;
/** `regex` tests at most this many characters of its input (the start of it). */
export const REGEX_INPUT_CAP = 10_000;
/** About 0.1 s of matching on a current machine (`.*x` on 10,000 characters). */
export const BACKTRACK_BUDGET = 1e8;

interface Frame {
  repeats: boolean;
  branches: boolean;
}

type Atom = { kind: 'char' } | { kind: 'group'; repeats: boolean; branches: boolean };

const QUANTIFIER_BRACES = /^\{(\d+)(?:(,)(\d*))?\}/;

/** Why `pattern` is refused, or undefined when it is accepted. It must already compile as a RegExp. */
export function patternProblem(pattern: string): string | undefined {
  const stack: Frame[] = [{ repeats: false, branches: false }];
  let atom: Atom | undefined;
  let cost = 1;
  let topLevelBranch = false;
  let i = 0;
  const top = () => stack[stack.length - 1]!;

  while (i < pattern.length) {
    const c = pattern[i]!;
    let quantifier: { min: number; max: number; length: number } | undefined;
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (/[1-9]/.test(next) || (next === 'k' && pattern[i + 2] === '<')) return 'backreferences are not allowed';
      atom = { kind: 'char' };
      i += 2;
      continue;
    }
    if (c === '[') {
      let j = i + 1;
      while (j < pattern.length && pattern[j] !== ']') j += pattern[j] === '\\' ? 2 : 1;
      atom = { kind: 'char' };
      i = j + 1;
      continue;
    }
    if (c === '(') {
      if (pattern.startsWith('(?<=', i) || pattern.startsWith('(?<!', i)) i += 4;
      else if (pattern.startsWith('(?<', i)) i = pattern.includes('>', i) ? pattern.indexOf('>', i) + 1 : pattern.length;
      else if (pattern.startsWith('(?', i)) i += 3;
      else i += 1;
      stack.push({ repeats: false, branches: false });
      atom = undefined;
      continue;
    }
    if (c === ')') {
      const frame = stack.length > 1 ? stack.pop()! : top();
      // What is inside a group is inside every group around it.
      top().repeats ||= frame.repeats;
      top().branches ||= frame.branches;
      atom = { kind: 'group', repeats: frame.repeats, branches: frame.branches };
      i += 1;
      continue;
    }
    if (c === '|') {
      top().branches = true;
      if (stack.length === 1) topLevelBranch = true;
      atom = undefined;
      i += 1;
      continue;
    }
    if (c === '*') quantifier = { min: 0, max: Infinity, length: 1 };
    else if (c === '+') quantifier = { min: 1, max: Infinity, length: 1 };
    else if (c === '?') quantifier = { min: 0, max: 1, length: 1 };
    else if (c === '{' && atom) {
      const braces = QUANTIFIER_BRACES.exec(pattern.slice(i));
      if (braces) {
        const min = Number(braces[1]);
        const max = braces[2] === undefined ? min : braces[3] === '' || braces[3] === undefined ? Infinity : Number(braces[3]);
        quantifier = { min, max, length: braces[0].length };
      }
    }
    if (quantifier && atom) {
      const { min, max } = quantifier;
      if (atom.kind === 'group' && max > 1 && (atom.repeats || atom.branches)) {
        return `a repeated group may not contain ${atom.repeats ? 'a quantifier' : 'an alternation (|)'} (nested repetition can take exponential time, as in (a+)+ or (a|aa)+)`;
      }
      const range = max === Infinity ? REGEX_INPUT_CAP : max - min + 1;
      if (range > 1) top().repeats = true;
      cost *= range;
      i += quantifier.length;
      if (pattern[i] === '?') i += 1; // lazy: the same work, in another order
      atom = undefined;
      continue;
    }
    // An anchor is not something a quantifier repeats; anything else is one character.
    atom = c === '^' || c === '$' ? undefined : { kind: 'char' };
    i += 1;
  }

  const anchored = pattern.startsWith('^') && !topLevelBranch;
  if (!anchored) cost *= REGEX_INPUT_CAP;
  if (cost > BACKTRACK_BUDGET) {
    return anchored
      ? 'too many repetitions: at most two unbounded quantifiers (*, +, {n,}) in a pattern that starts with ^, fewer with wide {n,m} ranges'
      : 'too many repetitions: at most one unbounded quantifier (*, +, {n,}) in a pattern that does not start with ^ (two with ^)';
  }
  return undefined;
}
