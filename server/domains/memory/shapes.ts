import type { DataOf } from '../../../contract/common/envelope.js';
import type { addJudgment } from '../../../contract/memory/add-judgment.js';
import type { TDecision, TJudgment } from '../../../contract/memory/schemas.js';
import type { JudgmentRecord, SearchableRecord } from './repo.js';
import { postingsOf, type SearchableJudgment } from './search-index.js';

/**
 * The judgment Add Judgment stores for `input` (with its ID and time resolved).
 * The benchmark seeds through this too, so its rows are the API's.
 */
export function judgmentRecord(apiKeyId: string, id: string, input: Omit<DataOf<typeof addJudgment>, 'judgmentId'> & { decidedAt: number }, createdAt: number): JudgmentRecord {
  const tags = input.tags ?? [];
  return {
    apiKeyId,
    id,
    subject: input.subject,
    decision: input.decision,
    reason: input.reason,
    reviewerId: input.reviewerId,
    organizationId: input.organizationId ?? null,
    documentId: input.documentId ?? null,
    tags,
    decidedAt: BigInt(input.decidedAt),
    createdAt: BigInt(createdAt),
    postings: postingsOf({ subject: input.subject, reason: input.reason, tags }),
  };
}

/** A stored judgment as the search index takes it (and as a Judgment reads, under the index's `id`). */
export function searchableOf(record: SearchableRecord): SearchableJudgment {
  return {
    id: record.id,
    subject: record.subject,
    decision: record.decision as TDecision,
    reason: record.reason,
    reviewerId: record.reviewerId,
    organizationId: record.organizationId,
    documentId: record.documentId,
    tags: record.tags,
    decidedAt: Number(record.decidedAt),
  };
}

export function toJudgment(record: JudgmentRecord): TJudgment {
  const { id, ...rest } = searchableOf(record);
  return { judgmentId: id, ...rest, tags: record.tags, createdAt: Number(record.createdAt) };
}
