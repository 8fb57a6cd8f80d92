// Get Notifications: every combination the specification lists, order, keyset
// paging (forged tokens, rows added while paging), limits, console toggles.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TNotification } from '../../../contract/notifications/schemas.js';
import { testClock } from '../../../server/lib/clock.js';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { usingPostgres } from '../../helpers/database.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

const ORG = 'org';
const clock = testClock(Date.UTC(2026, 5, 1));
let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;

interface Seeded {
  id: string;
  documentId?: string;
  locationId?: string;
  users: string[];
  timestamp: number;
}
const seeded: Seeded[] = [];

async function add(input: { documentId?: string; locationId?: string; users: string[]; notificationId?: string; advance?: number }): Promise<Seeded> {
  clock.advance(input.advance ?? 1000);
  const { data } = await client.notifications.addNotification({
    organizationId: ORG,
    ...(input.documentId ? { documentId: input.documentId } : {}),
    ...(input.locationId ? { locationId: input.locationId } : {}),
    ...(input.notificationId ? { notificationId: input.notificationId } : {}),
    displayHeadlineMessageTemplate: '{actionUser} pinged {recipientUser} about {topic}',
    displayHeadlineMessageTemplateData: { topic: `topic ${seeded.length}` },
    notifyUsers: input.users,
  });
  const row = { id: data.notificationId, documentId: input.documentId, locationId: input.locationId, users: input.users, timestamp: clock.nowMs() };
  seeded.push(row);
  return row;
}

const newestFirst = (a: Seeded, b: Seeded) => b.timestamp - a.timestamp || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

function expected(filter: { documentId?: string; locationId?: string; userId?: string; ids?: string[] }, order: 'asc' | 'desc' = 'desc'): string[] {
  const rows = seeded
    .filter((n) => filter.documentId === undefined || n.documentId === filter.documentId)
    .filter((n) => filter.locationId === undefined || n.locationId === filter.locationId)
    .filter((n) => filter.userId === undefined || n.users.includes(filter.userId))
    .filter((n) => filter.ids === undefined || filter.ids.includes(n.id))
    .sort(newestFirst)
    .map((n) => n.id);
  return order === 'desc' ? rows : rows.reverse();
}

async function all(query: Parameters<Client['notifications']['getNotifications']>[0], pageSize?: number): Promise<TNotification[]> {
  const items: TNotification[] = [];
  let pageToken: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = await client.notifications.getNotifications({ ...query, ...(pageSize ? { pageSize } : {}), ...(pageToken ? { pageToken } : {}) });
    items.push(...page.data);
    if (page.pageToken === null) return items;
    pageToken = page.pageToken;
  }
  throw new Error('paging did not end');
}

beforeAll(async () => {
  server = await startTestServer({}, { overrides: { clock } });
  ws = await server.workspace();
  client = server.client(ws);
  for (const documentId of ['d1', 'd2']) await client.organizations.addDocument({ organizationId: ORG, documentId });
  await client.users.addUsers({ organizationId: ORG, users: [{ userId: 'u1', name: 'Una', email: 'una@example.com' }, { userId: 'u2' }, { userId: 'u3' }] });
  await add({ documentId: 'd1', locationId: 'L1', users: ['u1'] });
  await add({ documentId: 'd1', locationId: 'L2', users: ['u1', 'u2'] });
  await add({ documentId: 'd2', users: ['u2'] });
  await add({ documentId: 'd2', locationId: 'L1', users: ['u1'] });
  await add({ users: ['u1', 'u3'] });
  await add({ locationId: 'L1', users: ['u1'] });
  // Three at the same millisecond: the ID breaks the tie.
  await add({ documentId: 'd1', locationId: 'L1', users: ['u1', 'u2'], notificationId: 'tieb' });
  await add({ documentId: 'd1', locationId: 'L1', users: ['u1'], notificationId: 'tiec', advance: 0 });
  await add({ documentId: 'd1', users: ['u2'], notificationId: 'tiea', advance: 0 });
  for (let i = 0; i < 5; i++) await add({ documentId: 'd1', locationId: i % 2 ? 'L1' : 'L2', users: i % 2 ? ['u1'] : ['u1', 'u2'] });
});
afterAll(() => server?.close());

