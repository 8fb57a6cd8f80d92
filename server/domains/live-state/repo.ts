import { providerOfClient, type Db } from '../../db/client.js';
import type { DocumentKey } from '../../platform/owned-data.js';

/** A stored live value (see LiveStateData in prisma/models.prisma). */
export interface LiveStateRow {
  liveStateDataId: string;
  /** JSON text of any JSON value. */
  data: string;
  updatedAt: bigint;
}

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
    async findForUpdate(ref: DocumentKey, liveStateDataId: string): Promise<LiveStateRow | null> {
      if (providerOfClient(db) !== 'postgresql') return db.liveStateData.findUnique({ where: whereEntry(ref, liveStateDataId), select });
      const rows = await db.$queryRawUnsafe<{ data: string; updatedAt: bigint | number | string }[]>(
        'SELECT "data", "updatedAt" FROM "LiveStateData" WHERE "apiKeyId" = $1 AND "organizationId" = $2 AND "documentId" = $3 AND "liveStateDataId" = $4 FOR UPDATE',
        ref.apiKeyId,
        ref.organizationId,
        ref.documentId,
        liveStateDataId,
      );
      const row = rows[0];
      return row ? { liveStateDataId, data: row.data, updatedAt: BigInt(row.updatedAt) } : null;
    },

    create: (ref: DocumentKey, row: LiveStateRow) => db.liveStateData.create({ data: { ...ref, ...row } }),

    update: (ref: DocumentKey, row: LiveStateRow) =>
      db.liveStateData.update({ where: whereEntry(ref, row.liveStateDataId), data: { data: row.data, updatedAt: row.updatedAt } }),

    /** Every entry of the document, or the one named, by liveStateDataId. */
    list: (ref: DocumentKey, liveStateDataId?: string): Promise<LiveStateRow[]> =>
      db.liveStateData.findMany({
        where: { ...ref, ...(liveStateDataId !== undefined ? { liveStateDataId } : {}) },
        select,
        orderBy: { liveStateDataId: 'asc' },
      }),

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
