import { z } from 'zod';
import { emptyResult, operation, pagedResultOf, resultOf } from '../common/envelope.js';
import { ZPageSize, ZPageToken } from '../common/paging.js';
import { ZId, ZOrganization } from '../access/schemas.js';

/** Organization management: the record the specification leaves unshown is {organizationId, organizationName, disabled, createdAt, lastUpdated}. */

export const addOrganization = operation({
  path: '/v2/organizations/add',
  summary: 'Add Organization',
  description: 'Creates an organization. ALREADY_EXISTS when the ID is taken. `organizationName` defaults to the ID.',
  data: z.object({ organizationId: ZId, organizationName: z.string().min(1).max(256).optional() }).strict(),
  result: resultOf(ZOrganization),
});

export const getOrganizations = operation({
  path: '/v2/organizations/get',
  summary: 'Get Organizations',
  description: 'The organizations of the application, oldest first, or the listed ones (at most 30; unknown IDs are left out). Paged by an opaque pageToken (null on the last page).',
  data: z.object({ organizationIds: z.array(ZId).min(1).max(30).optional(), pageSize: ZPageSize, pageToken: ZPageToken }).strict(),
  result: pagedResultOf(ZOrganization),
});

export const updateOrganization = operation({
  path: '/v2/organizations/update',
  summary: 'Update Organization',
  description: 'Renames an organization. NOT_FOUND when it does not exist.',
  data: z.object({ organizationId: ZId, organizationName: z.string().min(1).max(256) }).strict(),
  result: resultOf(ZOrganization),
});

export const deleteOrganization = operation({
  path: '/v2/organizations/delete',
  summary: 'Delete Organization',
  description: 'Deletes an organization with everything in it: folders, documents, user groups and every grant. NOT_FOUND when it does not exist.',
  data: z.object({ organizationId: ZId }).strict(),
  result: emptyResult(),
});

export const updateOrganizationDisableState = operation({
  path: '/v2/organizations/access/disablestate/update',
  summary: 'Update Organization Disabled State',
  description: 'Disables or re-enables an organization. While disabled, every access in it resolves to at most `viewer` (read-only). NOT_FOUND when it does not exist.',
  data: z.object({ organizationId: ZId, disabled: z.boolean() }).strict(),
  result: resultOf(ZOrganization),
});
