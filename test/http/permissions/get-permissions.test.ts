import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let client: Client;
const ORG = 'acme';

beforeAll(async () => {
  server = await startTestServer();
  client = server.client(await server.workspace());
  const o = client.organizations;
  // acme: folders eng (org-private) ⊃ eng-sub (inherits) and eng-own (does not inherit, restricted);
  // documents: top (org-private), secret (restricted), pub (public), spec in eng, deep in eng-sub, vault in eng-own.
  await o.addFolder({ organizationId: ORG, folderId: 'eng' });
  await o.addFolder({ organizationId: ORG, folderId: 'eng-sub', parentFolderId: 'eng' });
  await o.addFolder({ organizationId: ORG, folderId: 'eng-own', parentFolderId: 'eng', inheritAccessFromParent: false, accessType: 'restricted' });
  await o.addDocument({ organizationId: ORG, documentId: 'top' });
  await o.addDocument({ organizationId: ORG, documentId: 'secret', accessType: 'restricted' });
  await o.addDocument({ organizationId: ORG, documentId: 'pub', accessType: 'public' });
  await o.addDocument({ organizationId: ORG, documentId: 'spec', folderId: 'eng' });
  await o.addDocument({ organizationId: ORG, documentId: 'deep', folderId: 'eng-sub' });
  await o.addDocument({ organizationId: ORG, documentId: 'vault', folderId: 'eng-own' });

  await client.users.addUsers({ organizationId: ORG, users: [{ userId: 'olga', name: 'Olga', email: 'olga@example.com', accessRole: 'viewer' }] });
  await client.users.addUsers({ organizationId: ORG, folderId: 'eng', users: [{ userId: 'fred', name: 'Fred' }] });
  await client.users.addUsers({ organizationId: ORG, documentId: 'secret', users: [{ userId: 'dora', name: 'Dora' }] });
  await client.users.addUsers({ organizationId: ORG, users: [{ userId: 'gina', name: 'Gina' }] });
  await client.users.addUserGroup({ organizationId: ORG, organizationUserGroupId: 'vaulters', name: 'Vault' });
  await client.users.addUsersToGroup({ organizationId: ORG, organizationUserGroupId: 'vaulters', userIds: ['gina'] });
  await client.permissions.addPermissions({
    userGroup: { organizationId: ORG, organizationUserGroupId: 'vaulters' },
    permissions: { resources: [{ type: 'folder', id: 'eng-own', organizationId: ORG, accessRole: 'viewer' }] },
  });
});
afterAll(() => server?.close());

const ALL_DOCS = ['top', 'secret', 'pub', 'spec', 'deep', 'vault'];
const ALL_FOLDERS = ['eng', 'eng-sub', 'eng-own'];

async function permissionsOf(userId: string) {
  const { data } = await client.permissions.getPermissions({ organizationId: ORG, userIds: [userId], folderIds: ALL_FOLDERS, documentIds: ALL_DOCS });
  return data[userId]!;
}

const roles = (map: Record<string, { accessRole?: string; errorCode?: string }> | undefined) =>
  Object.fromEntries(Object.entries(map ?? {}).map(([id, e]) => [id, e.accessRole ?? e.errorCode]));

