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

const memberIds = async (organizationId: string, level: { documentId?: string; folderId?: string } = {}) =>
  (await client.users.getUsers({ organizationId, ...level })).data.map((u) => u.userId);

describe('Add Users', () => {
  it('adds to the organization (creating it), keyed by user ID, with derived initials', async () => {
    const result = await client.users.addUsers({
      organizationId: 'a-org',
      users: [
        { userId: 'ann', name: 'ann smith', email: 'ann@example.com' },
        { userId: 'bob', name: 'Bob', accessRole: 'viewer', photoUrl: 'https://example.com/bob.png' },
      ],
    });
    expect(result.data).toEqual({
      ann: { success: true, id: 'ann', message: 'User added to organization a-org.' },
      bob: { success: true, id: 'bob', message: 'User added to organization a-org.' },
    });
    const { data } = await client.users.getUsers({ organizationId: 'a-org' });
    expect(data).toEqual([
      { userId: 'ann', name: 'ann smith', email: 'ann@example.com', initial: 'A', accessRole: 'editor' },
      { userId: 'bob', name: 'Bob', email: '', initial: 'B', accessRole: 'viewer', photoUrl: 'https://example.com/bob.png' },
    ]);
    expect((await client.organizations.getOrganizations({ organizationIds: ['a-org'] })).data).toHaveLength(1);
  });

  it('adding at a lower level never adds at the organization level', async () => {
    await client.users.addUsers({ organizationId: 'a-org', documentId: 'doc-x', createDocument: true, users: [{ userId: 'dan' }] });
    await client.users.addUsers({ organizationId: 'a-org', folderId: 'fold-x', createFolder: true, users: [{ userId: 'fay' }] });
    expect(await memberIds('a-org')).toEqual(['ann', 'bob']);
    expect(await memberIds('a-org', { documentId: 'doc-x' })).toEqual(['dan']);
    expect(await memberIds('a-org', { folderId: 'fold-x' })).toEqual(['fay']);
  });

  it('reports a missing document or folder (without createDocument/createFolder) in each user entry, and writes nothing', async () => {
    const toDocument = await client.users.addUsers({ organizationId: 'ghost-org', documentId: 'ghost', users: [{ userId: 'x' }, { userId: 'y' }] });
    expect(toDocument.data).toEqual({
      x: { success: false, id: 'x', message: expect.stringMatching(/document ghost does not exist.*createDocument: true/) },
      y: { success: false, id: 'y', message: expect.stringMatching(/createDocument: true/) },
    });
    const toFolder = await client.users.addUsers({ organizationId: 'ghost-org', folderId: 'ghost', users: [{ userId: 'x' }] });
    expect(toFolder.data.x).toMatchObject({ success: false, message: expect.stringMatching(/folder ghost does not exist.*createFolder: true/) });
    // Nothing was added: not even the organization the request named.
    await expectCollabError(client.users.getUsers({ organizationId: 'ghost-org' }), 'NOT_FOUND');
  });

  it('rejects documentId with folderId, an empty users list, and unknown user fields', async () => {
    await expectCollabError(client.users.addUsers({ organizationId: 'a-org', documentId: 'd', folderId: 'f', users: [{ userId: 'x' }] }), 'INVALID_ARGUMENT', /not both/);
    await expectCollabError(client.users.addUsers({ organizationId: 'a-org', users: [] }), 'INVALID_ARGUMENT', /data\.users/);
    await expectCollabError(client.users.addUsers({ organizationId: 'a-org', users: [{ userId: 'x', role: 'admin' } as never] }), 'INVALID_ARGUMENT', /data\.users\[0\]\.role/);
  });

  it('adds 1,000 users in one request, each with its role and profile, readable page by page', async () => {
    const users = Array.from({ length: 1000 }, (_, i) => ({ userId: `bulk-${i}`, name: `bulk ${i}`, email: `b${i}@example.com`, ...(i % 3 === 0 ? { accessRole: 'viewer' as const } : {}) }));
    const result = await client.users.addUsers({ organizationId: 'bulk-org', users });
    expect(Object.keys(result.data)).toHaveLength(1000);
    const seen = new Map<string, { name: string; initial: string; accessRole: string }>();
    for (let pageToken: string | undefined, pages = 0; pages === 0 || pageToken; pages++) {
      const page = await client.users.getUsers({ organizationId: 'bulk-org', pageSize: 400, ...(pageToken ? { pageToken } : {}) });
      for (const u of page.data) seen.set(u.userId, u);
      pageToken = page.pageToken ?? undefined;
    }
    expect(seen.size).toBe(1000);
    expect(seen.get('bulk-3')).toMatchObject({ name: 'bulk 3', initial: 'B', accessRole: 'viewer' });
    expect(seen.get('bulk-4')).toMatchObject({ name: 'bulk 4', accessRole: 'editor' });
  });

  it('derives the initial from a whole first character, emoji included', async () => {
    await client.users.addUsers({ organizationId: 'emoji-org', users: [{ userId: 'smile', name: '😀 smiley' }, { userId: 'eacute', name: 'élodie' }] });
    const users = (await client.users.getUsers({ organizationId: 'emoji-org' })).data;
    expect(Object.fromEntries(users.map((u) => [u.userId, u.initial]))).toEqual({ smile: '😀', eacute: 'É' });
  });

  it('applies a user listed twice in order, as two calls would', async () => {
    await client.users.addUsers({
      organizationId: 'twice-org',
      users: [
        { userId: 'dup', name: 'First', accessRole: 'viewer', color: 'red' },
        { userId: 'dup', email: 'dup@example.com' },
      ],
    });
    const [dup] = (await client.users.getUsers({ organizationId: 'twice-org', userIds: ['dup'] })).data;
    expect(dup).toMatchObject({ name: 'First', email: 'dup@example.com', accessRole: 'viewer', color: 'red' });
  });

  it('adding again keeps the role unless one is given', async () => {
    await client.users.addUsers({ organizationId: 'a-org', users: [{ userId: 'bob', name: 'Bobby' }] });
    const bob = (await client.users.getUsers({ organizationId: 'a-org', userIds: ['bob'] })).data[0]!;
    expect([bob.name, bob.initial, bob.accessRole, bob.photoUrl]).toEqual(['Bobby', 'B', 'viewer', 'https://example.com/bob.png']);
  });
});

