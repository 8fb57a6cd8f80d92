import { describe, expect, it } from 'vitest';
import { expectCollabError } from '../../helpers/credentials.js';
import { client, ORG, useDocumentsServer } from './fixture.js';

useDocumentsServer();

describe('Add Document, Update Document, Move Document, Update Document Access, Update Document Disabled State and Delete Document', () => {
  it('adds, renames, moves, sets access, disables and deletes', async () => {
    const added = await client.organizations.addDocument({ organizationId: ORG, documentId: 'm', accessType: 'public' });
    expect(added.data).toMatchObject({ id: 'm', documentName: 'm', accessType: 'public', folderId: null });
    await expectCollabError(client.organizations.addDocument({ organizationId: ORG, documentId: 'm' }), 'ALREADY_EXISTS');
    expect((await client.organizations.updateDocument({ organizationId: ORG, documentId: 'm', documentName: 'Memo' })).data.documentName).toBe('Memo');

    const moved = await client.organizations.moveDocument({ organizationId: ORG, documentId: 'm', folderId: 'f' });
    expect(moved.data).toMatchObject({ folderId: 'f', accessType: 'restricted' });
    await expectCollabError(client.organizations.updateDocumentAccess({ organizationId: ORG, documentId: 'm', accessType: 'public' }), 'FAILED_PRECONDITION', /takes its access type/);
    const back = await client.organizations.moveDocument({ organizationId: ORG, documentId: 'm', folderId: 'root' });
    expect(back.data).toMatchObject({ folderId: null, accessType: 'public' });
    expect((await client.organizations.updateDocumentAccess({ organizationId: ORG, documentId: 'm', accessType: 'restricted' })).data.accessType).toBe('restricted');
    expect((await client.organizations.updateDocumentDisableState({ organizationId: ORG, documentId: 'm', disabled: true })).data.disabled).toBe(true);

    await client.organizations.deleteDocument({ organizationId: ORG, documentId: 'm' });
    await expectCollabError(client.organizations.deleteDocument({ organizationId: ORG, documentId: 'm' }), 'NOT_FOUND');
    await expectCollabError(client.organizations.moveDocument({ organizationId: ORG, documentId: 'doc-1', folderId: 'nope' }), 'NOT_FOUND');
  });
});
