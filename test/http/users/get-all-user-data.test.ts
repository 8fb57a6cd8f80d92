// Get All User Data: one page of each feature per call, one token carrying a
// cursor per feature, and the numeric `code` in this operation's error
// envelope. The content domains (comments, notifications, recordings) register
// their UserDataSource in their own branches; until they land, paging is
// proven here with in-memory sources standing in for them.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import type { UserDataCursor, UserDataFeature, UserDataSource } from '../../../server/platform/owned-data.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;

beforeAll(async () => {
  server = await startTestServer();
  ws = await server.workspace();
  client = server.client(ws);
  await client.organizations.addOrganization({ organizationId: 'org' });
});
afterAll(() => server?.close());
afterEach(() => vi.restoreAllMocks());

const EMPTY = { comments: [], reactions: [], recordings: [], notifications: [], judgments: [] };

/** In-memory items of one user in (at, id) order, each in its contract shape. */
function items(feature: UserDataFeature, count: number, key: { apiKey: string; organizationId: string; userId: string }) {
  const from = { userId: key.userId };
  return Array.from({ length: count }, (_, i) => {
    // Equal timestamps in pairs: the id breaks the tie, as in the real keyset order.
    const at = 1_700_000_000_000 + Math.floor(i / 2);
    const id = `${feature}-${String(i).padStart(4, '0')}`;
    const place = { annotationId: `ann-${i}`, documentId: 'doc', organizationId: key.organizationId };
    const metadata = { apiKey: key.apiKey, organizationId: key.organizationId, documentId: 'doc' };
    const item =
      feature === 'comments'
        ? { ...place, commentId: id, commentText: `comment ${i}`, from, taggedUserContacts: [], createdAt: at, lastUpdated: at, reactions: [] }
        : feature === 'reactions'
          ? { ...place, commentId: `c-${i}`, reactionId: id, icon: 'thumbs_up', from, createdAt: at }
          : feature === 'recordings'
            ? {
                type: 'recorder' as const,
                annotationId: id,
                recordingType: 'audio',
                mode: 'floating',
                metadata,
                recordedTime: { duration: 3, display: '00:00:03' },
                displayName: `recording ${i}`,
                from,
                attachments: [],
                latestVersion: 1,
                createdAt: at,
              }
            : {
                id,
                notificationSource: 'custom',
                notificationSourceData: {},
                displayHeadlineMessageTemplate: 'Hello {{recipientUser}}',
                displayHeadlineMessageTemplateData: { recipientUser: from },
                metadata,
                notifyUsers: {},
                notifyUsersByUserId: { [key.userId]: true as const },
                readByUserIds: {},
                timestamp: at,
              };
    return { item, cursor: { at, id } };
  });
}

/**
 * Stands in for the sources of the content domains: each feature's items of
 * one user of one organization of this application, keyset-paged as the
 * real sources are. Returns the calls it got, to check what the service asks.
 */
function fakeSources(counts: Partial<Record<UserDataFeature, number>>, owner: { apiKey: string; organizationId: string; userId: string }) {
  const calls: { feature: UserDataFeature; after: UserDataCursor | undefined; take: number }[] = [];
  const sources = new Map<UserDataFeature, UserDataSource>();
  for (const [feature, count] of Object.entries(counts) as [UserDataFeature, number][]) {
    const all = items(feature, count, owner);
    sources.set(feature, {
      feature,
      async list(key, after, take) {
        calls.push({ feature, after, take });
        if (key.apiKey !== owner.apiKey || key.organizationId !== owner.organizationId || key.userId !== owner.userId) return [];
        const rest = after === undefined ? all : all.filter((row) => row.cursor.at > after.at || (row.cursor.at === after.at && row.cursor.id > after.id));
        return rest.slice(0, take);
      },
    });
  }
  vi.spyOn(server.running.services.owned, 'userDataSource').mockImplementation((feature) => sources.get(feature));
  return calls;
}

