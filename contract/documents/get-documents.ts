import { z } from 'zod';
import { operation, pagedResultOf } from '../common/envelope.js';
import { ZPageSize, ZPageToken } from '../common/paging.js';
import { ZDocument, ZId } from '../access/schemas.js';
import { DOC_Q3_PLAN } from '../access/examples.js';

export const getDocuments = operation({
  path: '/v2/organizations/documents/get',
  summary: 'Get Documents',
  description:
    'The documents of an organization, oldest first: all, the listed ones (at most 30; unknown IDs are left out) and/or those directly in one folder. Paged by an opaque keyset pageToken (null on the last page) that neither skips nor repeats a document while others are added. Requires the advanced-queries console toggle (FAILED_PRECONDITION when off). NOT_FOUND for an unknown organization or folder.',
  data: z
    .object({
      organizationId: ZId,
      documentIds: z.array(ZId).min(1).max(30).optional(),
      folderId: ZId.optional(),
      pageSize: ZPageSize,
      pageToken: ZPageToken,
    })
    .strict(),
  result: pagedResultOf(ZDocument),
  example: {
    data: { organizationId: 'org-acme', folderId: 'folder-planning' },
    result: { status: 'success', message: 'Documents retrieved successfully.', data: [DOC_Q3_PLAN], pageToken: null },
  },
});
