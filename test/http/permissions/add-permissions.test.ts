import { describe, expect, it } from 'vitest';
import { expectCollabError } from '../../helpers/credentials.js';
import { client, ORG, usePermissionsServer } from './fixture.js';

usePermissionsServer();

const docRole = async (userId: string, documentId = 'd1') =>
  (await client.permissions.getPermissions({ organizationId: ORG, userIds: [userId], documentIds: [documentId] })).data[userId]!.documents![documentId]!;

describe('Add Permissions', () => {
  it('creates organizations and documents on first grant', async () => {
    await client.permissions.addPermissions({ user: { userId: 'p2' }, permissions: { resources: [{ type: 'document', id: 'fresh', organizationId: 'new-org' }] } });
    const { data } = await client.permissions.getPermissions({ organizationId: 'new-org', userIds: ['p2'], documentIds: ['fresh'] });
    expect(data.p2!.documents!.fresh!.accessRole).toBe('editor');
  });

  it('grants to a user group of the same organization only', async () => {
    await client.users.addUsers({ organizationId: ORG, documentId: 'd1', users: [{ userId: 'seed' }] });
    await client.users.addUsers({ organizationId: 'other-org', users: [{ userId: 'g1' }] });
    await client.users.addUserGroup({ organizationId: ORG, organizationUserGroupId: 'grp', name: 'Group' });
    await client.users.addUsersToGroup({ organizationId: ORG, organizationUserGroupId: 'grp', userIds: ['g1'] });
    await client.permissions.addPermissions({ userGroup: { organizationId: ORG, organizationUserGroupId: 'grp' }, permissions: { resources: [{ type: 'document', id: 'd1', organizationId: ORG, accessRole: 'viewer' }] } });
    expect((await docRole('g1')).accessRole).toBe('viewer');

    await expectCollabError(
      client.permissions.addPermissions({ userGroup: { organizationId: ORG, organizationUserGroupId: 'grp' }, permissions: { resources: [{ type: 'organization', id: 'other-org' }] } }),
      'INVALID_ARGUMENT',
      /belongs to organization org-ar/,
    );
    await expectCollabError(
      client.permissions.addPermissions({ userGroup: { organizationId: ORG, organizationUserGroupId: 'nope' }, permissions: { resources: [{ type: 'organization', id: ORG }] } }),
      'NOT_FOUND',
    );
  });

  it('rejects an expiresAt in the past, both user and userGroup, or neither', async () => {
    await expectCollabError(
      client.permissions.addPermissions({ user: { userId: 'p3' }, permissions: { resources: [{ type: 'organization', id: ORG, expiresAt: 1_000_000 }] } }),
      'INVALID_ARGUMENT',
      /in the past/,
    );
    await expectCollabError(
      client.permissions.addPermissions({ user: { userId: 'p3' }, userGroup: { organizationId: ORG, organizationUserGroupId: 'grp' }, permissions: { resources: [{ type: 'organization', id: ORG }] } }),
      'INVALID_ARGUMENT',
      /exactly one of user, userGroup/,
    );
    await expectCollabError(client.permissions.addPermissions({ permissions: { resources: [{ type: 'organization', id: ORG }] } } as never), 'INVALID_ARGUMENT');
  });
});