describe('Get Users and Update Users', () => {
  it('pages the contact list with an opaque token', async () => {
    await client.users.addUsers({ organizationId: 'p-org', users: ['u1', 'u2', 'u3', 'u4', 'u5'].map((userId) => ({ userId })) });
    const first = await client.users.getUsers({ organizationId: 'p-org', pageSize: 2 });
    expect(first.data.map((u) => u.userId)).toEqual(['u1', 'u2']);
    const second = await client.users.getUsers({ organizationId: 'p-org', pageSize: 2, pageToken: first.pageToken! });
    const third = await client.users.getUsers({ organizationId: 'p-org', pageSize: 2, pageToken: second.pageToken! });
    expect([...second.data, ...third.data].map((u) => u.userId)).toEqual(['u3', 'u4', 'u5']);
    expect(third.pageToken).toBeNull();
    await expectCollabError(client.users.getUsers({ organizationId: 'p-org', pageToken: `${first.pageToken}x` }), 'INVALID_ARGUMENT', /pageToken/);
    await expectCollabError(client.users.getUsers({ organizationId: 'a-org', pageToken: first.pageToken! }), 'INVALID_ARGUMENT', /pageToken/);
  });

  it('is NOT_FOUND for an unknown organization or document', async () => {
    await expectCollabError(client.users.getUsers({ organizationId: 'nope' }), 'NOT_FOUND');
    await expectCollabError(client.users.getUsers({ organizationId: 'a-org', documentId: 'nope' }), 'NOT_FOUND');
  });

  it('updates profiles and the role at a level; unknown users and non-members get success:false', async () => {
    const result = await client.users.updateUsers({
      organizationId: 'a-org',
      users: [
        { userId: 'ann', email: 'ann@new.example.com', accessRole: 'viewer' },
        { userId: 'dan', accessRole: 'viewer' },
        { userId: 'zed', name: 'Zed' },
      ],
    });
    expect(result.data.ann).toEqual({ success: true, id: 'ann', message: 'User updated.' });
    expect(result.data.dan!.success).toBe(false);
    expect(result.data.dan!.message).toMatch(/not a member of organization a-org/);
    expect(result.data.zed).toEqual({ success: false, id: 'zed', message: 'User zed does not exist.' });
    const ann = (await client.users.getUsers({ organizationId: 'a-org', userIds: ['ann'] })).data[0]!;
    expect([ann.email, ann.accessRole]).toEqual(['ann@new.example.com', 'viewer']);
  });

  it('needs organizationId to change a role', async () => {
    await expectCollabError(client.users.updateUsers({ users: [{ userId: 'ann', accessRole: 'editor' }] }), 'INVALID_ARGUMENT', /organizationId: is required to change accessRole/);
  });
});

describe('Delete Users', () => {
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

describe('User groups', () => {
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
