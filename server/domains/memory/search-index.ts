import MiniSearch from 'minisearch';
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
 * (Lucene's classic English stop set). Matching is on whole lower-cased words:
 * no prefix or fuzzy expansion, whose term order (and so the floating-point
 * sums of scores) would depend on the order judgments were indexed in.
 */
const STOP_WORDS = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'but', 'by', 'for', 'if', 'in', 'into', 'is', 'it', 'no', 'not', 'of', 'on', 'or',
  'such', 'that', 'the', 'their', 'then', 'there', 'these', 'they', 'this', 'to', 'was', 'will', 'with',
]);

export function searchTerm(term: string): string | null {
  const lower = term.toLowerCase();
  return lower.length < 2 || STOP_WORDS.has(lower) ? null : lower;
}

/** The subject counts double: it says what was judged; the reason and tags say around it. */
export const SUBJECT_BOOST = 2;

interface IndexedDocument {
  /** Position in `judgments`: the index keeps a number per document, not a copy of its fields. */
  n: number;
  subject: string;
  reason: string;
  tags: string;
}

function newMiniSearch() {
  return new MiniSearch<IndexedDocument>({
    idField: 'n',
    fields: ['subject', 'reason', 'tags'],
    storeFields: [],
    processTerm: searchTerm,
    searchOptions: { boost: { subject: SUBJECT_BOOST }, prefix: false, fuzzy: false, combineWith: 'OR' },
  });
}

/** Judgments added per turn of the event loop while a large index is built. */
export const INDEX_CHUNK = 1000;

/** The full-text index of one application's judgments. */
export class JudgmentIndex {
  private constructor(
    private readonly search: MiniSearch<IndexedDocument>,
    private readonly judgments: IndexedJudgment[],
  ) {}

  get size(): number {
    return this.judgments.length;
  }

  /**
   * Builds the index. Judgments are indexed in ID order whatever order they
   * come in: BM25's average field length is a running floating-point mean,
   * so the same judgments must be added in the same order to score alike.
   * With `yieldToLoop` (the server's rebuilds) it lets the event loop run
   * between chunks of INDEX_CHUNK judgments, so other requests do not wait
   * for a whole rebuild.
   */
  static async build(judgments: readonly SearchableJudgment[], options: { yieldToLoop?: boolean } = {}): Promise<JudgmentIndex> {
    const sorted = [...judgments].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const search = newMiniSearch();
    const kept: IndexedJudgment[] = [];
    const intern = interner();
    for (let from = 0; from < sorted.length; from += INDEX_CHUNK) {
      if (options.yieldToLoop && from > 0) await nextTurn();
      for (const j of sorted.slice(from, from + INDEX_CHUNK)) {
        const n = kept.length;
        search.add({ n, subject: j.subject, reason: j.reason, tags: j.tags.join(' ') });
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
    return new JudgmentIndex(search, kept);
  }

  /** Every judgment matching any term of the query, with its score, in no particular order. */
  find(query: string): Hit[] {
    const hits: Hit[] = [];
    // The filter sees every match: collecting there and keeping none spares
    // MiniSearch sorting thousands of results that scoring ranks its own way.
    this.search.search(query, {
      filter: (result) => {
        if (result.score > 0) hits.push({ judgment: this.judgments[result.id as number]!, score: result.score });
        return false;
      },
    });
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
