import type { TLiveStateEntry } from '../../../contract/live-state/schemas.js';
import { providerOfClient, type Db } from '../../db/client.js';
import type { DocumentKey } from '../../platform/owned-data.js';

/** A stored live value (see LiveStateData in prisma/models.prisma), decoded. */
export interface LiveStateRecord {
  liveStateDataId: string;
  /** Any JSON value. */
  data: TLiveStateEntry['data'];
  updatedAt: bigint;
}

/** The row as stored: the value is JSON text. */
interface LiveStateRow {
  liveStateDataId: string;
  data: string;
  updatedAt: bigint;
}

const liveStateFrom = (row: LiveStateRow): LiveStateRecord => ({ liveStateDataId: row.liveStateDataId, data: JSON.parse(row.data) as TLiveStateEntry['data'], updatedAt: row.updatedAt });
/** A value to store: any JSON value (the request's, as validated). */
export type NewLiveState = Omit<LiveStateRecord, 'data'> & { data: unknown };

const liveStateRowOf = (record: NewLiveState): LiveStateRow => ({ liveStateDataId: record.liveStateDataId, data: JSON.stringify(record.data), updatedAt: record.updatedAt });

const whereEntry = (ref: DocumentKey, liveStateDataId: string) => ({
  apiKeyId_organizationId_documentId_liveStateDataId: { ...ref, liveStateDataId },
});

const select = { liveStateDataId: true, data: true, updatedAt: true } as const;

/** Live state; every query is scoped by the application (apiKeyId). */
export function createLiveStateRepo(db: Db) {
  return {
    /**
     * The entry, held until the unit of work ends, so two broadcasts to one
     * entry take turns (a merge reads what the other wrote). On PostgreSQL
     * the read itself takes the row lock (a lock taken before a separate read
     * could find no row while the read then finds one a concurrent write just
     * committed); on SQLite the gate runs transactions one at a time already.
     * A missing row locks nothing: two first writes race at the primary key
     * instead, and the loser tries again.
     */
    async findForUpdate(ref: DocumentKey, liveStateDataId: string): Promise<LiveStateRecord | null> {
      if (providerOfClient(db) !== 'postgresql') {
        const row = await db.liveStateData.findUnique({ where: whereEntry(ref, liveStateDataId), select });
        return row ? liveStateFrom(row) : null;
      }
      const rows = await db.$queryRawUnsafe<{ data: string; updatedAt: bigint | number | string }[]>(
        'SELECT "data", "updatedAt" FROM "LiveStateData" WHERE "apiKeyId" = $1 AND "organizationId" = $2 AND "documentId" = $3 AND "liveStateDataId" = $4 FOR UPDATE',
        ref.apiKeyId,
        ref.organizationId,
        ref.documentId,
        liveStateDataId,
      );
      const row = rows[0];
      return row ? liveStateFrom({ liveStateDataId, data: row.data, updatedAt: BigInt(row.updatedAt) }) : null;
    },

    /** Returns the entry as stored (decoded from the text written). */
    create: async (ref: DocumentKey, record: NewLiveState): Promise<LiveStateRecord> => {
      const row = liveStateRowOf(record);
      await db.liveStateData.create({ data: { ...ref, ...row } });
      return liveStateFrom(row);
    },

    /** Returns the entry as stored (decoded from the text written). */
    update: async (ref: DocumentKey, record: NewLiveState): Promise<LiveStateRecord> => {
      const row = liveStateRowOf(record);
      await db.liveStateData.update({ where: whereEntry(ref, row.liveStateDataId), data: { data: row.data, updatedAt: row.updatedAt } });
      return liveStateFrom(row);
    },

    /** Every entry of the document, or the one named, by liveStateDataId. */
    list: async (ref: DocumentKey, liveStateDataId?: string): Promise<LiveStateRecord[]> =>
      (
        await db.liveStateData.findMany({
          where: { ...ref, ...(liveStateDataId !== undefined ? { liveStateDataId } : {}) },
          select,
          orderBy: { liveStateDataId: 'asc' },
        })
      ).map(liveStateFrom),

    // ── owned data ──
    /** Entries follow their document; one the target already holds under the same liveStateDataId is replaced by the moved one. */
    async moveDocument(apiKeyId: string, organizationId: string, from: string, to: string) {
      const moving = await db.liveStateData.findMany({ where: { apiKeyId, organizationId, documentId: from }, select: { liveStateDataId: true } });
      if (moving.length === 0) return;
      await db.liveStateData.deleteMany({
        where: { apiKeyId, organizationId, documentId: to, liveStateDataId: { in: moving.map((row) => row.liveStateDataId) } },
      });
      await db.liveStateData.updateMany({ where: { apiKeyId, organizationId, documentId: from }, data: { documentId: to } });
    },
    deleteDocuments: (apiKeyId: string, organizationId: string, documentIds: readonly string[]) =>
      db.liveStateData.deleteMany({ where: { apiKeyId, organizationId, documentId: { in: [...documentIds] } } }),
    deleteOrganization: (apiKeyId: string, organizationId: string) => db.liveStateData.deleteMany({ where: { apiKeyId, organizationId } }),
  };
}

export type LiveStateRepo = ReturnType<typeof createLiveStateRepo>;
