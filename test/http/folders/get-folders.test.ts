import { describe, expect, it } from 'vitest';
import { expectCollabError } from '../../helpers/credentials.js';
import { server, ws, client, ORG, useFoldersServer } from './fixture.js';

useFoldersServer();

const ids = (folders: Array<{ folderId: string; subFolders?: unknown[] }>) => folders.map((f) => f.folderId);

describe('Get Folders', () => {
  it('returns one folder with root, ancestors, the apiKey, and immediate subfolders by default', async () => {
    const { data } = await client.organizations.getFolders({ organizationId: ORG, folderId: 'b' });
    expect(data).toHaveLength(1);
    const b = data[0]!;
    expect(b).toMatchObject({ folderId: 'b', folderName: 'b', organizationId: ORG, parentFolderId: 'a', apiKey: ws.apiKey, ancestors: ['root', 'a'], accessType: 'public', inheritAccessFromParent: true });
    expect(ids(b.subFolders!)).toEqual(['c']);
    expect(b.subFolders![0]!.subFolders).toBeUndefined();
    expect(b.subFolders![0]!.accessType).toBe('restricted');
  });

  it('nests to maxDepth; 0 gives no subfolders', async () => {
    const deep = (await client.organizations.getFolders({ organizationId: ORG, folderId: 'a', maxDepth: 5 })).data[0]!;
    expect(deep.parentFolderId).toBe('root');
    expect(deep.ancestors).toEqual(['root']);
    expect(deep.subFolders![0]!.subFolders![0]!.folderId).toBe('c');
    expect(deep.subFolders![0]!.subFolders![0]!.ancestors).toEqual(['root', 'a', 'b']);
    expect((await client.organizations.getFolders({ organizationId: ORG, folderId: 'a', maxDepth: 0 })).data[0]!.subFolders).toBeUndefined();
  });

  it('without folderId returns every folder of the organization', async () => {
    const { data } = await client.organizations.getFolders({ organizationId: ORG });
    expect(ids(data)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('is NOT_FOUND for unknown organizations and folders', async () => {
    await expectCollabError(client.organizations.getFolders({ organizationId: 'nope' }), 'NOT_FOUND');
    await expectCollabError(client.organizations.getFolders({ organizationId: ORG, folderId: 'nope' }), 'NOT_FOUND');
  });

  it('rejects a negative maxDepth', async () => {
    await expectCollabError(client.organizations.getFolders({ organizationId: ORG, maxDepth: -1 }), 'INVALID_ARGUMENT', /data\.maxDepth/);
  });

  it('is FAILED_PRECONDITION, saying how to enable it, while advanced queries are off', async () => {
    await server.cli('feature', 'set', '--api-key', ws.apiKey, '--name', 'advancedQueries', '--enabled', 'false');
    try {
      await expectCollabError(client.organizations.getFolders({ organizationId: ORG }), 'FAILED_PRECONDITION', /feature set --api-key <key> --name advancedQueries --enabled true/);
    } finally {
      await server.cli('feature', 'set', '--api-key', ws.apiKey, '--name', 'advancedQueries', '--enabled', 'true');
    }
  });
});
