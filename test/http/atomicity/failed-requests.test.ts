// A request that fails half-way leaves nothing behind, on SQLite and on
// PostgreSQL. The failure is real: a database trigger refuses one row that
// the operation writes after several others (grants, users, organizations,
// documents), so every earlier write of the request must be rolled back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { usingPostgres } from '../../helpers/database.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;

/** Refuses inserts into `table` whose `column` is `value`, and deletes of rows whose `column` is `value`. */
async function refuse(table: string, column: string, value: string, on: 'INSERT' | 'DELETE') {
  const { db } = server.running.database;
  const name = `refuse_${table}_${on}`.toLowerCase();
  const row = on === 'INSERT' ? 'NEW' : 'OLD';
  if (usingPostgres) {
    await db.$executeRawUnsafe(
      `CREATE FUNCTION ${name}() RETURNS trigger AS $$ BEGIN IF ${row}."${column}" = '${value}' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN ${row}; END $$ LANGUAGE plpgsql`,
    );
    await db.$executeRawUnsafe(`CREATE TRIGGER ${name} BEFORE ${on} ON "${table}" FOR EACH ROW EXECUTE FUNCTION ${name}()`);
  } else {
    await db.$executeRawUnsafe(
      `CREATE TRIGGER ${name} BEFORE ${on} ON "${table}" WHEN ${row}."${column}" = '${value}' BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
    );
  }
}

beforeAll(async () => {
  server = await startTestServer();
  ws = await server.workspace();
  client = server.client(ws);
  await refuse('Grant', 'resourceId', 'boom', 'INSERT');
  await refuse('Organization', 'id', 'undeletable', 'DELETE');
});
afterAll(() => server?.close());

async function snapshot() {
  const { db } = server.running.database;
  const [organizations, documents, folders, users, grants, groups, members] = await Promise.all([
    db.organization.count(),
    db.document.count(),
    db.folder.count(),
    db.user.count(),
    db.grant.count(),
    db.userGroup.count(),
    db.userGroupMember.count(),
  ]);
  return { organizations, documents, folders, users, grants, groups, members };
}

async function expectNothingLeftBehind(path: string, data: unknown) {
  const before = await snapshot();
  const res = await server.post(path, { data }, appHeaders(ws));
  expect([res.status, res.body.error?.status]).toEqual([500, 'INTERNAL']);
  expect(JSON.stringify(res.body)).not.toContain('injected failure');
  expect(await snapshot()).toEqual(before);
}

describe(`a failed request leaves nothing behind (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('Add Permissions: organizations, documents, the user and earlier grants are rolled back', async () => {
    await expectNothingLeftBehind('/v2/auth/permissions/add', {
      user: { userId: 'perm-user' },
      permissions: {
        resources: [
          { type: 'organization', id: 'o2' },
          { type: 'document', id: 'd', organizationId: 'o2', expiresAt: 3_000_000_000 },
          { type: 'document', id: 'boom', organizationId: 'o2' },
        ],
      },
    });
  });

  it('Generate Token: the user record and grants are rolled back', async () => {
    await expectNothingLeftBehind('/v2/auth/generate_token', {
      userId: 'token-user',
      userProperties: { name: 'T', email: 't@example.com' },
      permissions: { resources: [{ type: 'organization', id: 'o3' }, { type: 'folder', id: 'boom', organizationId: 'o3' }] },
    });
  });

  it('Add Users: the organization, the created document and 500 user records are rolled back', async () => {
    await expectNothingLeftBehind('/v2/users/add', {
      organizationId: 'o4',
      documentId: 'boom',
      createDocument: true,
      users: Array.from({ length: 500 }, (_, i) => ({ userId: `bulk-${i}`, name: `User ${i}` })),
    });
  });

  it('Delete Organization: its grants, groups, documents and folders stay when the last delete fails', async () => {
    await client.users.addUsers({ organizationId: 'undeletable', users: [{ userId: 'keeper' }] });
    await client.organizations.addFolder({ organizationId: 'undeletable', folderId: 'f' });
    await client.organizations.addDocument({ organizationId: 'undeletable', documentId: 'd', folderId: 'f' });
    await client.users.addUserGroup({ organizationId: 'undeletable', organizationUserGroupId: 'g', name: 'G' });
    await client.users.addUsersToGroup({ organizationId: 'undeletable', organizationUserGroupId: 'g', userIds: ['keeper'] });
    await expectNothingLeftBehind('/v2/organizations/delete', { organizationId: 'undeletable' });
    expect((await client.users.getUsers({ organizationId: 'undeletable' })).data.map((u) => u.userId)).toEqual(['keeper']);
  });

  it('a request that succeeds afterwards is unaffected', async () => {
    await client.permissions.addPermissions({
      user: { userId: 'perm-user' },
      permissions: { resources: [{ type: 'document', id: 'd', organizationId: 'o2', expiresAt: 3_000_000_000 }] },
    });
    const result = await client.permissions.getPermissions({ organizationId: 'o2', userIds: ['perm-user'], documentIds: ['d'] });
    expect(result.data['perm-user']?.documents?.d).toMatchObject({ accessRole: 'editor', expiresAt: 3_000_000_000 });
  });
});
