import type { TDecision, TSuggestion, TSuggestionScope } from '../../../contract/memory/schemas.js';
import type { Hit, IndexedJudgment } from './search-index.js';

/**
 * Suggest Decision's scoring: a pure function of the matching judgments, the
 * requested scope and the present, so the same judgments and query always
 * give the same answer. docs/decisions.md (Decision memory) states the formula;
 * these constants are its parameters.
 */

/** Relevant judgments a scope needs before it is trusted over a wider one. */
export const MIN_EVIDENCE = 3;
/** The most relevant judgments of the chosen scope that are weighed. */
export const TOP_K = 50;
/** A judgment's weight halves every this many days. */
export const HALF_LIFE_DAYS = 180;
/** Evidence saturation: confidence reaches 1 − 1/e of the share with this many judgments on the side. */
export const SATURATION_JUDGMENTS = 5;
/** The losing side's share from which `primary` warns that the evidence is split. */
export const SPLIT_CAVEAT_SHARE = 0.25;
/** The losing side's share from which it is returned as `conflict`. */
export const CONFLICT_SHARE = 0.35;
/** A side whose newest judgment is older than this many days gets a freshness caveat. */
export const STALE_AFTER_DAYS = 365;
/** Reasons shown per side. */
export const TOP_REASONS = 3;

const DAY_MS = 86_400_000;

export interface SuggestScope {
  organizationId?: string;
  documentId?: string;
}

export interface SuggestResult {
  primary: TSuggestion | null;
  conflict: TSuggestion | null;
}

/** Rank order: more relevant first; among equals the newer, then the lower ID (string order, not locale). */
export function byRank(a: Hit, b: Hit): number {
  if (a.score !== b.score) return b.score - a.score;
  if (a.judgment.decidedAt !== b.judgment.decidedAt) return b.judgment.decidedAt - a.judgment.decidedAt;
  return a.judgment.id < b.judgment.id ? -1 : a.judgment.id > b.judgment.id ? 1 : 0;
}

/** The `k` first of `items` in `compare` order, sorted; O(n log k) instead of sorting thousands of hits. */
export function topK<T>(items: readonly T[], k: number, compare: (a: T, b: T) => number): T[] {
  const top: T[] = [];
  for (const item of items) {
    if (top.length === k && compare(item, top[k - 1]!) >= 0) continue;
    let lo = 0;
    let hi = top.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(top[mid]!, item) <= 0) lo = mid + 1;
      else hi = mid;
    }
    top.splice(lo, 0, item);
    if (top.length > k) top.pop();
  }
  return top;
}

interface Weighed {
  judgment: IndexedJudgment;
  weight: number;
}

interface Side {
  decision: TDecision;
  judgments: Weighed[];
  weight: number;
}

/** The scope to answer from: the narrowest requested one with MIN_EVIDENCE relevant judgments, else the workspace. */
function chooseScope(hits: readonly Hit[], where: SuggestScope): { scope: TSuggestionScope; scopeLabel: string; hits: readonly Hit[] } {
  const { organizationId, documentId } = where;
  if (organizationId !== undefined && documentId !== undefined) {
    const inDocument = hits.filter((h) => h.judgment.organizationId === organizationId && h.judgment.documentId === documentId);
    if (inDocument.length >= MIN_EVIDENCE) return { scope: 'document', scopeLabel: 'this document', hits: inDocument };
  }
  if (organizationId !== undefined) {
    const inOrganization = hits.filter((h) => h.judgment.organizationId === organizationId);
    if (inOrganization.length >= MIN_EVIDENCE) return { scope: 'organization', scopeLabel: `organization ${organizationId}`, hits: inOrganization };
  }
  return { scope: 'workspace', scopeLabel: 'all judgments in this workspace', hits };
}

const normalizedReason = (reason: string) => reason.trim().replace(/\s+/g, ' ').toLowerCase();

/** Newer first, then lower ID: which wording of a reason is shown. */
const newer = (a: IndexedJudgment, b: IndexedJudgment) => a.decidedAt > b.decidedAt || (a.decidedAt === b.decidedAt && a.id < b.id);

