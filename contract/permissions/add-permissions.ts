import { z } from 'zod';
import { emptyResult, operation } from '../common/envelope.js';
import { ZId, ZResourcePermission } from '../access/schemas.js';

/** Who receives (or loses) the permissions: a user, or a user group of an organization. */
export const ZPermissionsPrincipal = z
  .object({
    user: z.object({ userId: ZId }).strict().optional(),
    userGroup: z.object({ organizationId: ZId, organizationUserGroupId: ZId }).strict().optional(),
    permissions: z.object({ resources: z.array(ZResourcePermission).min(1).max(100) }).strict(),
  })
  .strict()
  .refine((d) => (d.user === undefined) !== (d.userGroup === undefined), { message: 'give exactly one of user, userGroup', path: ['user'] });

export const addPermissions = operation({
  path: '/v2/auth/permissions/add',
  summary: 'Add Permissions',
  description:
    'Grants a user (or a user group) access to organizations, folders and documents. Each entry: `type`, `id`, `organizationId` (for folders and documents), `accessRole` (default `editor`), `expiresAt` (Unix seconds; the grant lapses then; in the past is INVALID_ARGUMENT), and on document entries only `context: {accessFields}` (feature-level access context, `<fieldName>:<value>` entries; on organization or folder entries INVALID_ARGUMENT). Granting again replaces the role, expiry and access fields (an entry without `context` clears them; Add Users leaves them as they are). Missing organizations, folders and documents are created (folders and documents at the top, `organizationPrivate`), as client apps create documents by opening them. A group must exist (NOT_FOUND) and can only receive resources of its own organization.',
  data: ZPermissionsPrincipal,
  result: emptyResult(),
  // Grace may read the restricted roadmap until the end of the year.
  example: {
    data: {
      user: { userId: 'user-grace' },
      permissions: { resources: [{ type: 'document', id: 'doc-roadmap', organizationId: 'org-acme', accessRole: 'viewer', expiresAt: Date.UTC(2026, 11, 31) / 1000 }] },
    },
    result: { status: 'success', message: 'Permissions added successfully.' },
  },
});
