import { setImmediate as nextTurn } from 'node:timers/promises';
import { MAX_TERMS_PER_JUDGMENT } from '../../../contract/memory/add-judgment.js';
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

/** The longest the builder holds the event loop before it lets other work run (server rebuilds). */
export const BUILD_SLICE_MS = 20;

const fieldText = (j: Pick<SearchableJudgment, 'subject' | 'reason' | 'tags'>, field: number) =>
  field === 0 ? j.subject : field === 1 ? j.reason : j.tags.join(' ');

/** What a judgment is indexed under: per distinct indexed term its count in each field, and each field's word count. */
export interface JudgmentTerms {
  /** Term → [count in subject, in reason, in tags]; at most MAX_TERMS_PER_JUDGMENT terms, in order of first appearance. */
  terms: Map<string, [number, number, number]>;
  /** Every word of each field, indexed or not: BM25's field length. */
  lengths: [number, number, number];
}

/**
 * The terms of a judgment: the first MAX_TERMS_PER_JUDGMENT distinct ones in
 * field order (subject, reason, tags); later new words are not searchable,
 * so one judgment of random words cannot grow the index without bound. Add
 * Judgment counts these against the application's POSTINGS_BUDGET with this
 * same function, so the budget and the index agree.
 */
export function judgmentTerms(j: Pick<SearchableJudgment, 'subject' | 'reason' | 'tags'>): JudgmentTerms {
  const found = new Map<string, [number, number, number]>();
  const lengths: [number, number, number] = [0, 0, 0];
  for (let f = 0; f < FIELDS.length; f++) {
    const words = terms(fieldText(j, f));
    lengths[f] = words.length;
    for (const word of words) {
      const counts = found.get(word);
      if (counts !== undefined) counts[f] = counts[f]! + 1;
      else if (found.size < MAX_TERMS_PER_JUDGMENT) {
        const fresh: [number, number, number] = [0, 0, 0];
        fresh[f] = 1;
        found.set(word, fresh);
      }
    }
  }
  return { terms: found, lengths };
}

/** The postings a judgment adds to the index (its distinct indexed terms): what POSTINGS_BUDGET counts. */
export const postingsOf = (j: Pick<SearchableJudgment, 'subject' | 'reason' | 'tags'>): number => judgmentTerms(j).terms.size;

/** A typed array that doubles when full (the builder's buffers). */
class Growing<T extends Uint32Array | Uint16Array | Int32Array> {
  length = 0;
  constructor(
    public array: T,
    private readonly make: (size: number) => T,
  ) {}
  ensure(size: number): void {
    if (size <= this.array.length) return;
    const bigger = this.make(Math.max(size, this.array.length * 2));
    bigger.set(this.array);
    this.array = bigger;
  }
  push(value: number): void {
    this.ensure(this.length + 1);
    this.array[this.length++] = value;
  }
}

const MAX_TF = 0xffff;

const SHARDS = 256;

/**
 * Term → term ID, in SHARDS maps: one map of two million words rehashes for
 * tens of milliseconds at a stretch when it grows; a shard, a fraction of it.
 */
class Vocabulary {
  size = 0;
  private readonly shards = Array.from({ length: SHARDS }, () => new Map<string, number>());

  private shard(word: string): Map<string, number> {
    const hash = Math.imul(word.charCodeAt(0), 31) + Math.imul(word.charCodeAt(word.length - 1), 17) + word.charCodeAt(word.length >> 1) + word.length;
    return this.shards[hash & (SHARDS - 1)]!;
  }

  get(word: string): number | undefined {
    return this.shard(word).get(word);
  }

  /** The word's ID, a new one (the next integer) when it is new. */
  intern(word: string): { id: number; added: boolean } {
    const shard = this.shard(word);
    const known = shard.get(word);
    if (known !== undefined) return { id: known, added: false };
    shard.set(word, this.size);
    return { id: this.size++, added: true };
  }
}

