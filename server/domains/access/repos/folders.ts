import { upsertMany } from '../../../db/bulk.js';
import type { Db } from '../../../db/client.js';
import { byCreation } from '../../../db/keyset.js';
import type { Clock } from '../../../lib/clock.js';
import { created } from './times.js';
import { selectRows } from '../../../db/direct-select.js';

const FOLDER_COLUMNS = {
  apiKeyId: 'text',
  organizationId: 'text',
  id: 'text',
  name: 'text',
  parentId: 'text?',
  accessType: 'text',
  inheritAccessFromParent: 'bool',
  createdAt: 'bigint',
  updatedAt: 'bigint',
} as const;

/** Folders of an organization; scoped by application like every access repo (see organizations.ts). */
export function createFoldersRepo(db: Db, clock: Clock) {
  return {
    findFolder: (apiKeyId: string, organizationId: string, id: string) =>
      db.folder.findUnique({ where: { apiKeyId_organizationId_id: { apiKeyId, organizationId, id } } }),

    /** Every folder of an organization: trees are small next to documents, and ancestry needs them all. */
    // Direct (db/direct-reads.ts): every access check on a folder or a document in one reads them.
    listFolders: (apiKeyId: string, organizationId: string) =>
      selectRows(db, { from: 'Folder', columns: FOLDER_COLUMNS, where: { apiKeyId, organizationId }, orderBy: [['createdAt', 'asc'], ['id', 'asc']] }),

    createFolder: (row: { apiKeyId: string; organizationId: string; id: string; name: string; parentId: string | null; accessType: string; inheritAccessFromParent: boolean }) =>
      db.folder.create({ data: { ...row, ...created(clock) } }),

    /**
     * Folders that a grant or membership names are created when missing: at
     * the top, organizationPrivate. Race-safe like ensureOrganization.
     */
    ensureFolder: async (apiKeyId: string, organizationId: string, id: string) => {
      await upsertMany(
        db,
        'Folder',
        [{ apiKeyId, organizationId, id, name: id, parentId: null, accessType: 'organizationPrivate', inheritAccessFromParent: false, ...created(clock) }],
        { key: ['apiKeyId', 'organizationId', 'id'], update: [] },
      );
      return db.folder.findUniqueOrThrow({ where: { apiKeyId_organizationId_id: { apiKeyId, organizationId, id } } });
    },

    updateFolder: (
      apiKeyId: string,
      organizationId: string,
      id: string,
      data: { name?: string; parentId?: string | null; accessType?: string; inheritAccessFromParent?: boolean },
    ) => db.folder.update({ where: { apiKeyId_organizationId_id: { apiKeyId, organizationId, id } }, data: { ...data, updatedAt: BigInt(clock.nowMs()) } }),

    /**
     * Deletes folders and the grants on them; returns the IDs of the documents
     * directly in them, which the caller deletes through the owned-data registry.
     */
    deleteFolders: async (apiKeyId: string, organizationId: string, folderIds: string[]): Promise<string[]> => {
      const documents = await db.document.findMany({ where: { apiKeyId, organizationId, folderId: { in: folderIds } }, select: { id: true } });
      await db.grant.deleteMany({ where: { apiKeyId, organizationId, resourceType: 'folder', resourceId: { in: folderIds } } });
      await db.folder.deleteMany({ where: { apiKeyId, organizationId, id: { in: folderIds } } });
      return documents.map((d) => d.id);
    },
  };
}

export type FoldersRepo = ReturnType<typeof createFoldersRepo>;
