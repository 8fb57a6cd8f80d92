import { z } from 'zod';
import { emptyResult, operation, resultOf } from '../common/envelope.js';
import { ZAccessType, ZFolder, ZId } from '../access/schemas.js';
import { FOLDER_PLANNING } from '../access/examples.js';

const ZParent = ZId.describe('A folder ID, or `root` for the top of the organization.');

export const addFolder = operation({
  path: '/v2/organizations/folders/add',
  summary: 'Add Folder',
  description:
    'Creates a folder (and the organization when missing). `parentFolderId` defaults to `root`; `accessType` defaults to `organizationPrivate`; `inheritAccessFromParent` defaults to true for subfolders (the folder then takes its parent\'s access type and its parent\'s members reach it). ALREADY_EXISTS when the ID is taken; NOT_FOUND for an unknown parent.',
  data: z
    .object({
      organizationId: ZId,
      folderId: ZId,
      folderName: z.string().min(1).max(256).optional(),
      parentFolderId: ZParent.optional(),
      accessType: ZAccessType.optional(),
      inheritAccessFromParent: z.boolean().optional(),
    })
    .strict(),
  result: resultOf(ZFolder),
  // At the top of the organization (parentFolderId `root`), so it inherits nothing.
  example: {
    data: { organizationId: 'org-acme', folderId: 'folder-planning', folderName: 'Planning' },
    result: { status: 'success', message: 'Folder added.', data: FOLDER_PLANNING },
  },
});

export const updateFolder = operation({
  path: '/v2/organizations/folders/update',
  summary: 'Update Folder',
  description: 'Renames a folder and/or moves it under another parent (`root` for the top). Moving a folder under itself or one of its subfolders is INVALID_ARGUMENT. NOT_FOUND for an unknown folder or parent.',
  data: z.object({ organizationId: ZId, folderId: ZId, folderName: z.string().min(1).max(256).optional(), parentFolderId: ZParent.optional() }).strict(),
  result: resultOf(ZFolder),
  // A folder created by a grant is named after its ID until renamed.
  example: {
    data: { organizationId: 'org-acme', folderId: 'folder-planning', folderName: 'Planning' },
    result: { status: 'success', message: 'Folder updated.', data: { ...FOLDER_PLANNING, lastUpdated: Date.UTC(2026, 0, 20, 8, 30) } },
  },
});

export const deleteFolder = operation({
  path: '/v2/organizations/folders/delete',
  summary: 'Delete Folder',
  description: 'Deletes a folder with its subfolders, the documents in them, and their grants. NOT_FOUND for an unknown folder.',
  data: z.object({ organizationId: ZId, folderId: ZId }).strict(),
  result: emptyResult(),
  example: { data: { organizationId: 'org-acme', folderId: 'folder-planning' }, result: { status: 'success', message: 'Folder deleted.' } },
});

export const updateFolderAccess = operation({
  path: '/v2/organizations/folders/access/update',
  summary: 'Update Folder Access',
  description: 'Sets a folder\'s access type and/or whether it inherits access from its parent. Documents in the folder follow it. NOT_FOUND for an unknown folder.',
  data: z
    .object({ organizationId: ZId, folderId: ZId, accessType: ZAccessType.optional(), inheritAccessFromParent: z.boolean().optional() })
    .strict()
    .refine((d) => d.accessType !== undefined || d.inheritAccessFromParent !== undefined, { message: 'give accessType or inheritAccessFromParent', path: ['accessType'] }),
  result: resultOf(ZFolder),
  example: {
    data: { organizationId: 'org-acme', folderId: 'folder-planning', accessType: 'restricted' },
    result: {
      status: 'success',
      message: 'Folder access updated.',
      data: { ...FOLDER_PLANNING, accessType: 'restricted', lastUpdated: Date.UTC(2026, 0, 20, 8, 45) },
    },
  },
});
