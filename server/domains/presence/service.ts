import type { DataOf } from '../../../contract/common/envelope.js';
import type { addPresence, deletePresence, getPresence, updatePresence } from '../../../contract/live-state/presence.js';
import type { TPresenceEntry } from '../../../contract/live-state/schemas.js';
import { createdOnce } from '../../db/errors.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import { notFound } from '../../lib/app-error.js';
import type { Clock } from '../../lib/clock.js';
import { deletionOutcomes } from '../../lib/id-map.js';
import type { DocumentKey } from '../../platform/owned-data.js';
import type { AccessLookups } from '../access/lookups.js';
import { newClientId, type PresenceAwareness } from './awareness.js';
import type { ConnectedUsers } from './connected-users.js';
import type { PresenceRecord, PresenceRepo } from './repo.js';
import type { Caller } from '../../platform/caller.js';

function toEntry(row: PresenceRecord): TPresenceEntry {
  return {
    userId: row.userId,
    user: row.user,
    state: row.state,
    source: 'api',
    lastUpdated: Number(row.updatedAt),
  };
}

/**
 * Add / Update / Delete / Get Presence. Entries are rows; every change
 * reaches connected clients as awareness states once it has committed
 * (awareness.ts). Get Presence adds the users connected over WebSocket.
 */
export function createPresenceService(deps: {
  repo: PresenceRepo;
  find: Pick<AccessLookups, 'document' | 'heldDocuments' | 'organization'>;
  uow: UnitOfWork;
  clock: Clock;
  awareness: PresenceAwareness;
  connected: ConnectedUsers;
}) {
  const { repo, uow, awareness, find } = deps;
  const refOf = (app: Caller, input: { organizationId: string; documentId: string }): DocumentKey => ({
    apiKeyId: app.apiKeyId,
    organizationId: input.organizationId,
    documentId: input.documentId,
  });
  const describe = (userId: string, ref: DocumentKey) => `presence of user ${userId} on document ${ref.documentId}`;

  async function existing(ref: DocumentKey) {
    await find.organization(ref.apiKeyId, ref.organizationId);
    await find.document(ref.apiKeyId, ref.organizationId, ref.documentId);
  }

  return {
    async addPresence(app: Caller, input: DataOf<typeof addPresence>): Promise<TPresenceEntry> {
      const ref = refOf(app, input);
      return uow.run(async () => {
        await find.organization(ref.apiKeyId, ref.organizationId);
        await find.heldDocuments(ref.apiKeyId, ref.organizationId, [ref.documentId]);
        const entry: PresenceRecord = {
          ...ref,
          userId: input.user.userId,
          user: input.user,
          state: input.state ?? {},
          clientId: newClientId(),
          updatedAt: BigInt(deps.clock.nowMs()),
        };
        const row = await createdOnce(describe(entry.userId, ref), () => repo.insert(entry));
        awareness.publishAfterCommit(ref, { set: [row], retire: [] });
        return toEntry(row);
      });
    },

    async updatePresence(app: Caller, input: DataOf<typeof updatePresence>): Promise<TPresenceEntry> {
      const ref = refOf(app, input);
      return uow.run(async () => {
        await find.organization(ref.apiKeyId, ref.organizationId);
        await find.heldDocuments(ref.apiKeyId, ref.organizationId, [ref.documentId]);
        const stored = await repo.findForUpdate(ref, input.userId);
        if (!stored) throw notFound(`${describe(input.userId, ref)} does not exist`);
        const row = await repo.update(stored, { state: input.state, clientId: newClientId(), updatedAt: BigInt(deps.clock.nowMs()) });
        awareness.publishAfterCommit(ref, { set: [row], retire: [stored.clientId] });
        return toEntry(row);
      });
    },

    async deletePresence(app: Caller, input: DataOf<typeof deletePresence>) {
      const ref = refOf(app, input);
      const deleted = await uow.run(async () => {
        await existing(ref);
        const rows = await repo.deleteUsers(ref, input.userIds);
        awareness.publishAfterCommit(ref, { set: [], retire: rows.map((row) => row.clientId) });
        return rows;
      });
      return deletionOutcomes(input.userIds, new Set(deleted.map((row) => row.userId)), 'presence', input.organizationId);
    },

    /** One entry per user: an API entry wins over the same user's connections (the application set it on purpose). */
    async getPresence(app: Caller, input: DataOf<typeof getPresence>): Promise<TPresenceEntry[]> {
      const ref = refOf(app, input);
      await existing(ref);
      const entries = new Map<string, TPresenceEntry>();
      for (const row of await repo.list(ref)) entries.set(row.userId, toEntry(row));
      for (const { user, state, lastUpdated } of await deps.connected.of(ref)) {
        if (!entries.has(user.userId)) entries.set(user.userId, { userId: user.userId, user, state, source: 'connection', lastUpdated });
      }
      return [...entries.values()].sort((a, b) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0));
    },
  };
}

export type PresenceService = ReturnType<typeof createPresenceService>;
