// Migrate Documents: a durable job that moves a document and everything the
// owned-data registry knows of it to a new ID. The request refuses what it
// can see; the job checks again when it runs; it resumes after a restart and
// after a worker died holding it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { loadConfig } from '../../../server/config.js';
import { testClock } from '../../../server/lib/clock.js';
import { startServer } from '../../../server/server.js';
import { createClient } from '../../../sdk/index.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { captureLogger } from '../../helpers/log-capture.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

let server: TestServer;
let client: Client;

beforeAll(async () => {
  server = await startTestServer();
  client = server.client(await server.workspace());
});
afterAll(() => server?.close());

const ORG = 'org';

/** A restricted document in a folder, a user's grant and a group's grant on it, and an organization member. */
async function seed(c: Client, documentId: string) {
  await c.organizations.addFolder({ organizationId: ORG, folderId: `${documentId}-folder` });
  await c.organizations.addDocument({ organizationId: ORG, documentId, documentName: `Name of ${documentId}`, folderId: `${documentId}-folder` });
  await c.organizations.updateFolderAccess({ organizationId: ORG, folderId: `${documentId}-folder`, accessType: 'restricted' });
  await c.permissions.addPermissions({
    user: { userId: 'dora' },
    permissions: { resources: [{ type: 'document', id: documentId, organizationId: ORG, accessRole: 'editor', context: { accessFields: ['team:docs'] } }] },
  });
  await c.users.addUserGroup({ organizationId: ORG, organizationUserGroupId: `${documentId}-group`, name: 'G' });
  await c.users.addUsers({ organizationId: ORG, users: [{ userId: 'gus' }, { userId: 'olga' }] });
  await c.users.addUsersToGroup({ organizationId: ORG, organizationUserGroupId: `${documentId}-group`, userIds: ['gus'] });
  await c.permissions.addPermissions({
    userGroup: { organizationId: ORG, organizationUserGroupId: `${documentId}-group` },
    permissions: { resources: [{ type: 'document', id: documentId, organizationId: ORG, accessRole: 'viewer' }] },
  });
}

async function rolesOn(c: Client, documentId: string) {
  const { data } = await c.permissions.getPermissions({ organizationId: ORG, userIds: ['dora', 'gus', 'olga'], documentIds: [documentId] });
  return Object.fromEntries(Object.entries(data).map(([userId, entry]) => [userId, entry.documents?.[documentId]?.accessRole ?? entry.documents?.[documentId]?.errorCode]));
}

const documentsOf = async (c: Client) => (await c.organizations.getDocuments({ organizationId: ORG })).data;
const status = async (c: Client, migrationId: string) => (await c.migrations.getMigrateDocumentsStatus({ organizationId: ORG, migrationId })).data;