type Page = Awaited<ReturnType<Client['userData']['getAllUserData']>>;
const ids = (page: Page) => ({
  comments: page.data.comments.map((c) => c.commentId),
  reactions: page.data.reactions.map((r) => r.reactionId),
  recordings: page.data.recordings.map((r) => r.annotationId),
  notifications: page.data.notifications.map((n) => n.id),
});

describe('Get All User Data and Get All User Data (alias)', () => {
  it('gives five empty arrays and a null nextPageToken to a user without data', async () => {
    const page = await client.userData.getAllUserData({ organizationId: 'org', userId: 'nobody' });
    expect(page).toEqual({ status: 'success', message: expect.any(String), data: EMPTY, nextPageToken: null });
    expect(await client.userData.getAllUserDataV2({ organizationId: 'org', userId: 'nobody' })).toEqual(page);
  });

  it('pages every feature by 100 with one token, a feature that ran out staying empty while the others go on', async () => {
    const owner = { apiKey: ws.apiKey, organizationId: 'org', userId: 'ann' };
    const calls = fakeSources({ comments: 250, recordings: 100, notifications: 101 }, owner);
    const all = { comments: items('comments', 250, owner), recordings: items('recordings', 100, owner), notifications: items('notifications', 101, owner) };
    const idsOf = (rows: { cursor: { id: string } }[]) => rows.map((row) => row.cursor.id);

    const first = await client.userData.getAllUserData({ organizationId: 'org', userId: 'ann' });
    expect(ids(first)).toEqual({
      comments: idsOf(all.comments.slice(0, 100)),
      reactions: [],
      recordings: idsOf(all.recordings),
      notifications: idsOf(all.notifications.slice(0, 100)),
    });
    // Items as their sources give them, in the contract's shapes.
    expect(first.data.comments[0]).toEqual(all.comments[0]!.item);
    expect(first.data.notifications[0]).toEqual(all.notifications[0]!.item);
    expect(first.nextPageToken).toEqual(expect.any(String));
    // 101 asked of each registered source (one more than a page tells whether there is more); none for reactions.
    expect(calls).toEqual(
      expect.arrayContaining([
        { feature: 'comments', after: undefined, take: 101 },
        { feature: 'recordings', after: undefined, take: 101 },
        { feature: 'notifications', after: undefined, take: 101 },
      ]),
    );
    expect(calls).toHaveLength(3);

    calls.length = 0;
    const second = await client.userData.getAllUserDataV2({ organizationId: 'org', userId: 'ann', pageToken: first.nextPageToken! });
    expect(ids(second)).toEqual({
      comments: idsOf(all.comments.slice(100, 200)),
      reactions: [],
      recordings: [],
      notifications: idsOf(all.notifications.slice(100)),
    });
    // Recordings had exactly one page: the token says so, and the source is not asked again.
    expect(calls.map((call) => call.feature).sort()).toEqual(['comments', 'notifications']);
    expect(calls.find((call) => call.feature === 'comments')?.after).toEqual(all.comments[99]!.cursor);

    const third = await client.userData.getAllUserData({ organizationId: 'org', userId: 'ann', pageToken: second.nextPageToken! });
    expect(ids(third)).toEqual({ comments: idsOf(all.comments.slice(200)), reactions: [], recordings: [], notifications: [] });
    expect(third.nextPageToken).toBeNull();
  });

  it('asks each source for this application, organization and user only', async () => {
    const calls: unknown[] = [];
    vi.spyOn(server.running.services.owned, 'userDataSource').mockImplementation((feature) => ({
      feature,
      async list(key) {
        calls.push(key);
        return [];
      },
    }));
    expect((await client.userData.getAllUserData({ organizationId: 'org', userId: 'bob' })).data).toEqual(EMPTY);
    expect(calls).toHaveLength(5);
    for (const key of calls) expect(key).toEqual({ apiKeyId: expect.any(String), apiKey: ws.apiKey, organizationId: 'org', userId: 'bob' });
  });

  it('refuses a forged, altered or borrowed page token as INVALID_ARGUMENT', async () => {
    fakeSources({ comments: 150 }, { apiKey: ws.apiKey, organizationId: 'org', userId: 'ann' });
    const { nextPageToken } = await client.userData.getAllUserData({ organizationId: 'org', userId: 'ann' });
    const token = nextPageToken!;
    const [body, tag] = token.split('.');
    const tampered = Buffer.from(JSON.stringify({ comments: [0, ''], reactions: null, recordings: null, notifications: null })).toString('base64url');
    const users = await client.users.getUsers({ organizationId: 'org', pageSize: 1 });
    for (const pageToken of [
      'not-a-token',
      `${tampered}.${tag}`,
      `${body}.${tag!.slice(0, -2)}AA`,
      `${token}.extra`,
      users.pageToken ?? 'x.y',
    ]) {
      await expectCollabError(client.userData.getAllUserData({ organizationId: 'org', userId: 'ann', pageToken }), 'INVALID_ARGUMENT', /pageToken/);
    }
    // Bound to its query: another user's or another organization's next page is refused.
    await client.organizations.addOrganization({ organizationId: 'org-2' });
    await expectCollabError(client.userData.getAllUserData({ organizationId: 'org', userId: 'someone-else', pageToken: token }), 'INVALID_ARGUMENT', /pageToken/);
    await expectCollabError(client.userData.getAllUserData({ organizationId: 'org-2', userId: 'ann', pageToken: token }), 'INVALID_ARGUMENT', /pageToken/);
    // Another application cannot use it either.
    const other = server.client(await server.workspace());
    await other.organizations.addOrganization({ organizationId: 'org' });
    await expectCollabError(other.userData.getAllUserData({ organizationId: 'org', userId: 'ann', pageToken: token }), 'INVALID_ARGUMENT', /pageToken/);
  });

  it('is NOT_FOUND for an unknown organization, and INVALID_ARGUMENT without organizationId or userId', async () => {
    await expectCollabError(client.userData.getAllUserData({ organizationId: 'ghost', userId: 'ann' }), 'NOT_FOUND', /organization ghost/);
    await expectCollabError(client.userData.getAllUserData({ organizationId: 'org' } as never), 'INVALID_ARGUMENT', /data\.userId is required/);
    await expectCollabError(client.userData.getAllUserData({ userId: 'ann' } as never), 'INVALID_ARGUMENT', /data\.organizationId is required/);
  });
});

