import type { DataOf } from '../../../contract/common/envelope.js';
import type { broadcastEvent, getLiveStateData } from '../../../contract/live-state/live-state.js';
import type { TLiveStateEntry } from '../../../contract/live-state/schemas.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import type { Clock } from '../../lib/clock.js';
import type { DocumentKey } from '../../platform/owned-data.js';
import type { AccessLookups } from '../access/lookups.js';
import { toEntry, type LiveStateDelivery } from './delivery.js';
import type { LiveStateRepo } from './repo.js';
import type { Caller } from '../../platform/caller.js';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Broadcast Event and Get Live State Data. A broadcast stores the entry and,
 * once that has committed, delivers it to every connected client: a client
 * never receives a value that a failed write left out of the store.
 */
export function createLiveStateService(deps: { repo: LiveStateRepo; find: Pick<AccessLookups, 'document' | 'heldDocuments' | 'organization'>; uow: UnitOfWork; clock: Clock; delivery: LiveStateDelivery }) {
  const { repo, uow } = deps;
  const { find } = deps;
  const refOf = (app: Caller, input: { organizationId: string; documentId: string }): DocumentKey => ({
    apiKeyId: app.apiKeyId,
    organizationId: input.organizationId,
    documentId: input.documentId,
  });

  async function write(ref: DocumentKey, input: DataOf<typeof broadcastEvent>): Promise<TLiveStateEntry> {
    return uow.run(async () => {
      await find.organization(ref.apiKeyId, ref.organizationId);
      await find.heldDocuments(ref.apiKeyId, ref.organizationId, [ref.documentId]);
      const stored = await repo.findForUpdate(ref, input.liveStateDataId);
      const previous: unknown = stored?.data;
      const data = input.merge === true && isObject(previous) && isObject(input.data) ? { ...previous, ...input.data } : input.data;
      // Strictly increasing per entry, so clients can order two deliveries that crossed between processes.
      const now = BigInt(deps.clock.nowMs());
      const updatedAt = stored && stored.updatedAt >= now ? stored.updatedAt + 1n : now;
      const record = { liveStateDataId: input.liveStateDataId, data, updatedAt };
      const row = await (stored ? repo.update(ref, record) : repo.create(ref, record));
      const entry = toEntry(row);
      deps.delivery.publishAfterCommit(ref, entry);
      return entry;
    });
  }

  return {
    async broadcastEvent(app: Caller, input: DataOf<typeof broadcastEvent>): Promise<TLiveStateEntry> {
      const ref = refOf(app, input);
      try {
        return await write(ref, input);
      } catch (error) {
        // Two first writes of one entry at once: the loser finds the row now, and its lock makes the two take turns.
        if (isUniqueViolation(error)) return write(ref, input);
        throw error;
      }
    },

    async getLiveStateData(app: Caller, input: DataOf<typeof getLiveStateData>): Promise<TLiveStateEntry[]> {
      const ref = refOf(app, input);
      await find.organization(ref.apiKeyId, ref.organizationId);
      await find.document(ref.apiKeyId, ref.organizationId, ref.documentId);
      return (await repo.list(ref, input.liveStateDataId)).map(toEntry);
    },
  };
}

export type LiveStateService = ReturnType<typeof createLiveStateService>;