describe('Migrate Documents', () => {
  it('moves the document, its grants and its members to the new ID; the old ID is unknown afterwards', async () => {
    await seed(client, 'draft');
    const before = (await documentsOf(client)).find((d) => d.id === 'draft')!;
    expect(await rolesOn(client, 'draft')).toEqual({ dora: 'editor', gus: 'viewer', olga: 'permission_denied' });

    const { data } = await client.migrations.migrateDocuments({ organizationId: ORG, documentId: 'draft', newDocumentId: 'final' });
    expect(data.migrationId).toMatch(/^mig_/);
    expect(await status(client, data.migrationId)).toEqual({ migrationId: data.migrationId, status: 'pending' });
    // Nothing moved before the job ran.
    expect((await documentsOf(client)).map((d) => d.id)).toContain('draft');

    expect(await server.running.services.jobs.runDue()).toBe(1);
    expect(await status(client, data.migrationId)).toEqual({ migrationId: data.migrationId, status: 'completed' });

    const after = await documentsOf(client);
    expect(after.map((d) => d.id)).not.toContain('draft');
    // The same document under its new ID (a changed ID is a change: lastUpdated moves).
    expect(after.find((d) => d.id === 'final')).toEqual({ ...before, id: 'final', lastUpdated: expect.any(Number) });
    expect(await rolesOn(client, 'final')).toEqual({ dora: 'editor', gus: 'viewer', olga: 'permission_denied' });
    // The grant moved whole, its feature-level access context included.
    const dora = (await client.permissions.getPermissions({ organizationId: ORG, userIds: ['dora'], documentIds: ['final'] })).data.dora!;
    expect(dora.context).toEqual({ accessFields: ['team:docs'] });
    expect((await client.users.getUsers({ organizationId: ORG, documentId: 'final' })).data.map((u) => u.userId)).toEqual(['dora']);

    const old = await expectCollabError(client.permissions.getPermissions({ organizationId: ORG, userIds: ['dora'], documentIds: ['draft'] }), 'NOT_FOUND');
    expect(old.details).toMatchObject({ dora: { documents: { draft: { errorCode: 'does_not_exist' } } } });
    await expectCollabError(client.users.getUsers({ organizationId: ORG, documentId: 'draft' }), 'NOT_FOUND');
    // The old ID is free again: a new document can take it.
    await client.organizations.addDocument({ organizationId: ORG, documentId: 'draft' });
    expect((await client.users.getUsers({ organizationId: ORG, documentId: 'draft' })).data).toEqual([]);
  });

  it('moves the outbox rows of the document with it', async () => {
    await client.organizations.addDocument({ organizationId: ORG, documentId: 'with-events' });
    const { db } = server.running.database;
    const appId = (await db.document.findFirstOrThrow({ where: { organizationId: ORG, id: 'with-events' } })).apiKeyId;
    // An outbox row of the document, as a content change leaves it (written directly: which projections run is not this test's concern).
    await db.domainEvent.create({
      data: { id: 'evt_migrate_1', apiKeyId: appId, type: 'activity.add', organizationId: ORG, documentId: 'with-events', actorUserId: 'dora', body: '{}', occurredAt: 1n },
    });
    const { migrationId } = (await client.migrations.migrateDocuments({ organizationId: ORG, documentId: 'with-events', newDocumentId: 'with-events-2' })).data;
    await server.running.services.jobs.runDue();
    expect((await status(client, migrationId)).status).toBe('completed');
    expect(await db.domainEvent.count({ where: { apiKeyId: appId, documentId: 'with-events' } })).toBe(0);
    expect(await db.domainEvent.findUnique({ where: { id: 'evt_migrate_1' } })).toMatchObject({ documentId: 'with-events-2', organizationId: ORG });
  });

  it('refuses an unknown organization or document (NOT_FOUND), a taken new ID (ALREADY_EXISTS) and the same ID (INVALID_ARGUMENT), starting no job', async () => {
    await client.organizations.addDocument({ organizationId: ORG, documentId: 'taken-a' });
    await client.organizations.addDocument({ organizationId: ORG, documentId: 'taken-b' });
    const jobs = await server.running.database.db.job.count();
    await expectCollabError(client.migrations.migrateDocuments({ organizationId: 'ghost', documentId: 'taken-a', newDocumentId: 'x' }), 'NOT_FOUND', /organization ghost/);
    await expectCollabError(client.migrations.migrateDocuments({ organizationId: ORG, documentId: 'ghost', newDocumentId: 'x' }), 'NOT_FOUND', /document ghost/);
    await expectCollabError(client.migrations.migrateDocuments({ organizationId: ORG, documentId: 'taken-a', newDocumentId: 'taken-b' }), 'ALREADY_EXISTS', /taken-b/);
    await expectCollabError(
      client.migrations.migrateDocuments({ organizationId: ORG, documentId: 'taken-a', newDocumentId: 'taken-a' }),
      'INVALID_ARGUMENT',
      /data\.newDocumentId: newDocumentId must differ from documentId/,
    );
    await expectCollabError(client.migrations.migrateDocuments({ organizationId: ORG, documentId: 'taken-a' } as never), 'INVALID_ARGUMENT', /data\.newDocumentId is required/);
    expect(await server.running.database.db.job.count()).toBe(jobs);
  });

  it('fails with a reason, moving nothing, when the new ID was taken between the request and the job', async () => {
    await seed(client, 'race-src');
    const { migrationId } = (await client.migrations.migrateDocuments({ organizationId: ORG, documentId: 'race-src', newDocumentId: 'race-dst' })).data;
    await client.organizations.addDocument({ organizationId: ORG, documentId: 'race-dst' });
    await server.running.services.jobs.runDue();
    expect(await status(client, migrationId)).toEqual({ migrationId, status: 'failed', reason: expect.stringMatching(/document race-dst was created after the migration was requested; nothing was moved/) });
    expect(await rolesOn(client, 'race-src')).toEqual({ dora: 'editor', gus: 'viewer', olga: 'permission_denied' });
    // The document that took the ID keeps only its own access (organization members, not race-src's grants).
    expect(await rolesOn(client, 'race-dst')).toEqual({ dora: 'permission_denied', gus: 'editor', olga: 'editor' });
    // Refused for good: not retried later.
    expect(await server.running.services.jobs.runDue()).toBe(0);
  });

  it('fails with a reason when the document was deleted (or replaced) before the job ran', async () => {
    await client.organizations.addDocument({ organizationId: ORG, documentId: 'gone' });
    const deleted = (await client.migrations.migrateDocuments({ organizationId: ORG, documentId: 'gone', newDocumentId: 'gone-2' })).data.migrationId;
    await client.organizations.deleteDocument({ organizationId: ORG, documentId: 'gone' });
    await client.organizations.addDocument({ organizationId: ORG, documentId: 'swapped' });
    const replaced = (await client.migrations.migrateDocuments({ organizationId: ORG, documentId: 'swapped', newDocumentId: 'swapped-2' })).data.migrationId;
    await client.organizations.deleteDocument({ organizationId: ORG, documentId: 'swapped' });
    await client.organizations.addDocument({ organizationId: ORG, documentId: 'swapped-2' });
    await server.running.services.jobs.runDue();
    expect(await status(client, deleted)).toEqual({ migrationId: deleted, status: 'failed', reason: expect.stringMatching(/document gone no longer exists/) });
    expect(await status(client, replaced)).toEqual({ migrationId: replaced, status: 'failed', reason: expect.stringMatching(/document swapped no longer exists/) });
    expect((await documentsOf(client)).map((d) => d.id)).not.toContain('gone-2');
  });
});

