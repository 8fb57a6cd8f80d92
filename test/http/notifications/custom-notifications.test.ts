// Custom notifications: Add (recipients, templates), Update (read state per
// user) and Delete (for everyone, or from one user's list).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { usingPostgres } from '../../helpers/database.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

const ORG = 'org';
let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;

beforeAll(async () => {
  server = await startTestServer();
  ws = await server.workspace();
  client = server.client(ws);
  await client.organizations.addDocument({ organizationId: ORG, documentId: 'open' });
  await client.organizations.addDocument({ organizationId: ORG, documentId: 'closed', accessType: 'restricted' });
  await client.users.addUsers({
    organizationId: ORG,
    users: [
      { userId: 'ann', name: 'Ann', email: 'ann@example.com' },
      { userId: 'bob', name: 'Bob', email: 'bob@example.com' },
      { userId: 'cat', name: 'Cat', email: 'cat@example.com' },
      { userId: 'dan' },
    ],
  });
  await client.users.addUsers({ organizationId: ORG, documentId: 'closed', users: [{ userId: 'ann' }] });
  await client.notifications.setNotificationConfig({ organizationId: ORG, userIds: ['dan'], config: { inbox: 'NONE' } });
});
afterAll(() => server?.close());

const base = { organizationId: ORG, displayHeadlineMessageTemplate: '{actionUser} shared {file} with {recipientUser}', displayHeadlineMessageTemplateData: { file: 'plan.pdf' } };

