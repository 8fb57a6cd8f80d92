import type { TUserRef } from '../../../contract/common/content.js';
import { providerOfClient, type Db } from '../../db/client.js';
import { userJson } from '../../db/json-columns.js';
import type { DocumentKey } from '../../platform/owned-data.js';

/** A presence entry set through the API (see Presence in prisma/models.prisma), its JSON columns decoded. */
export interface PresenceRecord {
  apiKeyId: string;
  organizationId: string;
  documentId: string;
  userId: string;
  /** The user as given. */
  user: TUserRef;
  state: Record<string, unknown>;
  clientId: number;
  updatedAt: bigint;
}

/** The row as stored: the JSON columns are TEXT. */
type PresenceRow = Omit<PresenceRecord, 'user' | 'state'> & { user: string; state: string };

const presenceFrom = (row: PresenceRow): PresenceRecord => ({ ...row, user: JSON.parse(row.user) as TUserRef, state: JSON.parse(row.state) as Record<string, unknown> });

const whereEntry = (ref: DocumentKey, userId: string) => ({
  apiKeyId_organizationId_documentId_userId: { apiKeyId: ref.apiKeyId, organizationId: ref.organizationId, documentId: ref.documentId, userId },
});

/** Documents per query when many are read at once (the periodic renewal). */
const DOCUMENTS_PER_QUERY = 100;

/** Presence entries; every query is scoped by the application (apiKeyId). */
export function createPresenceRepo(db: Db) {
  return {
    /** Returns the entry as stored (decoded from the text written). */
    insert: async (record: PresenceRecord): Promise<PresenceRecord> => {
      const row: PresenceRow = { ...record, user: userJson(record.user), state: JSON.stringify(record.state) };
      await db.presence.create({ data: row });
      return presenceFrom(row);
    },

    /**
     * The entry, held until the unit of work ends, so changes of one entry
     * take turns. On PostgreSQL the read itself takes the row lock (see the
     * live-state repo's findForUpdate for why); SQLite's gate already runs
     * transactions one at a time.
     */
    async findForUpdate(ref: DocumentKey, userId: string): Promise<PresenceRecord | null> {
      if (providerOfClient(db) !== 'postgresql') {
        const row = await db.presence.findUnique({ where: whereEntry(ref, userId) });
        return row ? presenceFrom(row) : null;
      }
      const rows = await db.$queryRawUnsafe<(Omit<PresenceRow, 'updatedAt' | 'clientId'> & { clientId: number | string; updatedAt: bigint | number | string })[]>(
        'SELECT "apiKeyId", "organizationId", "documentId", "userId", "user", "state", "clientId", "updatedAt" FROM "Presence" WHERE "apiKeyId" = $1 AND "organizationId" = $2 AND "documentId" = $3 AND "userId" = $4 FOR UPDATE',
        ref.apiKeyId,
        ref.organizationId,
        ref.documentId,
        userId,
      );
      const row = rows[0];
      return row ? presenceFrom({ ...row, clientId: Number(row.clientId), updatedAt: BigInt(row.updatedAt) }) : null;
    },

    /** Replaces the entry's state; returns `stored` as it now is. */
    update: async (stored: PresenceRecord, change: { state: Record<string, unknown>; clientId: number; updatedAt: bigint }): Promise<PresenceRecord> => {
      const state = JSON.stringify(change.state);
      await db.presence.update({ where: whereEntry(stored, stored.userId), data: { state, clientId: change.clientId, updatedAt: change.updatedAt } });
      return { ...stored, state: JSON.parse(state) as Record<string, unknown>, clientId: change.clientId, updatedAt: change.updatedAt };
    },

    /** The document's entries, by userId. */
    list: async (ref: DocumentKey): Promise<PresenceRecord[]> => (await db.presence.findMany({ where: { ...ref }, orderBy: { userId: 'asc' } })).map(presenceFrom),

    /** The entries of several documents of one application. */
    async listForDocuments(apiKeyId: string, documents: readonly { organizationId: string; documentId: string }[]): Promise<PresenceRecord[]> {
      const rows: PresenceRow[] = [];
      for (let i = 0; i < documents.length; i += DOCUMENTS_PER_QUERY) {
        const chunk = documents.slice(i, i + DOCUMENTS_PER_QUERY);
        rows.push(...(await db.presence.findMany({ where: { apiKeyId, OR: chunk.map((d) => ({ organizationId: d.organizationId, documentId: d.documentId })) } })));
      }
      return rows.map(presenceFrom);
    },

    /** Deletes those of `userIds` that have an entry on the document; returns the rows deleted. */
    async deleteUsers(ref: DocumentKey, userIds: readonly string[]): Promise<PresenceRecord[]> {
      const where = { ...ref, userId: { in: [...userIds] } };
      const found = await db.presence.findMany({ where });
      await db.presence.deleteMany({ where });
      return found.map(presenceFrom);
    },

    // ── owned data ──
    /**
     * Entries follow their document; an entry the target already has for the
     * same user is replaced by the moved one. Returns the target's replaced
     * entries and the moved ones (now under the target).
     */
    async moveDocument(apiKeyId: string, organizationId: string, from: string, to: string): Promise<{ replaced: PresenceRecord[]; moved: PresenceRecord[] }> {
      const moving = await db.presence.findMany({ where: { apiKeyId, organizationId, documentId: from } });
      if (moving.length === 0) return { replaced: [], moved: [] };
      const clashing = { apiKeyId, organizationId, documentId: to, userId: { in: moving.map((row) => row.userId) } };
      const replaced = await db.presence.findMany({ where: clashing });
      await db.presence.deleteMany({ where: clashing });
      await db.presence.updateMany({ where: { apiKeyId, organizationId, documentId: from }, data: { documentId: to } });
      return { replaced: replaced.map(presenceFrom), moved: moving.map((row) => presenceFrom({ ...row, documentId: to })) };
    },
    deleteDocuments: (apiKeyId: string, organizationId: string, documentIds: readonly string[]) =>
      db.presence.deleteMany({ where: { apiKeyId, organizationId, documentId: { in: [...documentIds] } } }),
    deleteOrganization: (apiKeyId: string, organizationId: string) => db.presence.deleteMany({ where: { apiKeyId, organizationId } }),
    /** Erasure: every entry of the user, in every document; returns them. */
    async deleteByUser(apiKeyId: string, userId: string): Promise<PresenceRecord[]> {
      const found = await db.presence.findMany({ where: { apiKeyId, userId } });
      await db.presence.deleteMany({ where: { apiKeyId, userId } });
      return found.map(presenceFrom);
    },
  };
}

export type PresenceRepo = ReturnType<typeof createPresenceRepo>;