describe('Migrate Documents Status', () => {
  it('is NOT_FOUND for an unknown migration, one of another organization or application, and a job of another kind', async () => {
    await client.organizations.addDocument({ organizationId: ORG, documentId: 'status-doc' });
    await client.organizations.addOrganization({ organizationId: 'other-org' });
    const { migrationId } = (await client.migrations.migrateDocuments({ organizationId: ORG, documentId: 'status-doc', newDocumentId: 'status-doc-2' })).data;
    await expectCollabError(client.migrations.getMigrateDocumentsStatus({ organizationId: ORG, migrationId: 'mig_unknown' }), 'NOT_FOUND', /mig_unknown/);
    await expectCollabError(client.migrations.getMigrateDocumentsStatus({ organizationId: 'other-org', migrationId }), 'NOT_FOUND');
    const other = server.client(await server.workspace());
    await expectCollabError(other.migrations.getMigrateDocumentsStatus({ organizationId: ORG, migrationId }), 'NOT_FOUND');
    const { jobId } = (await client.userData.deleteAllUserData({ userId: 'nobody' })).data;
    await expectCollabError(client.migrations.getMigrateDocumentsStatus({ organizationId: ORG, migrationId: jobId }), 'NOT_FOUND');
    await expectCollabError(client.migrations.getMigrateDocumentsStatus({ organizationId: ORG } as never), 'INVALID_ARGUMENT', /data\.migrationId is required/);
    await server.running.services.jobs.runDue();
  });
});

