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

describe('Add Organization, Get Organizations, Update Organization, Update Organization Disabled State and Delete Organization', () => {
  it('add, get, update, disable, delete', async () => {
    const added = await client.organizations.addOrganization({ organizationId: 'o1', organizationName: 'One' });
    expect(added.data).toMatchObject({ organizationId: 'o1', organizationName: 'One', disabled: false });
    await expectCollabError(client.organizations.addOrganization({ organizationId: 'o1' }), 'ALREADY_EXISTS');
    await client.organizations.addOrganization({ organizationId: 'o2' });

    const listed = await client.organizations.getOrganizations({});
    expect(listed.data.map((o) => [o.organizationId, o.organizationName])).toEqual([
      ['o1', 'One'],
      ['o2', 'o2'],
    ]);
    expect(listed.pageToken).toBeNull();
    expect((await client.organizations.getOrganizations({ organizationIds: ['o2', 'unknown'] })).data.map((o) => o.organizationId)).toEqual(['o2']);

    expect((await client.organizations.updateOrganization({ organizationId: 'o1', organizationName: 'Uno' })).data.organizationName).toBe('Uno');
    expect((await client.organizations.updateOrganizationDisableState({ organizationId: 'o1', disabled: true })).data.disabled).toBe(true);

    await client.users.addUsers({ organizationId: 'o1', documentId: 'd', createDocument: true, users: [{ userId: 'u' }] });
    await client.organizations.deleteOrganization({ organizationId: 'o1' });
    expect((await client.organizations.getOrganizations({})).data.map((o) => o.organizationId)).toEqual(['o2']);
    // Everything in it went too: re-creating starts empty.
    await client.organizations.addOrganization({ organizationId: 'o1' });
    expect((await client.organizations.getDocuments({ organizationId: 'o1' })).data).toEqual([]);
    expect((await client.users.getUsers({ organizationId: 'o1' })).data).toEqual([]);
  });

  it('is NOT_FOUND for unknown organizations', async () => {
    await expectCollabError(client.organizations.updateOrganization({ organizationId: 'zz', organizationName: 'x' }), 'NOT_FOUND');
    await expectCollabError(client.organizations.deleteOrganization({ organizationId: 'zz' }), 'NOT_FOUND');
    await expectCollabError(client.organizations.updateOrganizationDisableState({ organizationId: 'zz', disabled: true }), 'NOT_FOUND');
  });

  it('limits organizationIds to 30', async () => {
    const ids = Array.from({ length: 31 }, (_, i) => `o${i}`);
    await expectCollabError(client.organizations.getOrganizations({ organizationIds: ids }), 'INVALID_ARGUMENT', /data\.organizationIds/);
  });
});

describe('Update Organization racing Delete Organization', () => {
  it('answers success or NOT_FOUND, never INTERNAL', async () => {
    const outcomes = new Set<string>();
    for (let round = 0; round < 15; round++) {
      const organizationId = `race-${round}`;
      await client.organizations.addOrganization({ organizationId });
      await client.organizations.addFolder({ organizationId, folderId: 'f' });
      const settle = (p: Promise<unknown>) => p.then(() => 'ok', (e: { status?: string }) => e.status ?? String(e));
      const results = await Promise.all([
        settle(client.organizations.updateOrganization({ organizationId, organizationName: 'renamed' })),
        settle(client.organizations.updateFolder({ organizationId, folderId: 'f', folderName: 'renamed' })),
        settle(client.organizations.deleteOrganization({ organizationId })),
      ]);
      for (const r of results) outcomes.add(r);
    }
    expect([...outcomes].filter((o) => o !== 'ok' && o !== 'NOT_FOUND')).toEqual([]);
  });
});
