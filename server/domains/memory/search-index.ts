import { setImmediate as nextTurn } from 'node:timers/promises';
import type { TDecision } from '../../../contract/memory/schemas.js';

/** What scoring needs of a judgment; kept in memory for every judgment of a cached application. */
export interface IndexedJudgment {
  id: string;
  decision: TDecision;
  reviewerId: string;
  reason: string;
  decidedAt: number;
  organizationId: string | null;
  documentId: string | null;
}

/** A judgment as the index reads it: the searched fields too (dropped once indexed). */
export interface SearchableJudgment extends IndexedJudgment {
  subject: string;
  tags: readonly string[];
}

/** A judgment that matched a query, with its BM25 relevance (> 0). */
export interface Hit {
  judgment: IndexedJudgment;
  score: number;
}

/**
 * English function words that would make nearly every judgment "relevant"
 * (Lucene's classic English stop set).
 */
const STOP_WORDS = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'but', 'by', 'for', 'if', 'in', 'into', 'is', 'it', 'no', 'not', 'of', 'on', 'or',
  'such', 'that', 'the', 'their', 'then', 'there', 'these', 'they', 'this', 'to', 'was', 'will', 'with',
]);

/** Words are split at white space, separators and punctuation (Unicode classes, so every script tokenizes). */
const SEPARATORS = /[\s\p{Z}\p{P}]+/u;

/** The searchable words of a text: NFC, lower-cased, without stop words and one-character words. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const word of text.normalize('NFC').toLowerCase().split(SEPARATORS)) {
    if (word.length >= 2 && !STOP_WORDS.has(word)) out.push(word);
  }
  return out;
}

/** The searched fields, in the order their scores are added; the subject counts double: it says what was judged. */
export const FIELDS = ['subject', 'reason', 'tags'] as const;
export const FIELD_BOOST = [2, 1, 1] as const;
/** Okapi BM25's usual parameters: term-frequency saturation and length normalization. */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** Judgments indexed per turn of the event loop while a large index is built. */
export const INDEX_CHUNK = 1000;

const fieldText = (j: SearchableJudgment, field: number) => (field === 0 ? j.subject : field === 1 ? j.reason : j.tags.join(' '));

/** One field's postings, compressed once built: for term t, entries offsets[t] … offsets[t + 1] − 1. */
interface Postings {
  offsets: Int32Array;
  docs: Int32Array;
  counts: Uint16Array;
  lengths: Uint16Array;
  averageLength: number;
}

/**
 * The full-text index of one application's judgments: an inverted index per
 * field scored with BM25. Built for this use rather than taken from a
 * general library: at 50,000 judgments a common query matches thousands, and
 * summing into one array of scores costs a fraction of a millisecond where a
 * general index's per-match objects cost several (see the README). Scores
 * do not depend on the order judgments were added: per judgment they are
 * summed term by term and field by field in query order, and average field
 * lengths are exact integer sums over the count.
 */
export class JudgmentIndex {
  private readonly scores: Float64Array;

  private constructor(
    private readonly judgments: IndexedJudgment[],
    private readonly vocabulary: Map<string, number>,
    /** Per term: the judgments that have it in any field (BM25's n; per field, a word rare in reasons but common in subjects would look rare). */
    private readonly documentFrequency: Int32Array,
    private readonly fields: Postings[],
  ) {
    this.scores = new Float64Array(judgments.length);
  }

  get size(): number {
    return this.judgments.length;
  }

