// Delete All User Data: a durable job that erases a user in the whole
// application through the owned-data registry. Here the access tables
// (profile, memberships, grants, group memberships); the content domains add
// their own rows to the same registry.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { testClock } from '../../../server/lib/clock.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let client: Client;

beforeAll(async () => {
  server = await startTestServer();
  client = server.client(await server.workspace());
});
afterAll(() => server?.close());

const runJobs = () => server.running.services.jobs.runDue();

/** Erin and Olaf in two organizations: memberships, a document grant, a group with a grant on a restricted document. */
async function seed(prefix: string) {
  const [o1, o2] = [`${prefix}-one`, `${prefix}-two`];
  await client.organizations.addDocument({ organizationId: o1, documentId: 'vault', accessType: 'restricted' });
  await client.users.addUsers({ organizationId: o1, users: [{ userId: 'erin', name: 'Erin', email: 'erin@example.com' }, { userId: 'olaf', name: 'Olaf' }] });
  await client.users.addUsers({ organizationId: o1, documentId: 'notes', createDocument: true, users: [{ userId: 'erin' }] });
  await client.users.addUsers({ organizationId: o2, users: [{ userId: 'erin' }, { userId: 'olaf' }] });
  await client.users.addUserGroup({ organizationId: o1, organizationUserGroupId: 'vaulters', name: 'Vault' });
  await client.users.addUsersToGroup({ organizationId: o1, organizationUserGroupId: 'vaulters', userIds: ['erin', 'olaf'] });
  await client.permissions.addPermissions({
    userGroup: { organizationId: o1, organizationUserGroupId: 'vaulters' },
    permissions: { resources: [{ type: 'document', id: 'vault', organizationId: o1, accessRole: 'viewer' }] },
  });
  return [o1, o2] as const;
}

const members = async (organizationId: string, level: { documentId?: string } = {}) =>
  (await client.users.getUsers({ organizationId, ...level })).data.map((u) => u.userId);

async function documentAccess(organizationId: string, userId: string, documentIds = ['vault', 'notes']) {
  const { data } = await client.permissions.getPermissions({ organizationId, userIds: [userId], documentIds });
  const entry = data[userId]!;
  const role = (e: { accessRole?: string; errorCode?: string } | undefined) => e?.accessRole ?? e?.errorCode;
  return { organization: role(entry.organization?.[organizationId]), vault: role(entry.documents?.vault), notes: role(entry.documents?.notes) };
}

describe('Delete All User Data', () => {
  it('erases the user in every organization of the application, as a job, leaving other users as they were', async () => {
    const [o1, o2] = await seed('erase');
    expect(await documentAccess(o1, 'erin')).toEqual({ organization: 'editor', vault: 'viewer', notes: 'editor' });

    const { data } = await client.userData.deleteAllUserData({ userId: 'erin' });
    expect(data.jobId).toMatch(/^del_/);
    expect((await client.userData.getDeleteAllUserDataStatus({ jobId: data.jobId })).data).toEqual({ jobId: data.jobId, status: 'pending' });
    // Nothing happens before the job runs.
    expect(await members(o1)).toEqual(['erin', 'olaf']);

    expect(await runJobs()).toBe(1);
    expect((await client.userData.getDeleteAllUserDataStatus({ jobId: data.jobId })).data).toEqual({ jobId: data.jobId, status: 'completed' });

    // Memberships, document grants and group memberships are gone, in both organizations.
    expect(await members(o1)).toEqual(['olaf']);
    expect(await members(o2)).toEqual(['olaf']);
    expect(await members(o1, { documentId: 'notes' })).toEqual([]);
    expect(await documentAccess(o1, 'erin')).toEqual({ organization: 'permission_denied', vault: 'permission_denied', notes: 'permission_denied' });
    expect(await documentAccess(o2, 'erin', [])).toMatchObject({ organization: 'permission_denied' });
    // Olaf keeps his membership and his group's grant; the group itself stays.
    expect(await documentAccess(o1, 'olaf')).toEqual({ organization: 'editor', vault: 'viewer', notes: 'editor' });
    const regroup = await client.users.addUsersToGroup({ organizationId: o1, organizationUserGroupId: 'vaulters', userIds: ['olaf'] });
    expect(regroup.data.olaf?.success).toBe(true);

    // The profile is gone too: added again, Erin starts without her old name and email.
    await client.users.addUsers({ organizationId: o1, users: [{ userId: 'erin' }] });
    const erin = (await client.users.getUsers({ organizationId: o1, userIds: ['erin'] })).data[0];
    expect(erin).toMatchObject({ userId: 'erin', name: '', email: '' });
  });

  it('erases again when asked again: each request is its own job, and a finished erasure does not stand in for a new one', async () => {
    const [o1] = await seed('again');
    const first = (await client.userData.deleteAllUserData({ userId: 'erin' })).data.jobId;
    const second = (await client.userData.deleteAllUserData({ userId: 'erin' })).data.jobId;
    expect(second).not.toBe(first);
    expect(await runJobs()).toBe(2);
    await client.users.addUsers({ organizationId: o1, users: [{ userId: 'erin' }] });
    const third = (await client.userData.deleteAllUserData({ userId: 'erin' })).data.jobId;
    await runJobs();
    expect((await client.userData.getDeleteAllUserDataStatus({ jobId: third })).data.status).toBe('completed');
    expect(await members(o1)).toEqual(['olaf']);
  });

  it('accepts a user that has no data (erasure is idempotent)', async () => {
    const { jobId } = (await client.userData.deleteAllUserData({ userId: 'never-seen' })).data;
    await runJobs();
    expect((await client.userData.getDeleteAllUserDataStatus({ jobId })).data.status).toBe('completed');
  });

  it('is per application: another application erasing the same user ID changes nothing here', async () => {
    const [o1] = await seed('tenant');
    const other = server.client(await server.workspace());
    const { jobId } = (await other.userData.deleteAllUserData({ userId: 'erin' })).data;
    await runJobs();
    expect((await other.userData.getDeleteAllUserDataStatus({ jobId })).data.status).toBe('completed');
    expect(await members(o1)).toEqual(['erin', 'olaf']);
    // And its job's status is not ours to read.
    await expectCollabError(client.userData.getDeleteAllUserDataStatus({ jobId }), 'NOT_FOUND');
  });

  it('refuses organizationId (erasure is per person, in every organization) and a missing userId', async () => {
    await expectCollabError(client.userData.deleteAllUserData({ userId: 'erin', organizationId: 'x' } as never), 'INVALID_ARGUMENT', /data\.organizationId/);
    await expectCollabError(client.userData.deleteAllUserData({} as never), 'INVALID_ARGUMENT', /data\.userId is required/);
  });
});

