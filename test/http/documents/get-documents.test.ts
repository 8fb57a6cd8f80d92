import { describe, expect, it } from 'vitest';
import { expectCollabError } from '../../helpers/credentials.js';
import { server, ws, client, ORG, useDocumentsServer } from './fixture.js';

useDocumentsServer();

const ids = (docs: Array<{ id: string }>) => docs.map((d) => d.id);

describe('Get Documents', () => {
  it('lists with the spec fields; documents in a folder take its access type', async () => {
    const { data, pageToken } = await client.organizations.getDocuments({ organizationId: ORG });
    expect(ids(data)).toEqual(['doc-0', 'doc-1', 'doc-2', 'doc-3', 'doc-4', 'doc-5', 'doc-6']);
    expect(pageToken).toBeNull();
    expect(data[0]).toMatchObject({ id: 'doc-0', documentName: 'Doc 0', disabled: false, accessType: 'restricted', folderId: 'f', organizationId: ORG });
    expect(data[1]).toMatchObject({ accessType: 'organizationPrivate', folderId: null });
  });

  it('filters by folder and by documentIds (unknown IDs are left out)', async () => {
    expect(ids((await client.organizations.getDocuments({ organizationId: ORG, folderId: 'f' })).data)).toEqual(['doc-0', 'doc-3', 'doc-6']);
    expect(ids((await client.organizations.getDocuments({ organizationId: ORG, documentIds: ['doc-5', 'doc-1', 'nope'] })).data)).toEqual(['doc-1', 'doc-5']);
  });

  it('pages without gaps or duplicates while documents are added', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    let added = 0;
    do {
      const page = await client.organizations.getDocuments({ organizationId: ORG, pageSize: 2, ...(token ? { pageToken: token } : {}) });
      seen.push(...ids(page.data));
      token = page.pageToken ?? undefined;
      if (added < 3) await client.organizations.addDocument({ organizationId: ORG, documentId: `late-${added++}` });
    } while (token);
    expect(seen.slice(0, 7)).toEqual(['doc-0', 'doc-1', 'doc-2', 'doc-3', 'doc-4', 'doc-5', 'doc-6']);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expect.arrayContaining(['late-0', 'late-1', 'late-2']));
  });

  it('rejects a forged token, a token of another query, over 30 IDs and a pageSize out of range', async () => {
    const { pageToken } = await client.organizations.getDocuments({ organizationId: ORG, pageSize: 1 });
    const [body, tag] = pageToken!.split('.');
    const forged = `${Buffer.from(JSON.stringify([0, ''])).toString('base64url')}.${tag}`;
    await expectCollabError(client.organizations.getDocuments({ organizationId: ORG, pageSize: 1, pageToken: forged }), 'INVALID_ARGUMENT', /pageToken/);
    await expectCollabError(client.organizations.getDocuments({ organizationId: ORG, folderId: 'f', pageToken: `${body}.${tag}` }), 'INVALID_ARGUMENT', /pageToken/);
    await expectCollabError(client.organizations.getDocuments({ organizationId: ORG, pageToken: 'garbage' }), 'INVALID_ARGUMENT', /pageToken/);
    const many = Array.from({ length: 31 }, (_, i) => `doc-${i}`);
    await expectCollabError(client.organizations.getDocuments({ organizationId: ORG, documentIds: many }), 'INVALID_ARGUMENT', /data\.documentIds/);
    await expectCollabError(client.organizations.getDocuments({ organizationId: ORG, pageSize: 0 }), 'INVALID_ARGUMENT', /data\.pageSize/);
    await expectCollabError(client.organizations.getDocuments({ organizationId: ORG, pageSize: 1001 }), 'INVALID_ARGUMENT', /data\.pageSize/);
  });

  it('is NOT_FOUND for an unknown organization or folder, FAILED_PRECONDITION with advanced queries off', async () => {
    await expectCollabError(client.organizations.getDocuments({ organizationId: 'nope' }), 'NOT_FOUND');
    await expectCollabError(client.organizations.getDocuments({ organizationId: ORG, folderId: 'nope' }), 'NOT_FOUND');
    await server.cli('feature', 'set', '--api-key', ws.apiKey, '--name', 'advancedQueries', '--enabled', 'false');
    try {
      await expectCollabError(client.organizations.getDocuments({ organizationId: ORG }), 'FAILED_PRECONDITION', /advancedQueries --enabled true/);
    } finally {
      await server.cli('feature', 'set', '--api-key', ws.apiKey, '--name', 'advancedQueries', '--enabled', 'true');
    }
  });
});
