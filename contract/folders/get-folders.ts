import { z } from 'zod';
import { operation, resultOf } from '../common/envelope.js';
import { ZFolder, ZId } from '../access/schemas.js';
import { FOLDER_PLANNING } from '../access/examples.js';

export const getFolders = operation({
  path: '/v2/organizations/folders/get',
  summary: 'Get Folders',
  description:
    'With `folderId`: that folder, with its subfolders nested to `maxDepth`. Without: every folder of the organization (a flat list, oldest first), each with its subfolders nested to `maxDepth`. `maxDepth` omitted means immediate subfolders only; 0 means none. Requires the advanced-queries console toggle (FAILED_PRECONDITION when off). NOT_FOUND for an unknown organization or folder.',
  data: z
    .object({
      organizationId: ZId,
      folderId: ZId.optional(),
      maxDepth: z.number().int().min(0).max(64).optional().describe('Levels of nested subfolders; default 1 (immediate).'),
    })
    .strict(),
  result: resultOf(z.array(ZFolder)),
  // maxDepth omitted: each folder with its immediate subfolders (none here).
  example: {
    data: { organizationId: 'org-acme' },
    result: { status: 'success', message: 'Folders retrieved successfully.', data: [{ ...FOLDER_PLANNING, subFolders: [] }] },
  },
});