/**
 * Builds a JudgmentIndex from batches of judgments (the server adds each page
 * it reads, so the searched texts of all judgments are never held at once).
 * Memory per posting is a few bytes: while building, per judgment its term
 * IDs (4 bytes each) and per-field counts (3 × 2 bytes); at the end they are
 * regrouped by term into arrays of the same size.
 */
export class JudgmentIndexBuilder {
  private readonly vocabulary = new Vocabulary();
  private readonly kept: IndexedJudgment[] = [];
  private readonly intern = interner();
  /** Per judgment, how many postings it has (≤ MAX_TERMS_PER_JUDGMENT). */
  private readonly perJudgment = new Growing(new Uint16Array(1024), (n) => new Uint16Array(n));
  /** The postings in judgment order: term ID, and 3 field counts each. */
  private readonly termIds = new Growing(new Uint32Array(4096), (n) => new Uint32Array(n));
  private readonly counts = new Growing(new Uint16Array(3 * 4096), (n) => new Uint16Array(n));
  /** Per term, the judgments that have it (BM25's n). */
  private readonly frequency = new Growing(new Int32Array(4096), (n) => new Int32Array(n));
  private readonly lengths = FIELDS.map(() => new Growing(new Uint16Array(1024), (n) => new Uint16Array(n)));
  private readonly totals = [0, 0, 0];
  private sliceStarted = performance.now();

  constructor(private readonly options: { yieldToLoop?: boolean } = {}) {}

  /** Lets the event loop run when this slice of work has taken BUILD_SLICE_MS. */
  private async pause(): Promise<void> {
    if (!this.options.yieldToLoop || performance.now() - this.sliceStarted < BUILD_SLICE_MS) return;
    await nextTurn();
    this.sliceStarted = performance.now();
  }