describe('the numeric code in the error envelope of Get All User Data', () => {
  for (const path of ['/v1/users/data/get', '/v2/users/data/get']) {
    it(`${path}: carries the HTTP status on domain, validation, token and credential errors`, async () => {
      const cases: [number, string, Record<string, string>, unknown][] = [
        [404, 'NOT_FOUND', appHeaders(ws), { data: { organizationId: 'ghost', userId: 'ann' } }],
        [400, 'INVALID_ARGUMENT', appHeaders(ws), { data: { organizationId: 'org' } }],
        [400, 'INVALID_ARGUMENT', appHeaders(ws), { data: { organizationId: 'org', userId: 'ann', extra: 1 } }],
        [400, 'INVALID_ARGUMENT', appHeaders(ws), '{"data": '],
        [400, 'INVALID_ARGUMENT', appHeaders(ws), { data: { organizationId: 'org', userId: 'ann', pageToken: 'forged.token' } }],
        [401, 'UNAUTHENTICATED', {}, { data: { organizationId: 'org', userId: 'ann' } }],
        [403, 'PERMISSION_DENIED', { ...appHeaders(ws), 'x-service-auth-token': 'at_wrong' }, { data: { organizationId: 'org', userId: 'ann' } }],
      ];
      for (const [http, status, headers, body] of cases) {
        const res = await server.post(path, body, headers);
        expect({ http: res.status, error: res.body.error }).toEqual({ http, error: { status, code: http, message: expect.any(String) } });
      }
    });
  }

  it('is not added to the envelope of other operations', async () => {
    const res = await server.post('/v2/users/get', { data: { organizationId: 'ghost' } }, appHeaders(ws));
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual({ status: 'NOT_FOUND', message: expect.any(String) });
    const unknown = await server.post('/v1/users/data/nothing', { data: {} }, appHeaders(ws));
    expect(unknown.body.error.code).toBeUndefined();
  });
});