describe(`Get Notifications (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  const someIds = () => [seeded[0]!.id, seeded[1]!.id, seeded[3]!.id, seeded[6]!.id, seeded[8]!.id, seeded[10]!.id, 'unknown-id'];
  const combinations: [string, () => { documentId?: string; locationId?: string; userId?: string; ids?: string[] }][] = [
    ['organization + document', () => ({ documentId: 'd1' })],
    ['document + notificationIds', () => ({ documentId: 'd1', ids: someIds() })],
    ['document + location', () => ({ documentId: 'd1', locationId: 'L1' })],
    ['document + location + notificationIds', () => ({ documentId: 'd1', locationId: 'L1', ids: someIds() })],
    ['user', () => ({ userId: 'u1' })],
    ['user + notificationIds', () => ({ userId: 'u1', ids: someIds() })],
    ['document + user', () => ({ documentId: 'd1', userId: 'u2' })],
    ['location + user', () => ({ locationId: 'L1', userId: 'u1' })],
    ['document + location + user', () => ({ documentId: 'd1', locationId: 'L1', userId: 'u1' })],
  ];

  for (const [name, filterOf] of combinations) {
    it(`${name}: newest first by default, oldest first with asc, the same on every page size`, async () => {
      const filter = filterOf();
      const query = {
        organizationId: ORG,
        ...(filter.documentId ? { documentId: filter.documentId } : {}),
        ...(filter.locationId ? { locationId: filter.locationId } : {}),
        ...(filter.userId ? { userId: filter.userId } : {}),
        ...(filter.ids ? { notificationIds: filter.ids } : {}),
      };
      const want = expected(filter);
      expect(want.length).toBeGreaterThan(1);
      expect((await all(query)).map((n) => n.id)).toEqual(want);
      expect((await all({ ...query, order: 'desc' }, 2)).map((n) => n.id)).toEqual(want);
      expect((await all({ ...query, order: 'asc' }, 3)).map((n) => n.id)).toEqual(expected(filter, 'asc'));
      for (const n of await all(query)) {
        if (filter.userId) expect(n.displayHeadlineMessageTemplateData.recipientUser).toMatchObject({ userId: filter.userId });
        else expect(n.displayHeadlineMessageTemplateData.recipientUser).toBeUndefined();
      }
    });
  }

  it('returns every field of a custom notification, recipientUser from the user record', async () => {
    const first = seeded[1]!;
    const { data } = await client.notifications.getNotifications({ organizationId: ORG, userId: 'u1', notificationIds: [first.id] });
    expect(data).toEqual([
      {
        id: first.id,
        notificationSource: 'custom',
        notificationSourceData: {},
        displayHeadlineMessageTemplate: '{actionUser} pinged {recipientUser} about {topic}',
        displayHeadlineMessageTemplateData: { topic: 'topic 1', recipientUser: { userId: 'u1', name: 'Una', email: 'una@example.com' } },
        metadata: { apiKey: ws.apiKey, organizationId: ORG, documentId: 'd1' },
        locationId: 'L2',
        notifyUsers: { 'una@example.com': true, u2: true },
        notifyUsersByUserId: { u1: true, u2: true },
        readByUserIds: {},
        timestamp: first.timestamp,
      },
    ]);
  });

  it('pages stably while notifications are added, in both orders', async () => {
    for (const order of ['desc', 'asc'] as const) {
      const query = { organizationId: ORG, userId: 'u1', order, pageSize: 3 };
      const before = expected({ userId: 'u1' }, order);
      const seen: string[] = [];
      let page = await client.notifications.getNotifications(query);
      seen.push(...page.data.map((n) => n.id));
      // One at the very millisecond of the last row returned (its later ID sorts it
      // past that row in asc, before it in desc), and a newer one.
      const latest = clock.nowMs();
      clock.set(page.data[page.data.length - 1]!.timestamp);
      await add({ documentId: 'd2', users: ['u1'], advance: 0 });
      clock.set(latest);
      await add({ documentId: 'd2', users: ['u1'] });
      while (page.pageToken !== null) {
        page = await client.notifications.getNotifications({ ...query, pageToken: page.pageToken });
        seen.push(...page.data.map((n) => n.id));
      }
      expect(new Set(seen).size).toBe(seen.length);
      if (order === 'desc') expect(seen).toEqual(before);
      else expect(seen).toEqual(expected({ userId: 'u1' }, 'asc'));
    }
  });

  it('refuses a forged page token, and a token of another query', async () => {
    const first = await client.notifications.getNotifications({ organizationId: ORG, documentId: 'd1', pageSize: 2 });
    expect(first.pageToken).not.toBeNull();
    const token = first.pageToken!;
    const [body] = token.split('.');
    await expectCollabError(client.notifications.getNotifications({ organizationId: ORG, documentId: 'd1', pageSize: 2, pageToken: `${body}.AAAA` }), 'INVALID_ARGUMENT', /pageToken/);
    const forgedBody = Buffer.from(JSON.stringify([0, 'zzz'])).toString('base64url');
    await expectCollabError(client.notifications.getNotifications({ organizationId: ORG, documentId: 'd1', pageToken: `${forgedBody}.${token.split('.')[1]}` }), 'INVALID_ARGUMENT', /pageToken/);
    await expectCollabError(client.notifications.getNotifications({ organizationId: ORG, documentId: 'd1', order: 'asc', pageToken: token }), 'INVALID_ARGUMENT', /pageToken/);
    await expectCollabError(client.notifications.getNotifications({ organizationId: ORG, documentId: 'd2', pageToken: token }), 'INVALID_ARGUMENT', /pageToken/);
    await expectCollabError(client.notifications.getNotifications({ organizationId: ORG, documentId: 'd1', userId: 'u1', pageToken: token }), 'INVALID_ARGUMENT', /pageToken/);
  });

  it('shows read state per user', async () => {
    const target = seeded[1]!;
    await client.notifications.updateNotifications({ organizationId: ORG, userId: 'u2', notificationIds: [target.id], read: true });
    const { data } = await client.notifications.getNotifications({ organizationId: ORG, documentId: 'd1', notificationIds: [target.id] });
    expect(data[0]!.readByUserIds).toEqual({ u2: true });
  });

  it('refuses neither documentId nor userId, 31 notificationIds, a bad order or page size', async () => {
    const post = (data: unknown) => server.post('/v2/notifications/get', { data }, appHeaders(ws));
    for (const data of [
      { organizationId: ORG },
      { organizationId: ORG, locationId: 'L1' },
      { organizationId: ORG, documentId: 'd1', notificationIds: Array.from({ length: 31 }, (_, i) => `n${i}`) },
      { organizationId: ORG, documentId: 'd1', notificationIds: [] },
      { organizationId: ORG, documentId: 'd1', order: 'newest' },
      { organizationId: ORG, documentId: 'd1', pageSize: 0 },
      { organizationId: ORG, documentId: 'd1', pageSize: 1001 },
      { documentId: 'd1' },
    ]) {
      const res = await post(data);
      expect([res.status, res.body.error?.status]).toEqual([400, 'INVALID_ARGUMENT']);
    }
    const res = await post({ organizationId: ORG });
    expect(res.body.error.message).toMatch(/documentId or userId/);
    const thirty = await post({ organizationId: ORG, documentId: 'd1', notificationIds: Array.from({ length: 30 }, (_, i) => `n${i}`) });
    expect([thirty.status, thirty.body.result?.data]).toEqual([200, []]);
  });

  it('is NOT_FOUND for an unknown organization or document; an unknown user has no notifications', async () => {
    await expectCollabError(client.notifications.getNotifications({ organizationId: 'nope', userId: 'u1' }), 'NOT_FOUND', /organization nope/);
    await expectCollabError(client.notifications.getNotifications({ organizationId: ORG, documentId: 'nope' }), 'NOT_FOUND', /document nope/);
    expect((await client.notifications.getNotifications({ organizationId: ORG, userId: 'nobody' })).data).toEqual([]);
  });

  it('defaults pageSize to 1000', async () => {
    const many = Array.from({ length: 1001 }, (_, i) => `bulk-${i}`);
    // One notification for 1,001 users would not test paging; 1,001 notifications for one user does.
    const repo = server.running.database.db;
    const apiKeyId = (await server.cli<{ apiKey: { id: string } }>('workspace', 'get', '--api-key', ws.apiKey)).apiKey.id;
    await repo.notification.createMany({
      data: many.map((id, i) => ({ apiKeyId, id, organizationId: ORG, documentId: 'd2', source: 'custom', sourceData: '{}', headlineTemplate: 'x', headlineData: '{}', timestamp: BigInt(i) })),
    });
    await repo.notificationRecipient.createMany({
      data: many.map((id, i) => ({ apiKeyId, notificationId: id, userId: 'u3', userKey: 'u3', organizationId: ORG, documentId: 'd2', timestamp: BigInt(i) })),
    });
    const page = await client.notifications.getNotifications({ organizationId: ORG, userId: 'u3', documentId: 'd2' });
    expect(page.data).toHaveLength(1000);
    expect(page.pageToken).not.toBeNull();
    const rest = await client.notifications.getNotifications({ organizationId: ORG, userId: 'u3', documentId: 'd2', pageToken: page.pageToken! });
    expect(rest.data.map((n) => n.id)).toEqual(['bulk-0']);
    expect(rest.pageToken).toBeNull();
  });
});

describe('console toggles', () => {
  it('Get Notifications needs advancedQueries and notifications; the other operations need notifications', async () => {
    const c = server.client(ws);
    const writes = [
      () => c.notifications.getNotificationConfig({ organizationId: ORG, documentIds: ['d1'], userId: 'u1' }),
      () => c.notifications.getNotificationConfigV2({ organizationId: ORG, documentIds: ['d1'], userId: 'u1' }),
      () => c.notifications.setNotificationConfig({ organizationId: ORG, userIds: ['u1'], config: { inbox: 'ALL' } }),
      () => c.notifications.addNotification({ organizationId: ORG, displayHeadlineMessageTemplate: 'x', notifyUsers: ['u1'] }),
      () => c.notifications.updateNotifications({ organizationId: ORG, userId: 'u1', notificationIds: ['x'], read: true }),
      () => c.notifications.deleteNotifications({ organizationId: ORG, notificationIds: ['x'] }),
    ];
    const get = () => c.notifications.getNotifications({ organizationId: ORG, documentId: 'd1' });

    await server.cli('feature', 'set', '--api-key', ws.apiKey, '--name', 'advancedQueries', '--enabled', 'false');
    await expectCollabError(get(), 'FAILED_PRECONDITION', /advanced-queries/);
    for (const call of writes) await call();

    await server.cli('feature', 'set', '--api-key', ws.apiKey, '--name', 'advancedQueries', '--enabled', 'true');
    await server.cli('feature', 'set', '--api-key', ws.apiKey, '--name', 'notifications', '--enabled', 'false');
    await expectCollabError(get(), 'FAILED_PRECONDITION', /notifications are disabled/);
    for (const call of writes) await expectCollabError(call(), 'FAILED_PRECONDITION', /notifications are disabled/);

    await server.cli('feature', 'set', '--api-key', ws.apiKey, '--name', 'notifications', '--enabled', 'true');
    await get();
  });
});
