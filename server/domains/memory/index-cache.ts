import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { TDecision } from '../../../contract/memory/schemas.js';
import type { JudgmentsRepo } from './repo.js';
import { JudgmentIndex, type SearchableJudgment } from './search-index.js';
import { tagsOf } from './shapes.js';

/** Rows read per query while an index is built: each page is a short synchronous stretch on SQLite. */
export const SCAN_PAGE = 1000;

interface Entry {
  revision: number;
  index: Promise<JudgmentIndex>;
}

/**
 * The search indexes of the applications that asked for suggestions lately
 * (least recently used out first). Before each use the application's
 * revision is read (one primary-key read); when any process changed its
 * judgments since the index was built, the index is rebuilt from the
 * database. The revision is read before the rows, so an index is never newer
 * than its label: a change racing a build costs one more rebuild, never a
 * stale answer. Concurrent requests for one revision share one build.
 */
export function createJudgmentIndexCache(deps: { repo: JudgmentsRepo; capacity: number; log: Logger; now?: () => number }) {
  const { repo, capacity, log } = deps;
  const now = deps.now ?? (() => performance.now());
  const entries = new Map<string, Entry>();

  async function build(apiKeyId: string, revision: number): Promise<JudgmentIndex> {
    const started = now();
    const judgments: SearchableJudgment[] = [];
    let afterId: string | undefined;
    for (;;) {
      // On SQLite the driver answers synchronously and its promises settle as microtasks: without a
      // turn of the event loop between pages, reading 50,000 rows would hold it for the whole scan.
      if (afterId !== undefined) await nextTurn();
      const rows = await repo.scan(apiKeyId, afterId, SCAN_PAGE);
      for (const row of rows) {
        judgments.push({
          id: row.id,
          subject: row.subject,
          decision: row.decision as TDecision,
          reason: row.reason,
          reviewerId: row.reviewerId,
          organizationId: row.organizationId,
          documentId: row.documentId,
          tags: tagsOf(row.tags),
          decidedAt: Number(row.decidedAt),
        });
      }
      if (rows.length < SCAN_PAGE) break;
      afterId = rows[rows.length - 1]!.id;
    }
    const index = await JudgmentIndex.build(judgments, { yieldToLoop: true });
    log.info({ apiKeyId, revision, judgments: index.size, ms: Math.round(now() - started) }, 'judgment search index built');
    return index;
  }

  return {
    /** The application's current index, or null when it has no judgments. */
    async current(apiKeyId: string): Promise<JudgmentIndex | null> {
      const state = await repo.revision(apiKeyId);
      if (state === null || state.size === 0) {
        entries.delete(apiKeyId);
        return null;
      }
      let entry = entries.get(apiKeyId);
      if (entry === undefined || entry.revision !== state.revision) {
        const created: Entry = { revision: state.revision, index: build(apiKeyId, state.revision) };
        // A failed build is forgotten, so the next request tries again.
        created.index.catch(() => {
          if (entries.get(apiKeyId) === created) entries.delete(apiKeyId);
        });
        entry = created;
      }
      entries.delete(apiKeyId);
      entries.set(apiKeyId, entry);
      for (const oldest of entries.keys()) {
        if (entries.size <= capacity) break;
        entries.delete(oldest);
      }
      return entry.index;
    },

    /** Applications with an index in memory (tests). */
    cached: (): string[] => [...entries.keys()],
  };
}

export type JudgmentIndexCache = ReturnType<typeof createJudgmentIndexCache>;