describe('Delete All User Data Status', () => {
  it('is NOT_FOUND for an unknown job and for a job that is not a user data deletion', async () => {
    await expectCollabError(client.userData.getDeleteAllUserDataStatus({ jobId: 'del_unknown' }), 'NOT_FOUND', /del_unknown/);
    await client.organizations.addDocument({ organizationId: 'status-org', documentId: 'doc' });
    const { migrationId } = (await client.migrations.migrateDocuments({ organizationId: 'status-org', documentId: 'doc', newDocumentId: 'doc-2' })).data;
    await expectCollabError(client.userData.getDeleteAllUserDataStatus({ jobId: migrationId }), 'NOT_FOUND');
    await expectCollabError(client.userData.getDeleteAllUserDataStatus({} as never), 'INVALID_ARGUMENT', /data\.jobId is required/);
  });

  it('is in_progress while the job waits to retry, then failed with a reason that keeps internals out; nothing is half-erased', async () => {
    const clock = testClock();
    const own = await startTestServer({}, { overrides: { clock } });
    try {
      const c = own.client(await own.workspace());
      await c.users.addUsers({ organizationId: 'org', users: [{ userId: 'erin', name: 'Erin' }] });
      // A table whose erasure always fails, registered after the access tables: their deletes roll back with it.
      own.running.services.owned.register({
        name: 'failing-test-table',
        models: [],
        moveDocument: async () => undefined,
        deleteDocuments: async () => undefined,
        deleteOrganization: async () => undefined,
        eraseUser: async () => {
          throw new Error('connection to 10.0.0.7 refused: secret driver detail');
        },
      });
      const { jobId } = (await c.userData.deleteAllUserData({ userId: 'erin' })).data;
      expect(await own.running.services.jobs.runDue()).toBe(1);
      expect((await c.userData.getDeleteAllUserDataStatus({ jobId })).data).toEqual({ jobId, status: 'in_progress' });
      for (let attempt = 2; attempt <= 8; attempt++) {
        clock.advance(300_000);
        expect(await own.running.services.jobs.runDue()).toBe(1);
      }
      const status = (await c.userData.getDeleteAllUserDataStatus({ jobId })).data;
      expect(status).toEqual({ jobId, status: 'failed', reason: expect.stringContaining(jobId) });
      expect(status.reason).not.toMatch(/secret|10\.0\.0\.7/);
      expect((await c.users.getUsers({ organizationId: 'org' })).data.map((u) => u.userId)).toEqual(['erin']);
    } finally {
      await own.close();
    }
  });
});
