// Notifications in the owned-data registry: they follow a migrated document,
// go with a deleted document or organization, and are erased with a user;
// Get All User Data reads them through the registered source.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TUserRef } from '../../../contract/common/content.js';
import type { TNotification } from '../../../contract/notifications/schemas.js';
import { testClock } from '../../../server/lib/clock.js';
import type { UserDataCursor } from '../../../server/platform/owned-data.js';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { usingPostgres } from '../../helpers/database.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';
import { applicationIdOf, commentOf, publish, threadOf } from './fixture.js';

const clock = testClock(Date.UTC(2026, 5, 1));
let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;
let app: string;

const user = (userId: string): TUserRef => ({ userId, name: userId.toUpperCase(), email: `${userId}@example.com` });
const [ann, bob, cat] = [user('ann'), user('bob'), user('cat')];

beforeAll(async () => {
  server = await startTestServer({}, { overrides: { clock } });
  ws = await server.workspace();
  client = server.client(ws);
  app = await applicationIdOf(server, ws);
});
afterAll(() => server?.close());

async function organizationWith(organizationId: string, documentIds: string[]) {
  for (const documentId of documentIds) await client.organizations.addDocument({ organizationId, documentId });
  await client.users.addUsers({ organizationId, users: [ann, bob, cat].map((u) => ({ userId: u.userId, name: u.name, email: u.email })) });
}

async function mention(organizationId: string, documentId: string, actor: TUserRef, tagged: TUserRef[], threadFrom: TUserRef = actor) {
  clock.advance(1000);
  const comment = commentOf(actor, `hi ${tagged.map((u) => u.userId).join(' ')}`, tagged);
  await publish(server, app, 'comment.add', actor, { annotation: threadOf({ organizationId, documentId, from: threadFrom, comments: [comment] }), comment });
}

const inbox = async (organizationId: string, userId: string, documentId?: string) =>
  (await client.notifications.getNotifications({ organizationId, userId, ...(documentId ? { documentId } : {}) })).data;

