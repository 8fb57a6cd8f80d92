// Two server processes on one database and one Redis (REDIS_URL): a broadcast
// or a presence change made through one reaches clients connected to the
// other, exactly once, and Get Presence on one lists users connected to the
// other. Runs when TEST_REDIS_URL is set.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../sdk/index.js';
import { connectEditor, type LiveEditor } from '../helpers/live-client.js';
import { apiPresenceOf, nextStateless, untilAwareness } from '../helpers/live-state.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';

const redisUrl = process.env.TEST_REDIS_URL;
if (!redisUrl) console.log('skipping two-process live state tests: TEST_REDIS_URL is not set');

const ORG = 'redis-org';

describe.skipIf(!redisUrl)('live state and presence across two processes (REDIS_URL)', () => {
  let one: TestServer;
  let two: TestServer;
  let ws: WorkspaceCredentials;
  let viaOne: Client;
  let viaTwo: Client;
  let editors: LiveEditor[] = [];
  let n = 0;

  beforeAll(async () => {
    one = await startTestServer({ REDIS_URL: redisUrl! });
    // The same database (and master key) as the first: another process of one deployment.
    two = await startTestServer({ REDIS_URL: redisUrl!, DATABASE_URL: one.env.DATABASE_URL, COLLAB_DATA_DIR: one.env.COLLAB_DATA_DIR });
    ws = await one.workspace();
    viaOne = one.client(ws);
    viaTwo = two.client(ws);
    await viaOne.organizations.addOrganization({ organizationId: ORG });
  });
  afterEach(() => {
    for (const e of editors) e.close();
    editors = [];
  });
  afterAll(async () => {
    await two?.close();
    await one?.close();
  });

  async function freshDocument(): Promise<string> {
    const documentId = `doc-${++n}`;
    await viaOne.organizations.addDocument({ organizationId: ORG, documentId, accessType: 'organizationPrivate' });
    return documentId;
  }

  async function open(server: TestServer, documentId: string, userId: string): Promise<LiveEditor> {
    const { data } = await viaOne.permissions.generateToken({
      userId,
      userProperties: { name: `User ${userId}`, email: `${userId}@example.com` },
      permissions: { resources: [{ type: 'organization', id: ORG, accessRole: 'editor' }] },
    });
    const editor = connectEditor(server.url, { organizationId: ORG, documentId, editorId: 'main' }, data.token);
    editors.push(editor);
    await editor.ready;
    return editor;
  }

  it('a broadcast through one process reaches clients of both, once each', async () => {
    const doc = await freshDocument();
    const onOne = await open(one, doc, 'ada');
    const onTwo = await open(two, doc, 'bob');
    await viaTwo.liveState.broadcastEvent({ organizationId: ORG, documentId: doc, liveStateDataId: 'x', data: 1 });
    expect(JSON.parse(await nextStateless(onOne))).toMatchObject({ liveStateDataId: 'x', data: 1 });
    expect(JSON.parse(await nextStateless(onTwo))).toMatchObject({ liveStateDataId: 'x', data: 1 });
    // A second broadcast: had the first come twice, the duplicate would be the next message.
    await viaOne.liveState.broadcastEvent({ organizationId: ORG, documentId: doc, liveStateDataId: 'x', data: 2 });
    expect(JSON.parse(await nextStateless(onOne))).toMatchObject({ data: 2 });
    expect(JSON.parse(await nextStateless(onTwo))).toMatchObject({ data: 2 });
  });

  it('presence set through one process is seen by clients of both, and leaves both', async () => {
    const doc = await freshDocument();
    const onOne = await open(one, doc, 'ada');
    const onTwo = await open(two, doc, 'bob');
    await viaTwo.presence.addPresence({ organizationId: ORG, documentId: doc, user: { userId: 'bot' }, state: { status: 'on' } });
    await untilAwareness(onOne, () => apiPresenceOf(onOne, 'bot').length === 1);
    await untilAwareness(onTwo, () => apiPresenceOf(onTwo, 'bot').length === 1);
    await viaOne.presence.updatePresence({ organizationId: ORG, documentId: doc, userId: 'bot', state: { status: 'off' } });
    for (const editor of [onOne, onTwo]) await untilAwareness(editor, () => apiPresenceOf(editor, 'bot').some((state) => state.status === 'off'));
    expect([apiPresenceOf(onOne, 'bot').length, apiPresenceOf(onTwo, 'bot').length]).toEqual([1, 1]);
    await viaOne.presence.deletePresence({ organizationId: ORG, documentId: doc, userIds: ['bot'] });
    for (const editor of [onOne, onTwo]) await untilAwareness(editor, () => apiPresenceOf(editor, 'bot').length === 0);
  });

  it('Get Presence on one process lists the users connected to the other', async () => {
    const doc = await freshDocument();
    await open(one, doc, 'ada');
    await open(two, doc, 'bob');
    await Promise.all([one.running.services.connectedUsers.settled(), two.running.services.connectedUsers.settled()]);
    for (const client of [viaOne, viaTwo]) {
      const entries = (await client.presence.getPresence({ organizationId: ORG, documentId: doc })).data;
      expect(entries.map((e) => [e.userId, e.source, e.user.name])).toEqual([
        ['ada', 'connection', 'User ada'],
        ['bob', 'connection', 'User bob'],
      ]);
    }
  });
});
