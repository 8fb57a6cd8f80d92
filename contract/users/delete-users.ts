import { z } from 'zod';
import { aliasOf, operation, resultOf } from '../common/envelope.js';
import { ZId, oneLevel } from '../access/schemas.js';
import { named } from '../common/named.js';

export const ZDeleteUsersData = z
  .object({
    organizationId: ZId,
    documentId: ZId.optional().describe('Remove from this document only.'),
    folderId: ZId.optional().describe('Remove from this folder only; give documentId or folderId, not both.'),
    userIds: z.array(ZId).min(1).max(1000),
  })
  .strict()
  .refine(...oneLevel);

export const deleteUsers = operation({
  path: '/v1/users/delete',
  summary: 'Delete Users',
  description:
    'Removes users from the organization — all their access to its folders, documents and user groups, and its contact list — or with `folderId`/`documentId` from that folder or document only. Result keyed by user ID; a user who is not there gets `success: false` with a does-not-exist message inside the successful response.',
  data: ZDeleteUsersData,
  result: resultOf(z.record(named('UserRemovalOutcome', z.object({ success: z.boolean(), message: z.string() })))),
  // Grace loses her access to the roadmap only; she stays in the organization.
  example: {
    data: { organizationId: 'org-acme', documentId: 'doc-roadmap', userIds: ['user-grace'] },
    result: { status: 'success', message: 'Users deleted.', data: { 'user-grace': { success: true, message: 'User removed from document doc-roadmap.' } } },
  },
});

export const deleteUsersV2 = aliasOf(deleteUsers, '/v2/users/delete');