describe('Get Permissions', () => {
  it('organization members reach every document but restricted ones, with their role', async () => {
    const p = await permissionsOf('olga');
    expect(p.organization).toEqual({ [ORG]: { accessRole: 'viewer' } });
    expect(roles(p.documents)).toEqual({ top: 'viewer', secret: 'permission_denied', pub: 'viewer', spec: 'viewer', deep: 'viewer', vault: 'permission_denied' });
    expect(roles(p.folders)).toEqual({ eng: 'viewer', 'eng-sub': 'viewer', 'eng-own': 'permission_denied' });
  });

  it('denied entries carry error, errorCode and accessType inside the success response', async () => {
    const p = await permissionsOf('olga');
    expect(p.documents!.secret).toEqual({ error: expect.stringContaining('secret'), errorCode: 'permission_denied', accessType: 'restricted' });
    expect(p.documents!.top).toEqual({ accessRole: 'viewer', accessType: 'organizationPrivate' });
  });

  it('folder members reach the folder, its documents and inheriting subfolders only; never the organization', async () => {
    const p = await permissionsOf('fred');
    expect(p.organization![ORG]!.errorCode).toBe('permission_denied');
    expect(roles(p.folders)).toEqual({ eng: 'editor', 'eng-sub': 'editor', 'eng-own': 'permission_denied' });
    expect(roles(p.documents)).toEqual({ top: 'permission_denied', secret: 'permission_denied', pub: 'viewer', spec: 'editor', deep: 'editor', vault: 'permission_denied' });
  });

  it('document members reach that document only', async () => {
    const p = await permissionsOf('dora');
    expect(roles(p.documents)).toEqual({ top: 'permission_denied', secret: 'editor', pub: 'viewer', spec: 'permission_denied', deep: 'permission_denied', vault: 'permission_denied' });
  });

  it('group grants reach group members, and the better role wins', async () => {
    const p = await permissionsOf('gina');
    expect(p.folders!['eng-own']).toEqual({ accessRole: 'viewer', accessType: 'restricted' });
    expect(p.documents!.vault).toEqual({ accessRole: 'viewer', accessType: 'restricted' });
    expect(p.documents!.top!.accessRole).toBe('editor');
  });

  it('documents in a folder report the folder\'s access type', async () => {
    const p = await permissionsOf('olga');
    expect(p.documents!.spec!.accessType).toBe('organizationPrivate');
    expect(p.documents!.vault!.accessType).toBe('restricted');
    expect(p.folders!['eng-sub']!.accessType).toBe('organizationPrivate');
  });

  it('a user with no grant sees only public documents', async () => {
    const p = await permissionsOf('stranger');
    expect(roles(p.documents)).toEqual({ top: 'permission_denied', secret: 'permission_denied', pub: 'viewer', spec: 'permission_denied', deep: 'permission_denied', vault: 'permission_denied' });
  });

  it('keys the result by user ID for several users at once', async () => {
    const { data } = await client.permissions.getPermissions({ organizationId: ORG, userIds: ['olga', 'fred', 'dora'], documentIds: ['secret'] });
    expect(Object.keys(data).sort()).toEqual(['dora', 'fred', 'olga']);
    expect(data.dora!.documents!.secret!.accessRole).toBe('editor');
  });

  it('is NOT_FOUND with per-user details when a folder or document does not exist', async () => {
    const error = await expectCollabError(
      client.permissions.getPermissions({ organizationId: ORG, userIds: ['olga', 'fred'], folderIds: ['eng', 'nope-folder'], documentIds: ['top', 'nope-doc'] }),
      'NOT_FOUND',
    );
    expect(error.httpStatus).toBe(404);
    const details = error.details as Record<string, any>;
    expect(Object.keys(details).sort()).toEqual(['fred', 'olga']);
    expect(details.olga.documents['nope-doc']).toEqual({ error: 'document nope-doc does not exist', errorCode: 'does_not_exist' });
    expect(details.olga.folders['nope-folder'].errorCode).toBe('does_not_exist');
    expect(details.olga.documents.top.accessRole).toBe('viewer');
    expect(details.fred.folders.eng.accessRole).toBe('editor');
  });

  it('is NOT_FOUND for an organization that does not exist', async () => {
    const error = await expectCollabError(client.permissions.getPermissions({ organizationId: 'no-org', userIds: ['olga'] }), 'NOT_FOUND');
    expect((error.details as any).olga.organization['no-org'].errorCode).toBe('does_not_exist');
  });

  it('reports temporary access with expiresAt, and lets the better permanent grant win', async () => {
    const expiresAt = Math.floor(Date.now() / 1000) + 3600;
    await client.permissions.addPermissions({ user: { userId: 'tim' }, permissions: { resources: [{ type: 'document', id: 'secret', organizationId: ORG, accessRole: 'viewer', expiresAt }] } });
    expect((await permissionsOf('tim')).documents!.secret).toEqual({ accessRole: 'viewer', accessType: 'restricted', expiresAt });
    await client.permissions.addPermissions({ user: { userId: 'tim' }, permissions: { resources: [{ type: 'document', id: 'secret', organizationId: ORG, accessRole: 'viewer' }] } });
    expect((await permissionsOf('tim')).documents!.secret).toEqual({ accessRole: 'viewer', accessType: 'restricted' });
  });

  it('caps disabled documents and organizations at viewer', async () => {
    await client.organizations.updateDocumentDisableState({ organizationId: ORG, documentId: 'spec', disabled: true });
    expect((await permissionsOf('fred')).documents!.spec!.accessRole).toBe('viewer');
    await client.organizations.updateDocumentDisableState({ organizationId: ORG, documentId: 'spec', disabled: false });
    expect((await permissionsOf('fred')).documents!.spec!.accessRole).toBe('editor');

    await client.organizations.updateOrganizationDisableState({ organizationId: ORG, disabled: true });
    const p = await permissionsOf('gina');
    expect(p.organization![ORG]!.accessRole).toBe('viewer');
    expect(p.documents!.top!.accessRole).toBe('viewer');
    await client.organizations.updateOrganizationDisableState({ organizationId: ORG, disabled: false });
  });

  it('rejects a request without userIds', async () => {
    await expectCollabError(client.permissions.getPermissions({ organizationId: ORG } as never), 'INVALID_ARGUMENT', /data\.userIds is required/);
  });
});