describe(`owned data (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('deleting a document removes its notifications and configs; deleting the organization removes everything', async () => {
    await organizationWith('del', ['d1', 'd2']);
    await mention('del', 'd1', ann, [bob]);
    await mention('del', 'd2', ann, [bob]);
    await client.notifications.setNotificationConfig({ organizationId: 'del', documentIds: ['d1'], userIds: ['bob'], config: { inbox: 'NONE' } });
    await client.notifications.setNotificationConfig({ organizationId: 'del', userIds: ['bob'], config: { inbox: 'ALL' } });

    await client.organizations.deleteDocument({ organizationId: 'del', documentId: 'd1' });
    expect((await inbox('del', 'bob')).map((n) => n.metadata.documentId)).toEqual(['d2']);
    const db = server.running.database.db;
    expect(await db.notificationConfig.count({ where: { apiKeyId: app, organizationId: 'del' } })).toBe(0);
    expect(await db.notificationRecipient.count({ where: { apiKeyId: app, organizationId: 'del', documentId: 'd1' } })).toBe(0);

    await client.organizations.deleteOrganization({ organizationId: 'del' });
    for (const model of [db.notification, db.notificationRecipient, db.notificationDefaultConfig] as const) {
      expect(await (model as typeof db.notification).count({ where: { apiKeyId: app, organizationId: 'del' } })).toBe(0);
    }
  });

  it('a migrated document takes its notifications, recipients and configs along', async () => {
    await organizationWith('mig', ['old']);
    await mention('mig', 'old', ann, [bob]);
    await client.notifications.setNotificationConfig({ organizationId: 'mig', documentIds: ['old'], userIds: ['cat'], config: { inbox: 'ALL' } });
    const { owned } = server.running.services;
    await server.running.database.uow.run(() => owned.moveDocument({ apiKeyId: app, organizationId: 'mig', documentId: 'old' }, 'new'));
    // Idempotent: a job may run it again.
    await server.running.database.uow.run(() => owned.moveDocument({ apiKeyId: app, organizationId: 'mig', documentId: 'old' }, 'new'));

    const [moved] = await inbox('mig', 'bob', 'new');
    expect(moved!.metadata.documentId).toBe('new');
    expect(moved!.notificationSourceData.documentId).toBe('new');
    expect((await client.notifications.getNotifications({ organizationId: 'mig', documentId: 'new' })).data).toHaveLength(1);
    await expectCollabError(client.notifications.getNotifications({ organizationId: 'mig', documentId: 'old' }), 'NOT_FOUND');
    const { data } = await client.notifications.getNotificationConfig({ organizationId: 'mig', documentIds: ['new'], userId: 'cat' });
    expect(data[0]!.config.inbox).toBe('ALL');
  });

  it("erasing a user removes their inbox, configs and the notifications they caused, and anonymizes them in others'", async () => {
    await organizationWith('gdpr', ['d']);
    await mention('gdpr', 'd', ann, [bob]); // caused by ann: goes
    await mention('gdpr', 'd', bob, [ann, cat]); // ann received it: her row goes, cat keeps it with ann anonymized
    await client.notifications.setNotificationConfig({ organizationId: 'gdpr', userIds: ['ann'], config: { inbox: 'ALL' } });
    await client.notifications.setNotificationConfig({ organizationId: 'gdpr', documentIds: ['d'], userIds: ['ann'], config: { email: 'ALL' } });

    const { owned } = server.running.services;
    await server.running.database.uow.run(() => owned.eraseUser({ apiKeyId: app, userId: 'ann' }));
    await server.running.database.uow.run(() => owned.eraseUser({ apiKeyId: app, userId: 'ann' }));

    expect(await inbox('gdpr', 'ann')).toEqual([]);
    expect(await inbox('gdpr', 'bob')).toEqual([]);
    const [kept] = await inbox('gdpr', 'cat');
    expect(kept!.notifyUsersByUserId).toEqual({ cat: true });
    expect(JSON.stringify(kept)).not.toMatch(/ann@example\.com|"ANN"|"ann"/);
    expect((kept!.notificationSourceData.comments as { taggedUserContacts: TUserRef[] }[])[0]!.taggedUserContacts).toEqual([{ userId: 'anonymous', name: 'Anonymous' }, cat]);
    const { data } = await client.notifications.getNotificationConfig({ organizationId: 'gdpr', documentIds: ['d'], userId: 'ann' });
    expect(data[0]!.config).toEqual({ inbox: 'MINE', email: 'MINE', slack: 'NONE' });
  });

  it('anonymizes users whose IDs hold quotes, backslashes and LIKE wildcards', async () => {
    await organizationWith('odd', ['d']);
    const odd = ['q"uote\\back', '50%_off'].map((userId) => ({ userId, name: `Name of ${userId}` }));
    await mention('odd', 'd', ann, [...odd, bob], bob);
    const { owned } = server.running.services;
    for (const { userId } of odd) await server.running.database.uow.run(() => owned.eraseUser({ apiKeyId: app, userId }));
    const [kept] = await inbox('odd', 'bob');
    expect((kept!.notificationSourceData.comments as { taggedUserContacts: TUserRef[] }[])[0]!.taggedUserContacts).toEqual([
      { userId: 'anonymous', name: 'Anonymous' },
      { userId: 'anonymous', name: 'Anonymous' },
      bob,
    ]);
  });

  it('feeds Get All User Data with what the user received or caused, oldest first, in stable pages', async () => {
    await organizationWith('data', ['d']);
    await mention('data', 'd', ann, [bob]); // received by bob
    await mention('data', 'd', bob, [cat]); // caused by bob
    await mention('data', 'd', cat, [ann]); // neither
    await mention('data', 'd', cat, [bob], bob); // received by bob (his thread, he is mentioned)
    await mention('data', 'd', bob, [ann]); // caused
    const source = server.running.services.owned.userDataSource('notifications')!;
    expect(source).toBeDefined();
    const key = { apiKeyId: app, apiKey: ws.apiKey, organizationId: 'data', userId: 'bob' };
    const all = await source.list(key, undefined, 100);
    expect(all.map(({ item }) => (item as TNotification).actionUser!.userId)).toEqual(['ann', 'bob', 'cat', 'bob']);
    expect((all[0]!.item as TNotification).displayHeadlineMessageTemplateData.recipientUser).toEqual(bob);
    expect((all[1]!.item as TNotification).displayHeadlineMessageTemplateData.recipientUser).toBeUndefined();
    expect((all[0]!.item as TNotification).metadata.apiKey).toBe(ws.apiKey);

    const paged: unknown[] = [];
    let cursor: UserDataCursor | undefined;
    for (;;) {
      const page = await source.list(key, cursor, 1);
      if (page.length === 0) break;
      paged.push(...page.map((p) => p.item));
      cursor = page[page.length - 1]!.cursor;
    }
    expect(paged).toEqual(all.map((p) => p.item));
    expect(await source.list({ ...key, organizationId: 'other' }, undefined, 100)).toEqual([]);
  });
});

describe(`through Get All User Data, Migrate Documents and Delete All User Data (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  const runJobs = () => server.running.services.jobs.runDue();

  it('exports, migrates and erases notifications', async () => {
    await organizationWith('ops', ['doc']);
    await mention('ops', 'doc', ann, [bob]);
    await mention('ops', 'doc', bob, [cat]);

    const exported = await client.userData.getAllUserData({ organizationId: 'ops', userId: 'bob' });
    expect(exported.data.notifications.map((n) => n.actionUser?.userId)).toEqual(['ann', 'bob']);
    expect(exported.data.notifications[0]!.metadata).toEqual({ apiKey: ws.apiKey, organizationId: 'ops', documentId: 'doc' });

    const { migrationId } = (await client.migrations.migrateDocuments({ organizationId: 'ops', documentId: 'doc', newDocumentId: 'doc-moved' })).data;
    await runJobs();
    expect((await client.migrations.getMigrateDocumentsStatus({ organizationId: 'ops', migrationId })).data.status).toBe('completed');
    expect((await inbox('ops', 'cat', 'doc-moved')).map((n) => n.actionUser?.userId)).toEqual(['bob']);

    const { jobId } = (await client.userData.deleteAllUserData({ userId: 'bob' })).data;
    await runJobs();
    expect((await client.userData.getDeleteAllUserDataStatus({ jobId })).data.status).toBe('completed');
    expect((await client.userData.getAllUserData({ organizationId: 'ops', userId: 'bob' })).data.notifications).toEqual([]);
    // bob caused cat's notification: it went with him.
    expect(await inbox('ops', 'cat')).toEqual([]);
  });
});