describe(`Add Notification, Update Notifications and Delete Notifications (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('reaches the listed users (IDs or user objects) except the actor and users whose inbox is NONE', async () => {
    const { data } = await client.notifications.addNotification({
      ...base,
      documentId: 'open',
      actionUser: { userId: 'ann', name: 'Ann' },
      displayBodyMessage: 'Have a look',
      notificationSourceData: { fileId: 'f1', size: 3 },
      notifyUsers: ['bob', { userId: 'cat', name: 'Cat' }, 'ann', 'dan', 'bob'],
    });
    expect(data).toEqual({ notificationId: expect.stringMatching(/^ntf_/), notifyUsersByUserId: { bob: true, cat: true } });
    const { data: list } = await client.notifications.getNotifications({ organizationId: ORG, userId: 'cat' });
    expect(list).toEqual([
      {
        id: data.notificationId,
        notificationSource: 'custom',
        notificationSourceData: { fileId: 'f1', size: 3 },
        actionUser: { userId: 'ann', name: 'Ann' },
        displayBodyMessage: 'Have a look',
        displayHeadlineMessageTemplate: base.displayHeadlineMessageTemplate,
        displayHeadlineMessageTemplateData: { file: 'plan.pdf', actionUser: { userId: 'ann', name: 'Ann' }, recipientUser: { userId: 'cat', name: 'Cat', email: 'cat@example.com' } },
        metadata: { apiKey: ws.apiKey, organizationId: ORG, documentId: 'open' },
        notifyUsers: { 'bob@example.com': true, 'cat@example.com': true },
        notifyUsersByUserId: { bob: true, cat: true },
        readByUserIds: {},
        timestamp: expect.any(Number),
      },
    ]);
  });

  it('leaves out users who cannot read the document; notifyAll reaches its readers', async () => {
    const closed = await client.notifications.addNotification({ ...base, documentId: 'closed', notifyUsers: ['ann', 'bob', 'stranger'] });
    expect(closed.data.notifyUsersByUserId).toEqual({ ann: true });
    const all = await client.notifications.addNotification({ ...base, documentId: 'open', actionUser: { userId: 'bob' }, notifyAll: true, notifyUsers: ['stranger'] });
    expect(all.data.notifyUsersByUserId).toEqual({ ann: true, cat: true });
  });

  it('at organization level (no document) reaches whoever is listed, keyed by the email given when the user is unknown', async () => {
    const { data } = await client.notifications.addNotification({ ...base, notificationId: 'org-wide', notifyUsers: [{ userId: 'newcomer', email: 'new@example.com' }, 'bob'] });
    expect(data).toEqual({ notificationId: 'org-wide', notifyUsersByUserId: { newcomer: true, bob: true } });
    const { data: list } = await client.notifications.getNotifications({ organizationId: ORG, userId: 'newcomer' });
    expect(list.map((n) => [n.id, n.notifyUsers, n.metadata])).toEqual([['org-wide', { 'new@example.com': true, 'bob@example.com': true }, { apiKey: ws.apiKey, organizationId: ORG }]]);
    expect(list[0]!.displayHeadlineMessageTemplateData.recipientUser).toEqual({ userId: 'newcomer' });
  });

  it('refuses a taken notificationId, an unknown organization or document', async () => {
    await expectCollabError(client.notifications.addNotification({ ...base, notificationId: 'org-wide', notifyUsers: ['bob'] }), 'ALREADY_EXISTS', /org-wide/);
    await expectCollabError(client.notifications.addNotification({ ...base, organizationId: 'nope', notifyUsers: ['bob'] }), 'NOT_FOUND', /organization nope/);
    await expectCollabError(client.notifications.addNotification({ ...base, documentId: 'nope', notifyUsers: ['bob'] }), 'NOT_FOUND', /document nope/);
  });

  it('refuses templates with unfilled variables, reserved data keys, and requests without recipients', async () => {
    await expectCollabError(
      client.notifications.addNotification({ ...base, displayHeadlineMessageTemplate: '{actionUser} did {thing}', notifyUsers: ['bob'] }),
      'INVALID_ARGUMENT',
      /\{thing\}/,
    );
    await expectCollabError(
      client.notifications.addNotification({ ...base, displayHeadlineMessageTemplateData: { file: 'x', recipientUser: 'someone' }, notifyUsers: ['bob'] }),
      'INVALID_ARGUMENT',
      /recipientUser is filled by the service/,
    );
    for (const data of [
      { ...base },
      { ...base, notifyUsers: [] },
      { ...base, notifyAll: true },
      { ...base, notifyUsers: ['bob'], displayHeadlineMessageTemplate: '' },
      { ...base, notifyUsers: Array.from({ length: 1001 }, (_, i) => `u${i}`) },
      { ...base, notifyUsers: [{ userId: 'bob', role: 'x' }] },
    ]) {
      const res = await server.post('/v2/notifications/add', { data }, appHeaders(ws));
      expect([res.status, res.body.error?.status]).toEqual([400, 'INVALID_ARGUMENT']);
    }
  });

  it('marks read and unread per user, reporting notifications the user did not receive', async () => {
    const { data } = await client.notifications.addNotification({ ...base, documentId: 'open', notifyUsers: ['bob', 'cat'] });
    const id = data.notificationId;
    const read = await client.notifications.updateNotifications({ organizationId: ORG, userId: 'bob', notificationIds: [id, 'org-wide', 'unknown'], read: true });
    expect(read.data).toEqual({
      [id]: { success: true, notificationId: id, message: 'Marked as read.' },
      'org-wide': { success: true, notificationId: 'org-wide', message: 'Marked as read.' },
      unknown: { success: false, notificationId: 'unknown', message: `user bob has no notification unknown in organization ${ORG}` },
    });
    const forDan = await client.notifications.updateNotifications({ organizationId: ORG, userId: 'dan', notificationIds: [id], read: true });
    expect(forDan.data[id]!.success).toBe(false);
    const readBy = async () => (await client.notifications.getNotifications({ organizationId: ORG, documentId: 'open', notificationIds: [id] })).data[0]!.readByUserIds;
    expect(await readBy()).toEqual({ bob: true });
    await client.notifications.updateNotifications({ organizationId: ORG, userId: 'cat', notificationIds: [id], read: true });
    await client.notifications.updateNotifications({ organizationId: ORG, userId: 'bob', notificationIds: [id], read: false });
    expect(await readBy()).toEqual({ cat: true });
  });

  it("deletes from one user's list, or for everyone", async () => {
    const { data } = await client.notifications.addNotification({ ...base, documentId: 'open', notifyUsers: ['bob', 'cat'] });
    const id = data.notificationId;
    const mine = await client.notifications.deleteNotifications({ organizationId: ORG, userId: 'bob', notificationIds: [id] });
    expect(mine.data).toEqual({ [id]: { success: true, notificationId: id, message: 'Notification deleted for user bob.' } });
    const ids = async (query: { userId?: string; documentId?: string }) =>
      (await client.notifications.getNotifications({ organizationId: ORG, ...query })).data.map((n) => n.id);
    expect(await ids({ userId: 'bob' })).not.toContain(id);
    expect(await ids({ userId: 'cat' })).toContain(id);
    const again = await client.notifications.deleteNotifications({ organizationId: ORG, userId: 'bob', notificationIds: [id] });
    expect(again.data[id]!.success).toBe(false);

    const everyone = await client.notifications.deleteNotifications({ organizationId: ORG, notificationIds: [id, 'never'] });
    expect(everyone.data).toEqual({
      [id]: { success: true, notificationId: id, message: 'Notification deleted.' },
      never: { success: false, notificationId: 'never', message: `notification never does not exist in organization ${ORG}` },
    });
    expect(await ids({ userId: 'cat' })).not.toContain(id);
    expect(await ids({ documentId: 'open' })).not.toContain(id);
  });

  it('refuses more than 100 IDs per update or delete', async () => {
    const notificationIds = Array.from({ length: 101 }, (_, i) => `n${i}`);
    for (const [path, data] of [
      ['/v2/notifications/update', { organizationId: ORG, userId: 'bob', notificationIds, read: true }],
      ['/v2/notifications/delete', { organizationId: ORG, notificationIds }],
      ['/v2/notifications/update', { organizationId: ORG, userId: 'bob', notificationIds: ['x'] }],
    ] as const) {
      const res = await server.post(path, { data }, appHeaders(ws));
      expect([res.status, res.body.error?.status]).toEqual([400, 'INVALID_ARGUMENT']);
    }
  });
});
