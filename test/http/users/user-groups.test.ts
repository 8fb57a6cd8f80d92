import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let client: Client;

beforeAll(async () => {
  server = await startTestServer();
  client = server.client(await server.workspace());
});
afterAll(() => server?.close());

describe('Add User Group, Add Users to Group, Delete Users from Groups, Delete Users from Groups (alias)', () => {
  it('adds a group once; adds known users; removes listed users or all', async () => {
    await client.users.addUsers({ organizationId: 'g-org', users: [{ userId: 'm1' }, { userId: 'm2' }, { userId: 'm3' }] });
    const group = await client.users.addUserGroup({ organizationId: 'g-org', organizationUserGroupId: 'team', name: 'Team' });
    expect(group.data).toMatchObject({ organizationUserGroupId: 'team', organizationId: 'g-org', name: 'Team' });
    await expectCollabError(client.users.addUserGroup({ organizationId: 'g-org', organizationUserGroupId: 'team', name: 'Again' }), 'ALREADY_EXISTS');

    const added = await client.users.addUsersToGroup({ organizationId: 'g-org', organizationUserGroupId: 'team', userIds: ['m1', 'm2', 'm3', 'ghost'] });
    expect(added.data.m1).toEqual({ success: true, organizationUserGroupId: 'team', message: 'User added to user group team.' });
    expect(added.data.ghost!.success).toBe(false);

    const removed = await client.users.deleteUsersFromGroup({ organizationId: 'g-org', organizationUserGroupId: 'team', userIds: ['m1', 'ghost'] });
    expect(removed.data).toEqual({
      m1: { success: true, organizationUserGroupId: 'team', message: 'User removed from user group team.' },
      ghost: { success: false, organizationUserGroupId: 'team', message: 'User ghost does not exist in user group team.' },
    });
    const all = await client.users.deleteUsersFromGroupV2({ organizationId: 'g-org', organizationUserGroupId: 'team', deleteAll: true });
    expect(Object.keys(all.data).sort()).toEqual(['m2', 'm3']);
    expect(Object.values(all.data).every((r) => r.success)).toBe(true);
  });

  it('needs userIds or deleteAll', async () => {
    await expectCollabError(client.users.deleteUsersFromGroup({ organizationId: 'g-org', organizationUserGroupId: 'team' }), 'INVALID_ARGUMENT', /userIds, or deleteAll/);
  });

  it('reports an unknown group in each user entry of a success response', async () => {
    const removed = await client.users.deleteUsersFromGroup({ organizationId: 'g-org', organizationUserGroupId: 'nope', userIds: ['m1', 'm2'] });
    expect(removed.data).toEqual({
      m1: { success: false, organizationUserGroupId: 'nope', message: 'user group nope does not exist in organization g-org' },
      m2: { success: false, organizationUserGroupId: 'nope', message: 'user group nope does not exist in organization g-org' },
    });
    expect((await client.users.deleteUsersFromGroup({ organizationId: 'g-org', organizationUserGroupId: 'nope', deleteAll: true })).data).toEqual({});
    const added = await client.users.addUsersToGroup({ organizationId: 'g-org', organizationUserGroupId: 'nope', userIds: ['m1'] });
    expect(added.data.m1).toEqual({ success: false, organizationUserGroupId: 'nope', message: 'user group nope does not exist in organization g-org' });
  });
});
