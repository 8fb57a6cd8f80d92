import { describe, expect, it } from 'vitest';
import { expectCollabError } from '../../helpers/credentials.js';
import { client, ORG, useFoldersServer } from './fixture.js';

useFoldersServer();

const ids = (folders: Array<{ folderId: string; subFolders?: unknown[] }>) => folders.map((f) => f.folderId);

describe('Add Folder, Update Folder, Update Folder Access and Delete Folder', () => {
  it('refuses duplicates and unknown parents', async () => {
    await expectCollabError(client.organizations.addFolder({ organizationId: ORG, folderId: 'a' }), 'ALREADY_EXISTS');
    await expectCollabError(client.organizations.addFolder({ organizationId: ORG, folderId: 'z', parentFolderId: 'nope' }), 'NOT_FOUND');
  });

  it('renames and moves, refusing to move a folder under itself', async () => {
    const moved = await client.organizations.updateFolder({ organizationId: ORG, folderId: 'd', folderName: 'Dee', parentFolderId: 'c' });
    expect(moved.data).toMatchObject({ folderName: 'Dee', parentFolderId: 'c', ancestors: ['root', 'a', 'b', 'c'] });
    await expectCollabError(client.organizations.updateFolder({ organizationId: ORG, folderId: 'a', parentFolderId: 'c' }), 'INVALID_ARGUMENT', /under itself/);
    await client.organizations.updateFolder({ organizationId: ORG, folderId: 'd', parentFolderId: 'root' });
  });

  it('updates access: the type, and whether it inherits', async () => {
    const updated = await client.organizations.updateFolderAccess({ organizationId: ORG, folderId: 'c', inheritAccessFromParent: true });
    expect(updated.data.accessType).toBe('public');
    await client.organizations.updateFolderAccess({ organizationId: ORG, folderId: 'c', inheritAccessFromParent: false });
    await expectCollabError(client.organizations.updateFolderAccess({ organizationId: ORG, folderId: 'c' }), 'INVALID_ARGUMENT', /accessType or inheritAccessFromParent/);
  });

  it('deletes a folder with its subfolders, their documents and grants', async () => {
    await client.organizations.addFolder({ organizationId: ORG, folderId: 'x' });
    await client.organizations.addFolder({ organizationId: ORG, folderId: 'x1', parentFolderId: 'x' });
    await client.organizations.addDocument({ organizationId: ORG, documentId: 'in-x1', folderId: 'x1' });
    await client.users.addUsers({ organizationId: ORG, folderId: 'x1', users: [{ userId: 'm' }] });
    await client.organizations.deleteFolder({ organizationId: ORG, folderId: 'x' });
    expect(ids((await client.organizations.getFolders({ organizationId: ORG })).data)).toEqual(['a', 'b', 'c', 'd']);
    expect((await client.organizations.getDocuments({ organizationId: ORG, documentIds: ['in-x1'] })).data).toEqual([]);
    await expectCollabError(client.organizations.deleteFolder({ organizationId: ORG, folderId: 'x' }), 'NOT_FOUND');
  });
});

describe('Update Folder: crossing folder moves', () => {
  it('never both pass the cycle check: one moves, the other is INVALID_ARGUMENT', async () => {
    for (let round = 0; round < 10; round++) {
      const organizationId = `cross-${round}`;
      await client.organizations.addFolder({ organizationId, folderId: 'x' });
      await client.organizations.addFolder({ organizationId, folderId: 'y' });
      const settle = (p: Promise<unknown>) => p.then(() => 'ok', (e: { status?: string }) => e.status ?? String(e));
      const outcomes = await Promise.all([
        settle(client.organizations.updateFolder({ organizationId, folderId: 'x', parentFolderId: 'y' })),
        settle(client.organizations.updateFolder({ organizationId, folderId: 'y', parentFolderId: 'x' })),
      ]);
      expect(outcomes.sort()).toEqual(['INVALID_ARGUMENT', 'ok']);
    }
  });
});
