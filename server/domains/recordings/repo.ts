import type { Db } from '../../db/client.js';
import { afterMs, byCreation, type Cursor } from '../../db/keyset.js';

/** A recording row as stored (see prisma/models.prisma). */
export interface RecordingRow {
  apiKeyId: string;
  id: string;
  organizationId: string;
  documentId: string;
  userId: string;
  /** JSON of the recording user as given. */
  fromUser: string;
  recordingType: string;
  mode: string;
  displayName: string;
  durationMs: number;
  durationDisplay: string;
  /** JSON array. */
  attachments: string;
  latestVersion: number;
  createdAt: bigint;
}

/** Recordings; every query is scoped by the application (apiKeyId). */
export function createRecordingsRepo(db: Db) {
  return {
    insert: (row: RecordingRow) => db.recording.create({ data: row }),

    exists: async (apiKeyId: string, id: string) => (await db.recording.count({ where: { apiKeyId, id } })) > 0,

    list: (apiKeyId: string, q: { organizationId: string; documentId?: string; ids?: readonly string[]; after?: Cursor; take: number }) =>
      db.recording.findMany({
        where: {
          apiKeyId,
          organizationId: q.organizationId,
          ...(q.documentId !== undefined ? { documentId: q.documentId } : {}),
          ...(q.ids !== undefined ? { id: { in: [...q.ids] } } : {}),
          ...afterMs(q.after),
        },
        orderBy: byCreation(),
        take: q.take,
      }),

    /** The user's recordings in one organization (Get All User Data). */
    listByUser: (apiKeyId: string, organizationId: string, userId: string, cursor: Cursor | undefined, take: number) =>
      db.recording.findMany({ where: { apiKeyId, userId, organizationId, ...afterMs(cursor) }, orderBy: byCreation(), take }),

    /** Deletes those of `ids` the organization has; returns the IDs deleted. */
    async deleteMany(apiKeyId: string, organizationId: string, ids: readonly string[]): Promise<string[]> {
      const where = { apiKeyId, organizationId, id: { in: [...ids] } };
      const found = await db.recording.findMany({ where, select: { id: true } });
      await db.recording.deleteMany({ where });
      return found.map((row) => row.id);
    },

    // ── owned data ──
    moveDocument: (apiKeyId: string, organizationId: string, from: string, to: string) =>
      db.recording.updateMany({ where: { apiKeyId, organizationId, documentId: from }, data: { documentId: to } }),
    deleteDocuments: (apiKeyId: string, organizationId: string, documentIds: readonly string[]) =>
      db.recording.deleteMany({ where: { apiKeyId, organizationId, documentId: { in: [...documentIds] } } }),
    deleteOrganization: (apiKeyId: string, organizationId: string) => db.recording.deleteMany({ where: { apiKeyId, organizationId } }),
    deleteByUser: (apiKeyId: string, userId: string) => db.recording.deleteMany({ where: { apiKeyId, userId } }),
  };
}

export type RecordingsRepo = ReturnType<typeof createRecordingsRepo>;
