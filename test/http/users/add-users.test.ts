import { describe, expect, it } from 'vitest';
import { expectCollabError } from '../../helpers/credentials.js';
import { client, memberIds, useUsersServer } from './fixture.js';

useUsersServer();

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