  /**
   * Builds the index. With `yieldToLoop` (the server's rebuilds) it lets the
   * event loop run between chunks of INDEX_CHUNK judgments, so other
   * requests do not wait for a whole rebuild.
   */
  static async build(judgments: readonly SearchableJudgment[], options: { yieldToLoop?: boolean } = {}): Promise<JudgmentIndex> {
    const vocabulary = new Map<string, number>();
    // While building: per field, per term ID, the (judgment, count) pairs.
    const building = FIELDS.map(() => ({ docs: [] as number[][], counts: [] as number[][], lengths: new Uint16Array(judgments.length), total: 0 }));
    const frequency: number[] = [];
    const kept: IndexedJudgment[] = [];
    const intern = interner();
    for (let from = 0; from < judgments.length; from += INDEX_CHUNK) {
      if (options.yieldToLoop && from > 0) await nextTurn();
      for (let n = from; n < Math.min(from + INDEX_CHUNK, judgments.length); n++) {
        const j = judgments[n]!;
        const seen = new Set<number>();
        for (let f = 0; f < FIELDS.length; f++) {
          const words = terms(fieldText(j, f));
          const field = building[f]!;
          field.lengths[n] = Math.min(words.length, 0xffff);
          field.total += words.length;
          const counts = new Map<number, number>();
          for (const word of words) {
            let id = vocabulary.get(word);
            if (id === undefined) {
              id = vocabulary.size;
              vocabulary.set(word, id);
            }
            counts.set(id, (counts.get(id) ?? 0) + 1);
          }
          for (const [id, count] of counts) {
            (field.docs[id] ??= []).push(n);
            (field.counts[id] ??= []).push(Math.min(count, 0xffff));
            seen.add(id);
          }
        }
        for (const id of seen) frequency[id] = (frequency[id] ?? 0) + 1;
        kept.push({
          id: j.id,
          decision: j.decision,
          reviewerId: intern(j.reviewerId),
          reason: intern(j.reason),
          decidedAt: j.decidedAt,
          organizationId: j.organizationId === null ? null : intern(j.organizationId),
          documentId: j.documentId === null ? null : intern(j.documentId),
        });
      }
    }
    if (options.yieldToLoop) await nextTurn();
    const fields = building.map((field): Postings => {
      const offsets = new Int32Array(vocabulary.size + 1);
      for (let t = 0; t < vocabulary.size; t++) offsets[t + 1] = offsets[t]! + (field.docs[t]?.length ?? 0);
      const docs = new Int32Array(offsets[vocabulary.size]!);
      const counts = new Uint16Array(docs.length);
      for (let t = 0; t < vocabulary.size; t++) {
        docs.set(field.docs[t] ?? [], offsets[t]!);
        counts.set(field.counts[t] ?? [], offsets[t]!);
      }
      return { offsets, docs, counts, lengths: field.lengths, averageLength: judgments.length === 0 ? 0 : field.total / judgments.length };
    });
    return new JudgmentIndex(kept, vocabulary, Int32Array.from(frequency, (n) => n ?? 0), fields);
  }

  /**
   * Every judgment matching any term of the query (OR), with its BM25 score:
   * Σ over the query's distinct terms and the fields, boost × idf × tf·(k1+1) / (tf + k1·(1 − b + b·len/avgLen)),
   * idf = ln(1 + (N − n + 0.5) / (n + 0.5)) with n the judgments that have the term in any field. In no particular order.
   */
  find(query: string): Hit[] {
    const { scores } = this;
    const total = this.judgments.length;
    const touched: number[] = [];
    for (const word of new Set(terms(query))) {
      const id = this.vocabulary.get(word);
      if (id === undefined) continue;
      const matching = this.documentFrequency[id]!;
      const idf = Math.log(1 + (total - matching + 0.5) / (matching + 0.5));
      for (let f = 0; f < FIELDS.length; f++) {
        const field = this.fields[f]!;
        const start = field.offsets[id]!;
        const end = field.offsets[id + 1]!;
        if (start === end) continue;
        const weight = FIELD_BOOST[f]! * idf;
        const norm = BM25_K1 / field.averageLength;
        for (let i = start; i < end; i++) {
          const doc = field.docs[i]!;
          const tf = field.counts[i]!;
          const score = (weight * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B) + norm * BM25_B * field.lengths[doc]!);
          if (scores[doc] === 0) touched.push(doc);
          scores[doc] = scores[doc]! + score;
        }
      }
    }
    const hits: Hit[] = [];
    for (const doc of touched) {
      hits.push({ judgment: this.judgments[doc]!, score: scores[doc]! });
      scores[doc] = 0;
    }
    return hits;
  }
}

/** One string object per distinct value: reviewers, scopes and stock reasons repeat across thousands of judgments. */
function interner(): (value: string) => string {
  const seen = new Map<string, string>();
  return (value) => {
    const known = seen.get(value);
    if (known !== undefined) return known;
    seen.set(value, value);
    return value;
  };
}
