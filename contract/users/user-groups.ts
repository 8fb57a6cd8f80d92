import { z } from 'zod';
import { aliasOf, operation, resultOf } from '../common/envelope.js';
import { ZId, ZUserGroup } from '../access/schemas.js';
import { named } from '../common/named.js';

export const addUserGroup = operation({
  path: '/v2/organizations/usergroups/add',
  summary: 'Add User Group',
  description: 'Creates a user group in an organization (created when missing). ALREADY_EXISTS when the group ID is taken in that organization.',
  data: z.object({ organizationId: ZId, organizationUserGroupId: ZId, name: z.string().min(1).max(256) }).strict(),
  result: resultOf(ZUserGroup),
  example: {
    data: { organizationId: 'org-acme', organizationUserGroupId: 'group-planners', name: 'Planners' },
    result: {
      status: 'success',
      message: 'User group added.',
      data: { organizationUserGroupId: 'group-planners', organizationId: 'org-acme', name: 'Planners', createdAt: Date.UTC(2026, 0, 15, 10, 0) },
    },
  },
});

const ZGroupOutcomes = z.record(named('UserGroupOutcome', z.object({ success: z.boolean(), organizationUserGroupId: z.string(), message: z.string() })));

export const addUsersToGroup = operation({
  path: '/v2/organizations/usergroups/users/add',
  summary: 'Add Users to Group',
  description:
    'Adds known users (created by Add Users or Generate Token) to a user group; members receive what the group was granted. An unknown group or an unknown user gets `success: false` in the entry of that user inside the successful response. Result keyed by user ID.',
  data: z.object({ organizationId: ZId, organizationUserGroupId: ZId, userIds: z.array(ZId).min(1).max(1000) }).strict(),
  result: resultOf(ZGroupOutcomes),
  example: {
    data: { organizationId: 'org-acme', organizationUserGroupId: 'group-planners', userIds: ['user-ada', 'user-grace'] },
    result: {
      status: 'success',
      message: 'Users added to user group.',
      data: {
        'user-ada': { success: true, organizationUserGroupId: 'group-planners', message: 'User added to user group group-planners.' },
        'user-grace': { success: true, organizationUserGroupId: 'group-planners', message: 'User added to user group group-planners.' },
      },
    },
  },
});

export const ZDeleteUsersFromGroupData = z
  .object({
    organizationId: ZId,
    organizationUserGroupId: ZId,
    userIds: z.array(ZId).min(1).max(1000).optional().describe('Users to remove; or deleteAll.'),
    deleteAll: z.boolean().optional().describe('When true, every user of the group is removed; then userIds may be omitted.'),
  })
  .strict()
  .refine((d) => d.deleteAll === true || d.userIds !== undefined, { message: 'give userIds, or deleteAll: true', path: ['userIds'] });

export const deleteUsersFromGroup = operation({
  path: '/v1/organizations/usergroups/users/delete',
  summary: 'Delete Users from Groups',
  description:
    'Removes users from a user group: the listed `userIds`, or every member with `deleteAll: true` (either alone is valid). Result keyed by user ID, each `{success, organizationUserGroupId, message}`; a user who is not a member, or every listed user of an unknown group, gets `success: false` (`deleteAll` on an unknown group succeeds with an empty result).',
  data: ZDeleteUsersFromGroupData,
  result: resultOf(ZGroupOutcomes),
  example: {
    data: { organizationId: 'org-acme', organizationUserGroupId: 'group-planners', userIds: ['user-grace'] },
    result: {
      status: 'success',
      message: 'Users deleted from user group.',
      data: { 'user-grace': { success: true, organizationUserGroupId: 'group-planners', message: 'User removed from user group group-planners.' } },
    },
  },
});

export const deleteUsersFromGroupV2 = aliasOf(deleteUsersFromGroup, '/v2/organizations/usergroups/users/delete');
