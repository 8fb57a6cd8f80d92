import { describe, expect, it } from 'vitest';
import { expectCollabError } from '../../helpers/credentials.js';
import { client, memberIds, useUsersServer } from './fixture.js';

useUsersServer();

describe('Delete Users and Delete Users (alias)', () => {
  it('at organization level removes every access in the organization and the contact list', async () => {
    await client.users.addUsers({ organizationId: 'd-org', users: [{ userId: 'rex' }, { userId: 'sue' }] });
    await client.users.addUsers({ organizationId: 'd-org', documentId: 'dd', createDocument: true, users: [{ userId: 'rex' }] });
    await client.users.addUsers({ organizationId: 'd-org', folderId: 'ff', createFolder: true, users: [{ userId: 'rex' }] });
    await client.users.addUserGroup({ organizationId: 'd-org', organizationUserGroupId: 'g', name: 'G' });
    await client.users.addUsersToGroup({ organizationId: 'd-org', organizationUserGroupId: 'g', userIds: ['rex'] });

    const result = await client.users.deleteUsers({ organizationId: 'd-org', userIds: ['rex', 'nobody'] });
    expect(result.data).toEqual({
      rex: { success: true, message: 'User removed from organization d-org.' },
      nobody: { success: false, message: 'User nobody does not exist in organization d-org.' },
    });
    expect(await memberIds('d-org')).toEqual(['sue']);
    expect(await memberIds('d-org', { documentId: 'dd' })).toEqual([]);
    expect(await memberIds('d-org', { folderId: 'ff' })).toEqual([]);
    const removedFromGroup = await client.users.deleteUsersFromGroup({ organizationId: 'd-org', organizationUserGroupId: 'g', userIds: ['rex'] });
    expect(removedFromGroup.data.rex!.success).toBe(false);
    const { data } = await client.permissions.getPermissions({ organizationId: 'd-org', userIds: ['rex'], documentIds: ['dd'] });
    expect(data.rex!.documents!.dd!.errorCode).toBe('permission_denied');
  });

  it('at document level removes from that document only; /v2/users/delete is the same operation', async () => {
    await client.users.addUsers({ organizationId: 'd-org', documentId: 'dd', users: [{ userId: 'sue' }] });
    const result = await client.users.deleteUsersV2({ organizationId: 'd-org', documentId: 'dd', userIds: ['sue'] });
    expect(result.data.sue).toEqual({ success: true, message: 'User removed from document dd.' });
    expect(await memberIds('d-org')).toEqual(['sue']);
  });

  it('rejects documentId with folderId and a missing userIds', async () => {
    await expectCollabError(client.users.deleteUsers({ organizationId: 'd-org', documentId: 'a', folderId: 'b', userIds: ['x'] }), 'INVALID_ARGUMENT');
    await expectCollabError(client.users.deleteUsers({ organizationId: 'd-org' } as never), 'INVALID_ARGUMENT', /data\.userIds is required/);
  });
});