  async add(judgments: readonly SearchableJudgment[]): Promise<void> {
    const { vocabulary, intern, frequency, termIds, counts } = this;
    for (const j of judgments) {
      await this.pause();
      const { terms: found, lengths } = judgmentTerms(j);
      for (let f = 0; f < FIELDS.length; f++) {
        this.lengths[f]!.push(Math.min(lengths[f]!, 0xffff));
        this.totals[f]! += lengths[f]!;
      }
      this.perJudgment.push(found.size);
      termIds.ensure(termIds.length + found.size);
      counts.ensure(3 * (termIds.length + found.size));
      for (const [word, tf] of found) {
        const { id, added } = vocabulary.intern(word);
        if (added) frequency.push(0);
        frequency.array[id]! += 1;
        const at = termIds.length++;
        termIds.array[at] = id;
        counts.array[3 * at] = Math.min(tf[0], MAX_TF);
        counts.array[3 * at + 1] = Math.min(tf[1], MAX_TF);
        counts.array[3 * at + 2] = Math.min(tf[2], MAX_TF);
      }
      counts.length = 3 * termIds.length;
      this.kept.push({
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

  /** Regroups the postings by term (a counting sort: one pass to place each posting). */
  async finish(): Promise<JudgmentIndex> {
    const terms = this.vocabulary.size;
    const total = this.termIds.length;
    const frequency = this.frequency.array.slice(0, terms);
    const offsets = new Uint32Array(terms + 1);
    for (let t = 0; t < terms; t++) offsets[t + 1] = offsets[t]! + frequency[t]!;
    const next = offsets.slice(0, terms);
    const docs = new Uint32Array(total);
    const counts = new Uint16Array(3 * total);
    const termIds = this.termIds.array;
    const forward = this.counts.array;
    const perJudgment = this.perJudgment.array;
    let at = 0;
    for (let doc = 0; doc < this.kept.length; doc++) {
      if ((doc & 1023) === 0) await this.pause();
      for (const end = at + perJudgment[doc]!; at < end; at++) {
        const place = next[termIds[at]!]!++;
        docs[place] = doc;
        counts[3 * place] = forward[3 * at]!;
        counts[3 * place + 1] = forward[3 * at + 1]!;
        counts[3 * place + 2] = forward[3 * at + 2]!;
      }
    }
    const size = this.kept.length;
    const fields = FIELDS.map(
      (_, f): FieldStats => ({ lengths: this.lengths[f]!.array.slice(0, size), averageLength: size === 0 ? 0 : this.totals[f]! / size }),
    );
    return new JudgmentIndex(this.kept, this.vocabulary, frequency, { offsets, docs, counts }, fields);
  }
}

/** Per field: each judgment's word count and their average. */
interface FieldStats {
  lengths: Uint16Array;
  averageLength: number;
}

/** For term t, postings offsets[t] … offsets[t + 1] − 1: a judgment and the term's count in each of its 3 fields. */
interface Postings {
  offsets: Uint32Array;
  docs: Uint32Array;
  counts: Uint16Array;
}

/**
 * The full-text index of one application's judgments: an inverted index
 * scored with BM25 per field. Built for this use rather than taken from a
 * general library: at 50,000 judgments a common query matches thousands, and
 * summing into one array of scores costs a fraction of a millisecond where a
 * general index's per-match objects cost several (docs/decisions.md). Scores
 * do not depend on the order judgments were added: per judgment they are
 * summed term by term and field by field in query order, and average field
 * lengths are exact integer sums over the count.
 */
export class JudgmentIndex {
  private readonly scores: Float64Array;

  /** Use build or JudgmentIndexBuilder. */
  constructor(
    private readonly judgments: IndexedJudgment[],
    private readonly vocabulary: Vocabulary,
    /** Per term: the judgments that have it in any field (BM25's n; per field, a word rare in reasons but common in subjects would look rare). */
    private readonly documentFrequency: Int32Array,
    private readonly postings: Postings,
    private readonly fields: FieldStats[],
  ) {
    this.scores = new Float64Array(judgments.length);
  }

  get size(): number {
    return this.judgments.length;
  }

  /** Postings held (the sum over judgments of their distinct indexed terms). */
  get postingCount(): number {
    return this.postings.docs.length;
  }

  /**
   * Builds the index. With `yieldToLoop` (the server's rebuilds) it lets the
   * event loop run every BUILD_SLICE_MS, so other requests do not wait for a
   * whole rebuild.
   */
  static async build(judgments: readonly SearchableJudgment[], options: { yieldToLoop?: boolean } = {}): Promise<JudgmentIndex> {
    const builder = new JudgmentIndexBuilder(options);
    await builder.add(judgments);
    return builder.finish();
  }

  /**
   * Every judgment matching any term of the query (OR), with its BM25 score:
   * Σ over the query's distinct terms and the fields, boost × idf × tf·(k1+1) / (tf + k1·(1 − b + b·len/avgLen)),
   * idf = ln(1 + (N − n + 0.5) / (n + 0.5)) with n the judgments that have the term in any field. In no particular order.
   */
  find(query: string): Hit[] {
    const { scores, postings, fields } = this;
    const total = this.judgments.length;
    const touched: number[] = [];
    const norms = fields.map((field) => BM25_K1 / field.averageLength);
    for (const word of new Set(terms(query))) {
      const id = this.vocabulary.get(word);
      if (id === undefined) continue;
      const matching = this.documentFrequency[id]!;
      const idf = Math.log(1 + (total - matching + 0.5) / (matching + 0.5));
      const start = postings.offsets[id]!;
      const end = postings.offsets[id + 1]!;
      for (let i = start; i < end; i++) {
        const doc = postings.docs[i]!;
        let sum = scores[doc]!;
        if (sum === 0) touched.push(doc);
        // Field by field, as the formula is written, so the sums are the same whatever the layout.
        for (let f = 0; f < FIELDS.length; f++) {
          const tf = postings.counts[3 * i + f]!;
          if (tf === 0) continue;
          const weight = FIELD_BOOST[f]! * idf;
          sum += (weight * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B) + norms[f]! * BM25_B * fields[f]!.lengths[doc]!);
        }
        scores[doc] = sum;
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
