import type * as Y from 'yjs';
import { type DiffBudget, type Hunk, diffSequences } from './sequence-diff.js';

/** Text with the formatting Yjs keeps on it (none for a plain text). */
export interface TextRun {
  text: string;
  /** What Y.Text.insert is given; undefined lets Yjs continue the formatting around it. */
  attributes?: Record<string, unknown>;
  /** Equal for runs whose formatting counts as the same; '' for none. */
  format: string;
}

interface DeltaOp {
  insert: unknown;
  attributes?: Record<string, unknown>;
}

/** Turns Yjs formatting attributes into a TextRun.format; absent when formatting is ignored. */
export type FormatKey = (attributes: Record<string, unknown> | undefined) => string;

/** The text of a Y.Text in runs of one format each (as formatKey sees it); embeds left out, as Y.Text.toString does. */
export function readRuns(ytext: Y.Text, formatKey: FormatKey | undefined): TextRun[] {
  const runs: TextRun[] = [];
  for (const op of ytext.toDelta() as DeltaOp[]) {
    if (typeof op.insert !== 'string') continue;
    const format = formatKey ? formatKey(op.attributes) : '';
    const last = runs[runs.length - 1];
    if (last && last.format === format) last.text += op.insert;
    else runs.push({ text: op.insert, attributes: op.attributes, format });
  }
  return runs;
}

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

/** Runs laid end to end: where each starts in the joined text, and an id per distinct format. */
interface Laid {
  text: string;
  starts: number[];
  formats: number[];
  attributes: (Record<string, unknown> | undefined)[];
}

function lay(runs: TextRun[], formatIds: Map<string, number>): Laid {
  const starts: number[] = [];
  const formats: number[] = [];
  const attributes: (Record<string, unknown> | undefined)[] = [];
  let text = '';
  for (const run of runs) {
    if (run.text.length === 0) continue;
    let id = formatIds.get(run.format);
    if (id === undefined) {
      id = formatIds.size;
      formatIds.set(run.format, id);
    }
    starts.push(text.length);
    formats.push(id);
    attributes.push(run.attributes);
    text += run.text;
  }
  return { text, starts, formats, attributes };
}

/** The format id of each UTF-16 unit, or null when all are unformatted. */
function formatPerUnit(laid: Laid): Int32Array | null {
  if (laid.formats.every((id) => id === 0)) return null;
  const out = new Int32Array(laid.text.length);
  for (let i = 0; i < laid.starts.length; i++) {
    out.fill(laid.formats[i]!, laid.starts[i]!, laid.starts[i + 1] ?? laid.text.length);
  }
  return out;
}

/**
 * One number per code point of text[from, to) (so a diff can never cut a
 * surrogate pair in two), its format folded in; and the UTF-16 offset where
 * each one starts, plus the end.
 */
function units(text: string, formats: Int32Array | null, from: number, to: number) {
  const values: number[] = [];
  const offsets: number[] = [];
  for (let i = from; i < to; ) {
    const unit = text.charCodeAt(i);
    const width = isHigh(unit) && i + 1 < to && isLow(text.charCodeAt(i + 1)) ? 2 : 1;
    const codePoint = width === 2 ? text.codePointAt(i)! : unit;
    values.push((formats ? formats[i]! : 0) * 0x110000 + codePoint);
    offsets.push(i);
    i += width;
  }
  offsets.push(to);
  return { values, offsets };
}

/**
 * Each separate edit costs Yjs an item header and a delete range, about a
 * dozen bytes, so retyping a few unchanged characters between two edits is
 * cheaper than keeping them; it also keeps unrelated texts from turning
 * into a confetti of one-letter edits at every letter they happen to share.
 */
const JOIN_GAP = 8;

function joinNearby(hunks: Hunk[]): Hunk[] {
  const out: Hunk[] = [];
  for (const hunk of hunks) {
    const last = out[out.length - 1];
    if (last && hunk.aStart - last.aEnd < JOIN_GAP) {
      last.aEnd = hunk.aEnd;
      last.bEnd = hunk.bEnd;
    } else {
      out.push({ ...hunk });
    }
  }
  return out;
}

