import { z } from 'zod';
import { emptyResult, operation, pagedResultOf, resultOf } from '../common/envelope.js';
import { ZPageSize, ZPageToken } from '../common/paging.js';
import { ZId, ZOrganization } from '../access/schemas.js';
import { ACME } from '../access/examples.js';

/** Organization management: the record the specification leaves unshown is {organizationId, organizationName, disabled, createdAt, lastUpdated}. */

export const addOrganization = operation({
  path: '/v2/organizations/add',
  summary: 'Add Organization',
  description: 'Creates an organization. ALREADY_EXISTS when the ID is taken. `organizationName` defaults to the ID.',
  data: z.object({ organizationId: ZId, organizationName: z.string().min(1).max(256).optional() }).strict(),
  result: resultOf(ZOrganization),
  example: {
    data: { organizationId: 'org-acme', organizationName: 'Acme Inc.' },
    result: { status: 'success', message: 'Organization added.', data: ACME },
  },
});

export const getOrganizations = operation({
  path: '/v2/organizations/get',
  summary: 'Get Organizations',
  description: 'The organizations of the application, oldest first, or the listed ones (at most 30; unknown IDs are left out). Paged by an opaque pageToken (null on the last page).',
  data: z.object({ organizationIds: z.array(ZId).min(1).max(30).optional(), pageSize: ZPageSize, pageToken: ZPageToken }).strict(),
  result: pagedResultOf(ZOrganization),
  // A first page of one: the pageToken asks for the next.
  example: {
    data: { pageSize: 1 },
    result: {
      status: 'success',
      message: 'Organizations retrieved successfully.',
      data: [ACME],
      pageToken: 'WzE3NjgyMDg0MDAwMDAsIm9yZy1hY21lIl0.LJ6Yyu5sC7ISK3O_QhOO7qoPIrjUPiH3dkwyl1vdKtM',
    },
  },
});

export const updateOrganization = operation({
  path: '/v2/organizations/update',
  summary: 'Update Organization',
  description: 'Renames an organization. NOT_FOUND when it does not exist.',
  data: z.object({ organizationId: ZId, organizationName: z.string().min(1).max(256) }).strict(),
  result: resultOf(ZOrganization),
  example: {
    data: { organizationId: 'org-acme', organizationName: 'Acme Inc.' },
    result: { status: 'success', message: 'Organization updated.', data: { ...ACME, lastUpdated: Date.UTC(2026, 1, 2, 10, 0) } },
  },
});

export const deleteOrganization = operation({
  path: '/v2/organizations/delete',
  summary: 'Delete Organization',
  description: 'Deletes an organization with everything in it: folders, documents, user groups and every grant. NOT_FOUND when it does not exist.',
  data: z.object({ organizationId: ZId }).strict(),
  result: emptyResult(),
  example: { data: { organizationId: 'org-acme' }, result: { status: 'success', message: 'Organization deleted.' } },
});

export const updateOrganizationDisableState = operation({
  path: '/v2/organizations/access/disablestate/update',
  summary: 'Update Organization Disabled State',
  description: 'Disables or re-enables an organization. While disabled, every access in it resolves to at most `viewer` (read-only). NOT_FOUND when it does not exist.',
  data: z.object({ organizationId: ZId, disabled: z.boolean() }).strict(),
  result: resultOf(ZOrganization),
  // The message follows `disabled`: `Organization enabled.` when re-enabling.
  example: {
    data: { organizationId: 'org-acme', disabled: true },
    result: { status: 'success', message: 'Organization disabled.', data: { ...ACME, disabled: true, lastUpdated: Date.UTC(2026, 5, 30, 18, 0) } },
  },
});
