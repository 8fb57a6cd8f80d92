import { upsertMany } from '../../../db/bulk.js';
import { directReadsOf, providerOfClient, type Db } from '../../../db/client.js';
import { afterMs, byCreation, type Cursor } from '../../../db/keyset.js';
import type { Clock } from '../../../lib/clock.js';
import { created } from './times.js';
import { selectRows } from '../../../db/direct-select.js';

const DOCUMENT_COLUMNS = {
  apiKeyId: 'text',
  organizationId: 'text',
  id: 'text',
  name: 'text',
  folderId: 'text?',
  accessType: 'text',
  disabled: 'bool',
  createdAt: 'bigint',
  updatedAt: 'bigint',
} as const;

/** Documents of an organization; scoped by application like every access repo (see organizations.ts). */
export function createDocumentsRepo(db: Db, clock: Clock) {
  return {
    // The reads of access checks and of Get Documents are direct (db/direct-reads.ts).
    findDocument: async (apiKeyId: string, organizationId: string, id: string) =>
      (await selectRows(db, { from: 'Document', columns: DOCUMENT_COLUMNS, where: { apiKeyId, organizationId, id } }))[0] ?? null,

    findDocuments: (apiKeyId: string, organizationId: string, ids: string[]) =>
      selectRows(db, { from: 'Document', columns: DOCUMENT_COLUMNS, where: { apiKeyId, organizationId, id: { in: ids } } }),

    listDocuments: (apiKeyId: string, organizationId: string, q: { ids?: string[]; folderId?: string; after?: Cursor; take: number }) =>
      selectRows(db, {
        from: 'Document',
        columns: DOCUMENT_COLUMNS,
        where: { apiKeyId, organizationId, id: q.ids ? { in: q.ids } : undefined, folderId: q.folderId },
        after: { cursor: q.after, order: 'asc', at: 'createdAt', id: 'id' },
        orderBy: [['createdAt', 'asc'], ['id', 'asc']],
        take: q.take,
      }),

    createDocument: (row: { apiKeyId: string; organizationId: string; id: string; name: string; folderId: string | null; accessType: string }) =>
      db.document.create({ data: { ...row, ...created(clock) } }),

    /**
     * Documents that a grant or membership names are created when missing: at
     * the top, organizationPrivate. Race-safe like ensureOrganization.
     */
    ensureDocument: async (apiKeyId: string, organizationId: string, id: string) => {
      await upsertMany(
        db,
        'Document',
        [{ apiKeyId, organizationId, id, name: id, folderId: null, accessType: 'organizationPrivate', disabled: false, ...created(clock) }],
        { key: ['apiKeyId', 'organizationId', 'id'], update: [] },
      );
      return db.document.findUniqueOrThrow({ where: { apiKeyId_organizationId_id: { apiKeyId, organizationId, id } } });
    },

    updateDocument: (apiKeyId: string, organizationId: string, id: string, data: { name?: string; folderId?: string | null; accessType?: string; disabled?: boolean }) =>
      db.document.update({ where: { apiKeyId_organizationId_id: { apiKeyId, organizationId, id } }, data: { ...data, updatedAt: BigInt(clock.nowMs()) } }),

    /**
     * The documents, of those listed, that exist; on PostgreSQL each found row
     * is held (FOR SHARE) until the unit of work ends. A write that adds
     * content to a document calls this first: a migration or a deletion of
     * the document (which updates or deletes its row) then waits for the write
     * to commit and moves or deletes its rows too, and a write that comes
     * after them finds the document gone instead of leaving rows under an ID
     * nothing owns. SQLite's gate runs transactions one at a time already.
     */
    holdDocuments: async (apiKeyId: string, organizationId: string, ids: readonly string[]): Promise<Set<string>> => {
      if (ids.length === 0) return new Set();
      if (providerOfClient(db) !== 'postgresql') {
        // The SQLite gate already holds the file for the unit of work: a plain read holds it too.
        const rows = await selectRows(db, { from: 'Document', columns: { id: 'text' }, where: { apiKeyId, organizationId, id: { in: [...ids] } } });
        return new Set(rows.map((r) => r.id));
      }
      const rows = await directReadsOf(db).rows(
        { id: 'text' },
        'SELECT "id" FROM "Document" WHERE "apiKeyId" = $1 AND "organizationId" = $2 AND "id" = ANY($3::text[]) ORDER BY "id" FOR SHARE',
        [apiKeyId, organizationId, [...ids]],
      );
      return new Set(rows.map((r) => r.id));
    },

    // ── owned data (../owned-data.ts) ──
    /** The document's own row takes its new ID; the move is a change of it (updatedAt). */
    moveDocument: async (apiKeyId: string, organizationId: string, from: string, to: string): Promise<void> => {
      await db.document.updateMany({ where: { apiKeyId, organizationId, id: from }, data: { id: to, updatedAt: BigInt(clock.nowMs()) } });
    },
    deleteDocuments: async (apiKeyId: string, organizationId: string, ids: readonly string[]): Promise<void> => {
      await db.document.deleteMany({ where: { apiKeyId, organizationId, id: { in: [...ids] } } });
    },
    deleteOrganizationDocuments: async (apiKeyId: string, organizationId: string): Promise<void> => {
      await db.document.deleteMany({ where: { apiKeyId, organizationId } });
    },
  };
}

export type DocumentsRepo = ReturnType<typeof createDocumentsRepo>;
