import { emptyResult, operation } from '../common/envelope.js';
import { ZPermissionsPrincipal } from './add-permissions.js';

export const removePermissions = operation({
  path: '/v2/auth/permissions/remove',
  summary: 'Remove Permissions',
  description:
    'The inverse of Add Permissions: removes the grants of the user (or user group) on the listed resources, with their access fields. `accessRole`, `expiresAt` and `context` are ignored. Removing a grant that does not exist is not an error.',
  data: ZPermissionsPrincipal,
  result: emptyResult(),
  example: {
    data: { user: { userId: 'user-grace' }, permissions: { resources: [{ type: 'document', id: 'doc-roadmap', organizationId: 'org-acme' }] } },
    result: { status: 'success', message: 'Permissions removed successfully.' },
  },
});
