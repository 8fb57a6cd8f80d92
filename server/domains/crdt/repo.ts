import * as Y from 'yjs';
import { providerOfClient, type Db } from '../../db/client.js';
import { selectRows } from '../../db/direct-select.js';
import type { EditorKey } from '../../../contract/crdt/document-name.js';

const CRDT_COLUMNS = {
  apiKeyId: 'text',
  organizationId: 'text',
  documentId: 'text',
  editorId: 'text',
  state: 'bytes',
  restBase: 'bytes?',
  restClientId: 'bigint?',
  type: 'text?',
  contentKey: 'text?',
  updatedByUserId: 'text?',
  createdAt: 'bigint',
  updatedAt: 'bigint',
} as const;

/** A stored editor document (see CrdtDocument in prisma/models.prisma). */
export interface CrdtRow {
  apiKeyId: string;
  organizationId: string;
  documentId: string;
  editorId: string;
  state: Uint8Array;
  restBase: Uint8Array | null;
  restClientId: bigint | null;
  type: string | null;
  contentKey: string | null;
  updatedByUserId: string | null;
  createdAt: bigint;
  updatedAt: bigint;
}

const whereKey = (apiKeyId: string, key: EditorKey) => ({
  apiKeyId_organizationId_documentId_editorId: { apiKeyId, organizationId: key.organizationId, documentId: key.documentId, editorId: key.editorId },
});

/** Editor documents; every query is scoped by the application (apiKeyId). */
export function createCrdtRepo(db: Db) {
  return {
    // Direct (db/direct-reads.ts): every Get CRDT Data reads it.
    find: async (apiKeyId: string, key: EditorKey): Promise<CrdtRow | null> =>
      (await selectRows(db, { from: 'CrdtDocument', columns: CRDT_COLUMNS, where: { apiKeyId, organizationId: key.organizationId, documentId: key.documentId, editorId: key.editorId } }))[0] ?? null,

    /** Just the state, for loading a document into memory. */
    async findState(apiKeyId: string, key: EditorKey): Promise<Uint8Array | null> {
      const row = await db.crdtDocument.findUnique({ where: whereKey(apiKeyId, key), select: { state: true } });
      return row?.state ?? null;
    },

    /**
     * The editor's row, locked until the unit of work ends (FOR UPDATE on
     * PostgreSQL; SQLite runs one writer at a time anyway), so two processes
     * never build on the same stored state at once. With `create`, a missing
     * row is first inserted empty (a concurrent insert wins quietly), so even
     * the first save of a new document is serialized.
     */
    async lockedRow(apiKeyId: string, key: EditorKey, create?: { at: bigint }): Promise<CrdtRow | null> {
      const postgres = providerOfClient(db) === 'postgresql';
      if (create) {
        const empty = new Uint8Array(Y.encodeStateAsUpdate(new Y.Doc()));
        if (postgres) {
          await db.$executeRawUnsafe(
            'INSERT INTO "CrdtDocument" ("apiKeyId", "organizationId", "documentId", "editorId", "state", "createdAt", "updatedAt") VALUES ($1, $2, $3, $4, $5, $6, $6) ON CONFLICT DO NOTHING',
            apiKeyId,
            key.organizationId,
            key.documentId,
            key.editorId,
            empty,
            create.at,
          );
        } else {
          await db.crdtDocument.upsert({
            where: whereKey(apiKeyId, key),
            create: { apiKeyId, ...key, state: empty, createdAt: create.at, updatedAt: create.at },
            update: {},
          });
        }
      }
      if (!postgres) return db.crdtDocument.findUnique({ where: whereKey(apiKeyId, key) });
      const rows = await db.$queryRawUnsafe<CrdtRow[]>(
        'SELECT * FROM "CrdtDocument" WHERE "apiKeyId" = $1 AND "organizationId" = $2 AND "documentId" = $3 AND "editorId" = $4 FOR UPDATE',
        apiKeyId,
        key.organizationId,
        key.documentId,
        key.editorId,
      );
      return rows[0] ?? null;
    },

    /**
     * Writes the state (and, when given, the data's type and content key) of
     * one editor document, creating the row on its first save.
     */
    async save(
      apiKeyId: string,
      key: EditorKey,
      change: {
        state: Uint8Array;
        at: bigint;
        updatedByUserId: string | null;
        meta?: { type: string | null; contentKey: string | null };
        /** undefined leaves it; null clears it. */
        restBase?: Uint8Array | null;
        restClientId?: number;
      },
    ): Promise<CrdtRow> {
      const state = new Uint8Array(change.state);
      const meta = {
        ...change.meta,
        ...(change.restClientId !== undefined ? { restClientId: BigInt(change.restClientId) } : {}),
        ...(change.restBase !== undefined ? { restBase: change.restBase === null ? null : new Uint8Array(change.restBase) } : {}),
      };
      return await db.crdtDocument.upsert({
        where: whereKey(apiKeyId, key),
        create: { apiKeyId, ...key, state, type: null, contentKey: null, ...meta, updatedByUserId: change.updatedByUserId, createdAt: change.at, updatedAt: change.at },
        update: { state, ...meta, updatedByUserId: change.updatedByUserId, updatedAt: change.at },
      });
    },

    /**
     * Re-keys a document's editor documents to another document ID. An editor
     * the target already has keeps both histories: Yjs updates merge, so no
     * edit of either side is lost.
     */
    async moveDocument(apiKeyId: string, organizationId: string, from: string, to: string) {
      const rows = await db.crdtDocument.findMany({ where: { apiKeyId, organizationId, documentId: from } });
      for (const row of rows) {
        const target = await db.crdtDocument.findUnique({ where: whereKey(apiKeyId, { organizationId, documentId: to, editorId: row.editorId }) });
        if (target) {
          const merged = Y.mergeUpdates([target.state, row.state]);
          await db.crdtDocument.update({
            where: whereKey(apiKeyId, { organizationId, documentId: to, editorId: row.editorId }),
            data: { state: new Uint8Array(merged), type: target.type ?? row.type, contentKey: target.contentKey ?? row.contentKey, updatedAt: row.updatedAt > target.updatedAt ? row.updatedAt : target.updatedAt },
          });
          await db.crdtDocument.delete({ where: whereKey(apiKeyId, row) });
        } else {
          await db.crdtDocument.update({ where: whereKey(apiKeyId, row), data: { documentId: to } });
        }
      }
    },

    deleteDocuments: (apiKeyId: string, organizationId: string, documentIds: readonly string[]) =>
      db.crdtDocument.deleteMany({ where: { apiKeyId, organizationId, documentId: { in: [...documentIds] } } }),

    deleteOrganization: (apiKeyId: string, organizationId: string) => db.crdtDocument.deleteMany({ where: { apiKeyId, organizationId } }),

    /** Erasure: the content stays (others wrote it too, and Yjs content names no user); the last-editor attribution goes. */
    forgetEditor: (apiKeyId: string, userId: string) =>
      db.crdtDocument.updateMany({ where: { apiKeyId, updatedByUserId: userId }, data: { updatedByUserId: null } }),
  };
}

export type CrdtRepo = ReturnType<typeof createCrdtRepo>;