describe('a migration resumes', () => {
  it('after a restart: enqueued by one server, run by the next on the same database', async () => {
    const first = await startTestServer();
    const credentials: WorkspaceCredentials = await first.workspace();
    try {
      const before = first.client(credentials);
      await seed(before, 'restart');
      const { migrationId } = (await before.migrations.migrateDocuments({ organizationId: ORG, documentId: 'restart', newDocumentId: 'restarted' })).data;
      // The first server stops before any worker ran the job.
      await first.running.close();

      const second = await startServer(loadConfig(first.env), { logger: captureLogger() });
      try {
        const after = createClient({ baseUrl: second.url, ...credentials });
        expect(await status(after, migrationId)).toEqual({ migrationId, status: 'pending' });
        expect(await second.services.jobs.runDue()).toBe(1);
        expect(await status(after, migrationId)).toEqual({ migrationId, status: 'completed' });
        expect((await documentsOf(after)).map((d) => d.id)).toContain('restarted');
        expect(await rolesOn(after, 'restarted')).toEqual({ dora: 'editor', gus: 'viewer', olga: 'permission_denied' });
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
    }
  });

  it('after its worker died holding it: in_progress until the lease runs out, then another worker completes it', async () => {
    const clock = testClock();
    const own = await startTestServer({}, { overrides: { clock } });
    try {
      const c = own.client(await own.workspace());
      await seed(c, 'leased');
      const { migrationId } = (await c.migrations.migrateDocuments({ organizationId: ORG, documentId: 'leased', newDocumentId: 'leased-2' })).data;
      // As a worker leaves a job it claimed when its process dies: running, leased, unfinished.
      await own.running.database.db.job.update({
        where: { id: migrationId },
        data: { state: 'running', attempts: 1, leaseOwner: 'worker_dead', leaseUntil: BigInt(clock.nowMs() + 60_000) },
      });
      expect(await status(c, migrationId)).toEqual({ migrationId, status: 'in_progress' });
      expect(await own.running.services.jobs.runDue()).toBe(0);
      clock.advance(60_001);
      expect(await own.running.services.jobs.runDue()).toBe(1);
      expect(await status(c, migrationId)).toEqual({ migrationId, status: 'completed' });
      expect(await rolesOn(c, 'leased-2')).toEqual({ dora: 'editor', gus: 'viewer', olga: 'permission_denied' });
    } finally {
      await own.close();
    }
  });

  it('as completed when the dead worker had committed the move but not recorded it', async () => {
    const clock = testClock();
    const own = await startTestServer({}, { overrides: { clock } });
    try {
      const c = own.client(await own.workspace());
      await seed(c, 'committed');
      const { migrationId } = (await c.migrations.migrateDocuments({ organizationId: ORG, documentId: 'committed', newDocumentId: 'committed-2' })).data;
      const { db, uow } = own.running.database;
      const job = (await own.running.services.jobs.get(migrationId))!;
      // The first attempt's unit of work committed; then the process died before marking the job done.
      await uow.run(() => own.running.services.owned.moveDocument({ apiKeyId: job.apiKeyId!, organizationId: ORG, documentId: 'committed' }, 'committed-2'));
      await db.job.update({ where: { id: migrationId }, data: { state: 'running', attempts: 1, leaseOwner: 'worker_dead', leaseUntil: BigInt(clock.nowMs() + 60_000) } });
      clock.advance(60_001);
      expect(await own.running.services.jobs.runDue()).toBe(1);
      expect(await status(c, migrationId)).toEqual({ migrationId, status: 'completed' });
      expect(await rolesOn(c, 'committed-2')).toEqual({ dora: 'editor', gus: 'viewer', olga: 'permission_denied' });
    } finally {
      await own.close();
    }
  });
});
