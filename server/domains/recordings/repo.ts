import type { TUserRef } from '../../../contract/common/content.js';
import type { TRecording } from '../../../contract/recordings/schemas.js';
import type { Db } from '../../db/client.js';
import { userJson } from '../../db/json-columns.js';
import { afterMs, byCreation, type Cursor } from '../../db/keyset.js';

/** A recording (see prisma/models.prisma), its JSON columns decoded. */
export interface RecordingRecord {
  apiKeyId: string;
  id: string;
  organizationId: string;
  documentId: string;
  userId: string;
  /** The recording user as given. */
  fromUser: TUserRef;
  recordingType: string;
  mode: string;
  displayName: string;
  durationMs: number;
  durationDisplay: string;
  attachments: TRecording['attachments'];
  latestVersion: number;
  createdAt: bigint;
}

/** The row as stored: the JSON columns are TEXT. */
type RecordingRow = Omit<RecordingRecord, 'fromUser' | 'attachments'> & { fromUser: string; attachments: string };

const recordingFrom = (row: RecordingRow): RecordingRecord => ({
  ...row,
  fromUser: JSON.parse(row.fromUser) as TUserRef,
  attachments: JSON.parse(row.attachments) as TRecording['attachments'],
});

/** Recordings; every query is scoped by the application (apiKeyId). */
export function createRecordingsRepo(db: Db) {
  return {
    /**
     * Stores the recording, each attachment with only its contract fields,
     * in their order; returns the recording as stored (decoded from the text written).
     */
    insert: async (record: RecordingRecord): Promise<RecordingRecord> => {
      const attachments = record.attachments.map((a) => ({ attachmentId: a.attachmentId, url: a.url, mimeType: a.mimeType, name: a.name, type: a.type, size: a.size }));
      const row: RecordingRow = { ...record, fromUser: userJson(record.fromUser), attachments: JSON.stringify(attachments) };
      await db.recording.create({ data: row });
      return recordingFrom(row);
    },

    exists: async (apiKeyId: string, id: string) => (await db.recording.count({ where: { apiKeyId, id } })) > 0,

    list: async (apiKeyId: string, q: { organizationId: string; documentId?: string; ids?: readonly string[]; after?: Cursor; take: number }): Promise<RecordingRecord[]> =>
      (await db.recording.findMany({
        where: {
          apiKeyId,
          organizationId: q.organizationId,
          ...(q.documentId !== undefined ? { documentId: q.documentId } : {}),
          ...(q.ids !== undefined ? { id: { in: [...q.ids] } } : {}),
          ...afterMs(q.after),
        },
        orderBy: byCreation(),
        take: q.take,
      })).map(recordingFrom),

    /** The user's recordings in one organization (Get All User Data). */
    listByUser: async (apiKeyId: string, organizationId: string, userId: string, cursor: Cursor | undefined, take: number): Promise<RecordingRecord[]> =>
      (await db.recording.findMany({ where: { apiKeyId, userId, organizationId, ...afterMs(cursor) }, orderBy: byCreation(), take })).map(recordingFrom),

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
