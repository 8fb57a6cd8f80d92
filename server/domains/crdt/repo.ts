import * as Y from 'yjs';
import { providerOfClient, type Db } from '../../db/client.js';
import type { EditorKey } from '../../../contract/crdt/document-name.js';

/** A stored editor document (see CrdtDocument in prisma/models.prisma). */
export interface CrdtRow {
  apiKeyId: string;
  organizationId: string;
  documentId: string;
  editorId: string;
  state: Uint8Array;
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
    find: (apiKeyId: string, key: EditorKey): Promise<CrdtRow | null> => db.crdtDocument.findUnique({ where: whereKey(apiKeyId, key) }),

    /** Just the state, for loading a document into memory. */
    async findState(apiKeyId: string, key: EditorKey): Promise<Uint8Array | null> {
      const row = await db.crdtDocument.findUnique({ where: whereKey(apiKeyId, key), select: { state: true } });
      return row?.state ?? null;
    },

    /**
     * The stored state, locked until the unit of work ends (FOR UPDATE on
     * PostgreSQL; SQLite runs one writer at a time anyway): a save that merges
     * it with its own state cannot lose a concurrent save's edits.
     */
    async lockedState(apiKeyId: string, key: EditorKey): Promise<Uint8Array | null> {
      if (providerOfClient(db) !== 'postgresql') return this.findState(apiKeyId, key);
      const rows = await db.$queryRawUnsafe<{ state: Uint8Array }[]>(
        'SELECT "state" FROM "CrdtDocument" WHERE "apiKeyId" = $1 AND "organizationId" = $2 AND "documentId" = $3 AND "editorId" = $4 FOR UPDATE',
        apiKeyId,
        key.organizationId,
        key.documentId,
        key.editorId,
      );
      return rows[0]?.state ?? null;
    },

    /**
     * Writes the state (and, when given, the data's type and content key) of
     * one editor document, creating the row on its first save.
     */
    async save(
      apiKeyId: string,
      key: EditorKey,
      change: { state: Uint8Array; at: bigint; updatedByUserId: string | null; meta?: { type: string | null; contentKey: string | null } },
    ): Promise<CrdtRow> {
      const state = new Uint8Array(change.state);
      const meta = change.meta ?? {};
      return await db.crdtDocument.upsert({
        where: whereKey(apiKeyId, key),
        create: { apiKeyId, ...key, state, type: null, contentKey: null, ...meta, updatedByUserId: change.updatedByUserId, createdAt: change.at, updatedAt: change.at },
        update: { state, ...meta, updatedByUserId: change.updatedByUserId, updatedAt: change.at },
      });
    },

    /**
     * Registers the data's type and content key, once: true when this call
     * did, false when the editor already has data. Race-safe across
     * processes: a conditional update of a row without a type, else a create
     * that loses at the primary key to a concurrent one.
     */
    async claimType(apiKeyId: string, key: EditorKey, meta: { type: string; contentKey: string; state: Uint8Array; at: bigint }): Promise<boolean> {
      const claimed = await db.crdtDocument.updateMany({
        where: { apiKeyId, organizationId: key.organizationId, documentId: key.documentId, editorId: key.editorId, type: null },
        data: { type: meta.type, contentKey: meta.contentKey },
      });
      if (claimed.count === 1) return true;
      if (await db.crdtDocument.count({ where: { apiKeyId, organizationId: key.organizationId, documentId: key.documentId, editorId: key.editorId } })) return false;
      await db.crdtDocument.create({
        data: { apiKeyId, ...key, state: new Uint8Array(meta.state), type: meta.type, contentKey: meta.contentKey, updatedByUserId: null, createdAt: meta.at, updatedAt: meta.at },
      });
      return true;
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
