import { z } from 'zod';
import { operation, resultOf } from '../common/envelope.js';
import { ZId, ZPermissionResult } from '../access/schemas.js';

export const ZGetPermissionsData = z
  .object({
    organizationId: ZId,
    userIds: z.array(ZId).min(1).max(100).describe('At most 100 users.'),
    folderIds: z.array(ZId).max(100).optional().describe('Include these folders in the result (at most 100).'),
    documentIds: z.array(ZId).max(100).optional().describe('Include these documents in the result (at most 100).'),
  })
  .strict();

export const getPermissions = operation({
  path: '/v2/auth/permissions/get',
  summary: 'Get Permissions',
  description:
    'Effective access of each user to the organization and the requested folders and documents, keyed by user ID. Denied access is an entry with `error`, `errorCode: permission_denied` and `accessType` inside the success response. A requested folder or document that does not exist makes the response a NOT_FOUND error whose `details` carry the per-user structure, the missing entries with `errorCode: does_not_exist`. Expired temporary grants are ignored. `context.accessFields` per user: the access fields of the live document grants of the user (direct or through a group) on the documents asked about, sorted, without repeats; absent when none. With the permission provider on, the provider answers instead of the stored grants (and there is no `context`).',
  data: ZGetPermissionsData,
  result: resultOf(z.record(ZPermissionResult)),
  // Ada: organization viewer with a grant on the Q3 plan (see Generate Token). Grace: organization editor with temporary access to the restricted roadmap (see Add Permissions).
  example: {
    data: { organizationId: 'org-acme', userIds: ['user-ada', 'user-grace'], documentIds: ['doc-q3-plan', 'doc-roadmap'] },
    result: {
      status: 'success',
      message: 'Permissions retrieved successfully.',
      data: {
        'user-ada': {
          organization: { 'org-acme': { accessRole: 'viewer' } },
          folders: {},
          documents: {
            'doc-q3-plan': { accessRole: 'editor', accessType: 'organizationPrivate' },
            'doc-roadmap': { accessType: 'restricted', error: 'user user-ada does not have access to document doc-roadmap', errorCode: 'permission_denied' },
          },
        },
        'user-grace': {
          organization: { 'org-acme': { accessRole: 'editor' } },
          folders: {},
          documents: {
            'doc-q3-plan': { accessRole: 'editor', accessType: 'organizationPrivate' },
            'doc-roadmap': { accessRole: 'viewer', accessType: 'restricted', expiresAt: Date.UTC(2026, 11, 31) / 1000 },
          },
        },
      },
    },
  },
});