/** The most common reasons of a side (count, then weight, then text), each in its most recent wording. */
function topReasons(side: Side): string[] {
  const groups = new Map<string, { count: number; weight: number; latest: IndexedJudgment }>();
  for (const { judgment, weight } of side.judgments) {
    const key = normalizedReason(judgment.reason);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { count: 1, weight, latest: judgment });
    else {
      group.count += 1;
      group.weight += weight;
      if (newer(judgment, group.latest)) group.latest = judgment;
    }
  }
  return [...groups.entries()]
    .sort(([ka, a], [kb, b]) => b.count - a.count || b.weight - a.weight || (ka < kb ? -1 : ka > kb ? 1 : 0))
    .slice(0, TOP_REASONS)
    .map(([, group]) => group.latest.reason.trim());
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * Recommends from the judgments that matched the query (`hits`, any order),
 * for the requested scope, at `nowMs`. No hits: both null.
 */
export function suggestFromHits(hits: readonly Hit[], where: SuggestScope, nowMs: number): SuggestResult {
  if (hits.length === 0) return { primary: null, conflict: null };
  const chosen = chooseScope(hits, where);
  const used = topK(chosen.hits, TOP_K, byRank);
  const maxScore = used[0]!.score;

  const sides: Record<TDecision, Side> = {
    approve: { decision: 'approve', judgments: [], weight: 0 },
    reject: { decision: 'reject', judgments: [], weight: 0 },
  };
  // In rank order, so the floating-point sums come out the same every time.
  for (const { judgment, score } of used) {
    const ageDays = Math.max(0, nowMs - judgment.decidedAt) / DAY_MS;
    const weight = (score / maxScore) * 0.5 ** (ageDays / HALF_LIFE_DAYS);
    const side = sides[judgment.decision];
    side.judgments.push({ judgment, weight });
    side.weight += weight;
  }
  const { approve, reject } = sides;
  const total = approve.weight + reject.weight;
  // Weights underflow to 0 only for judgments centuries old; then the counts decide.
  const share = (side: Side) => (total > 0 ? side.weight / total : side.judgments.length / used.length);
  // A tie in weight goes to the side with more judgments, then to reject: not acting is the cautious default.
  const approveWins =
    approve.weight !== reject.weight ? approve.weight > reject.weight : approve.judgments.length > reject.judgments.length;
  const [winner, loser] = approveWins ? [approve, reject] : [reject, approve];
  const split = Math.min(share(approve), share(reject)) >= SPLIT_CAVEAT_SHARE;

  const suggestion = (side: Side): TSuggestion => {
    const n = side.judgments.length;
    const caveats: string[] = [];
    if (split) caveats.push(`evidence is split: ${approve.judgments.length} approve vs ${reject.judgments.length} reject`);
    const newest = Math.max(...side.judgments.map((w) => w.judgment.decidedAt));
    const ageMs = nowMs - newest;
    if (ageMs > STALE_AFTER_DAYS * DAY_MS) caveats.push(`newest supporting judgment is ${Math.floor(ageMs / DAY_MS)} days old`);
    if (chosen.hits.length < MIN_EVIDENCE) caveats.push(`limited evidence: ${plural(chosen.hits.length, 'judgment')}`);
    const confidence = share(side) * (1 - Math.exp(-n / SATURATION_JUDGMENTS));
    return {
      recommendation: side.decision,
      confidence: Math.min(1, Math.max(0, Math.round(confidence * 1000) / 1000)),
      basedOn: n,
      scope: chosen.scope,
      scopeLabel: chosen.scopeLabel,
      topReasons: topReasons(side),
      uniqueReviewers: new Set(side.judgments.map((w) => w.judgment.reviewerId)).size,
      caveats,
    };
  };

  return {
    primary: suggestion(winner),
    conflict: loser.judgments.length > 0 && share(loser) >= CONFLICT_SHARE ? suggestion(loser) : null,
  };
}
