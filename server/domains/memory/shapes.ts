import type { DataOf } from '../../../contract/common/envelope.js';
import type { addJudgment } from '../../../contract/memory/add-judgment.js';
import type { TDecision, TJudgment } from '../../../contract/memory/schemas.js';
import type { JudgmentRow, SearchableRow } from './repo.js';
import { postingsOf, type SearchableJudgment } from './search-index.js';

/**
 * The row Add Judgment writes for `input` (with its ID and time resolved).
 * The benchmark seeds through this too, so its rows are the API's.
 */
export function judgmentRow(apiKeyId: string, id: string, input: Omit<DataOf<typeof addJudgment>, 'judgmentId'> & { decidedAt: number }, createdAt: number): JudgmentRow {
  return {
    apiKeyId,
    id,
    subject: input.subject,
    decision: input.decision,
    reason: input.reason,
    reviewerId: input.reviewerId,
    organizationId: input.organizationId ?? null,
    documentId: input.documentId ?? null,
    tags: JSON.stringify(input.tags ?? []),
    decidedAt: BigInt(input.decidedAt),
    createdAt: BigInt(createdAt),
    postings: postingsOf({ subject: input.subject, reason: input.reason, tags: input.tags ?? [] }),
  };
}

/** Tags as stored; anything but an array of strings (a hand edit) reads as none. */
export function tagsOf(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((tag): tag is string => typeof tag === 'string') : [];
  } catch {
    return [];
  }
}

/** A stored judgment as the search index takes it (and as a Judgment reads, under the index's `id`). */
export function searchableOf(row: SearchableRow): SearchableJudgment {
  return {
    id: row.id,
    subject: row.subject,
    decision: row.decision as TDecision,
    reason: row.reason,
    reviewerId: row.reviewerId,
    organizationId: row.organizationId,
    documentId: row.documentId,
    tags: tagsOf(row.tags),
    decidedAt: Number(row.decidedAt),
  };
}

export function toJudgment(row: JudgmentRow): TJudgment {
  const { id, ...rest } = searchableOf(row);
  // tagsOf made the array for this judgment alone: the index only reads it, a response may own it.
  return { judgmentId: id, ...rest, tags: rest.tags as string[], createdAt: Number(row.createdAt) };
}
