import type { DataOf } from '../../../contract/common/envelope.js';
import { DECIDED_AT_FUTURE_SLACK_MS, MAX_JUDGMENTS_PER_APPLICATION, POSTINGS_BUDGET, type addJudgment } from '../../../contract/memory/add-judgment.js';
import type { deleteJudgments } from '../../../contract/memory/delete-judgments.js';
import type { getJudgments } from '../../../contract/memory/get-judgments.js';
import type { TJudgment } from '../../../contract/memory/schemas.js';
import type { suggestDecision } from '../../../contract/memory/suggest-decision.js';
import { isUniqueViolation } from '../../db/errors.js';
import { cursorAt } from '../../db/keyset.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import { AppError, alreadyExists, invalidArgument } from '../../lib/app-error.js';
import type { Clock } from '../../lib/clock.js';
import { idMapOf } from '../../lib/id-map.js';
import type { Ids } from '../../lib/ids.js';
import type { PageTokens } from '../../lib/page-token.js';
import type { JudgmentIndexCache } from './index-cache.js';
import { pageScope } from '../../lib/page-scope.js';
import type { JudgmentFilters, JudgmentRecord, JudgmentsRepo } from './repo.js';
import { judgmentRecord, toJudgment } from './shapes.js';
import { suggestFromHits, type SuggestResult } from './suggest.js';
import type { Caller } from '../../platform/caller.js';

const byDecision = (record: JudgmentRecord) => cursorAt(record.decidedAt, record.id);

export function createMemoryService(deps: { repo: JudgmentsRepo; indexes: JudgmentIndexCache; uow: UnitOfWork; pageTokens: PageTokens; ids: Ids; clock: Clock }) {
  const { repo, indexes, uow, pageTokens, clock } = deps;

  return {
    async addJudgment(app: Caller, input: DataOf<typeof addJudgment>): Promise<TJudgment> {
      const now = clock.nowMs();
      const decidedAt = input.decidedAt ?? now;
      if (decidedAt > now + DECIDED_AT_FUTURE_SLACK_MS) throw invalidArgument('data.decidedAt: must not be more than a minute in the future');
      const taken = () => alreadyExists(`judgment ${input.judgmentId} already exists`);
      const judgment = judgmentRecord(app.apiKeyId, input.judgmentId ?? deps.ids.next('jdg'), { ...input, decidedAt }, now);
      try {
        await uow.run(async () => {
          if (input.judgmentId !== undefined && (await repo.exists(app.apiKeyId, input.judgmentId))) throw taken();
          const { size, postings } = await repo.bump(app.apiKeyId, 1, judgment.postings);
          if (size > MAX_JUDGMENTS_PER_APPLICATION) {
            throw new AppError('RESOURCE_EXHAUSTED', `the application holds ${MAX_JUDGMENTS_PER_APPLICATION} judgments, the most it may: delete some first`);
          }
          if (postings > POSTINGS_BUDGET) {
            throw new AppError(
              'RESOURCE_EXHAUSTED',
              `this judgment's ${judgment.postings} distinct words would take the application's judgments past ${POSTINGS_BUDGET} searchable words, the most Suggest Decision indexes: delete some judgments first`,
            );
          }
          await repo.insert(judgment);
        });
      } catch (error) {
        // Two adds of one judgmentId at once: the second loses at the primary key.
        if (isUniqueViolation(error)) throw taken();
        throw error;
      }
      return toJudgment(judgment);
    },

    async getJudgments(app: Caller, input: DataOf<typeof getJudgments>) {
      const filters: JudgmentFilters = { organizationId: input.organizationId, documentId: input.documentId, reviewerId: input.reviewerId, decision: input.decision };
      const scope = pageScope('judgments', app.apiKeyId, filters.organizationId ?? null, filters.documentId ?? null, filters.reviewerId ?? null, filters.decision ?? null);
      const page = await pageTokens.page(scope, input, (after, take) => repo.list(app.apiKeyId, filters, after, take), byDecision);
      return { items: page.items.map(toJudgment), pageToken: page.pageToken };
    },

    async deleteJudgments(app: Caller, input: DataOf<typeof deleteJudgments>) {
      const deleted = await uow.run(async () => {
        const gone = await repo.deleteMany(app.apiKeyId, input.judgmentIds);
        if (gone.ids.length > 0) await repo.bump(app.apiKeyId, -gone.ids.length, -gone.postings);
        return new Set(gone.ids);
      });
      return idMapOf(
        input.judgmentIds.map(
          (id) => [id, deleted.has(id) ? { success: true, message: 'Judgment deleted.' } : { success: false, message: `judgment ${id} does not exist` }] as const,
        ),
      );
    },

    /** Recommends from the judgments most relevant to the query (see suggest.ts and docs/decisions.md). */
    async suggestDecision(app: Caller, input: DataOf<typeof suggestDecision>): Promise<SuggestResult> {
      const index = await indexes.current(app.apiKeyId);
      if (index === null) return { primary: null, conflict: null };
      return suggestFromHits(index.find(input.query), { organizationId: input.organizationId, documentId: input.documentId }, clock.nowMs());
    },
  };
}

export type MemoryService = ReturnType<typeof createMemoryService>;