/**
 * Makes the string content of `ytext` equal `target` with a minimal set of
 * inserts and deletes at code point granularity. Embeds are kept unless
 * they sit inside a deleted range. Must run inside a transaction.
 * Returns whether anything changed.
 */
export function syncText(ytext: Y.Text, target: TextRun[], budget: DiffBudget, formatKey?: FormatKey): boolean {
  const formatIds = new Map<string, number>([['', 0]]);
  const delta = ytext.toDelta() as DeltaOp[];
  const oldRuns: TextRun[] = [];
  // String offsets at which an embed sits (it follows that many characters).
  const embeds: number[] = [];
  let oldLength = 0;
  for (const op of delta) {
    if (typeof op.insert === 'string') {
      oldRuns.push({ text: op.insert, format: formatKey ? formatKey(op.attributes) : '' });
      oldLength += op.insert.length;
    } else {
      embeds.push(oldLength);
    }
  }
  const old = lay(oldRuns, formatIds);
  const next = lay(target, formatIds);
  const oldFormats = formatPerUnit(old);
  const nextFormats = formatPerUnit(next);
  const a = old.text;
  const b = next.text;
  const same = (i: number, j: number) =>
    a.charCodeAt(i) === b.charCodeAt(j) && (oldFormats ? oldFormats[i]! : 0) === (nextFormats ? nextFormats[j]! : 0);

  let prefix = 0;
  const shorter = Math.min(a.length, b.length);
  while (prefix < shorter && same(prefix, prefix)) prefix++;
  if (prefix > 0 && isHigh(a.charCodeAt(prefix - 1))) prefix--;
  let suffix = 0;
  while (suffix < shorter - prefix && same(a.length - 1 - suffix, b.length - 1 - suffix)) suffix++;
  if (suffix > 0 && isLow(a.charCodeAt(a.length - suffix))) suffix--;
  if (prefix === a.length && prefix === b.length) return false;

  const before = units(a, oldFormats, prefix, a.length - suffix);
  const after = units(b, nextFormats, prefix, b.length - suffix);
  const hunks = joinNearby(diffSequences(before.values, after.values, budget));
  if (hunks.length === 0) return false;

  // Y.Text indices count each embed as one, string offsets do not.
  const embedsUpTo = (offset: number) => {
    let lo = 0;
    let hi = embeds.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (embeds[mid]! <= offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  // Last hunk first, so the string offsets of earlier hunks stay valid.
  for (let i = hunks.length - 1; i >= 0; i--) {
    const hunk = hunks[i]!;
    const deleteFrom = before.offsets[hunk.aStart]!;
    const deleteTo = before.offsets[hunk.aEnd]!;
    const at = deleteFrom + embedsUpTo(deleteFrom);
    if (deleteTo > deleteFrom) {
      const end = deleteTo - 1 + embedsUpTo(deleteTo - 1) + 1;
      ytext.delete(at, end - at);
    }
    insertSlice(ytext, at, next, after.offsets[hunk.bStart]!, after.offsets[hunk.bEnd]!, formatKey !== undefined);
  }
  return true;
}

/** Inserts b[from, to) at `at`, run by run so each piece carries its own formatting. */
function insertSlice(ytext: Y.Text, at: number, laid: Laid, from: number, to: number, formatted: boolean) {
  if (to <= from) return;
  if (!formatted) {
    ytext.insert(at, laid.text.slice(from, to));
    return;
  }
  for (let r = 0; r < laid.starts.length; r++) {
    const start = Math.max(laid.starts[r]!, from);
    const end = Math.min(laid.starts[r + 1] ?? laid.text.length, to);
    if (end <= start) continue;
    // Yjs writes into the attributes object it is given; every insert gets its own.
    ytext.insert(at, laid.text.slice(start, end), { ...laid.attributes[r] });
    at += end - start;
  }
}
