// Live state and presence as connected clients see them: real Hocuspocus
// providers on /crdt, REST operations on the same server. Every wait is on an
// event (a stateless message, an awareness change), never on time.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testClock } from '../../server/lib/clock.js';
import type { Client } from '../../sdk/index.js';
import { connectEditor, type LiveEditor } from '../helpers/live-client.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';
import { apiPresenceOf, nextStateless, untilAwareness } from '../helpers/live-state.js';

const ORG = 'live-org';
const clock = testClock(Date.now());
let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;
let editors: LiveEditor[] = [];
let n = 0;

/** A fresh document per test, so no test sees another's stored live state or presence. */
async function freshDocument(): Promise<string> {
  const documentId = `doc-${++n}`;
  await client.organizations.addDocument({ organizationId: ORG, documentId, accessType: 'organizationPrivate' });
  return documentId;
}

beforeAll(async () => {
  server = await startTestServer({}, { overrides: { clock } });
  ws = await server.workspace();
  client = server.client(ws);
  await client.organizations.addOrganization({ organizationId: ORG });
});
afterEach(() => {
  for (const e of editors) e.close();
  editors = [];
});
afterAll(() => server?.close());

async function tokenFor(userId: string): Promise<string> {
  const { data } = await client.permissions.generateToken({
    userId,
    userProperties: { name: `User ${userId}`, email: `${userId}@example.com` },
    permissions: { resources: [{ type: 'organization', id: ORG, accessRole: 'editor' }] },
  });
  return data.token;
}

async function open(documentId: string, userId: string, editorId = 'main'): Promise<LiveEditor> {
  const editor = connectEditor(server.url, { organizationId: ORG, documentId, editorId }, await tokenFor(userId));
  editors.push(editor);
  await editor.ready;
  return editor;
}

describe('Broadcast Event over WebSocket', () => {
  it('reaches every connection of every editor of the document as a stateless message, and no other document\'s', async () => {
    const doc = await freshDocument();
    const other = await freshDocument();
    const ada = await open(doc, 'ada', 'text');
    const bob = await open(doc, 'bob', 'canvas');
    const cy = await open(other, 'cy');

    const { data: entry } = await client.liveState.broadcastEvent({ organizationId: ORG, documentId: doc, liveStateDataId: 'slide', data: { page: 4 } });
    const expected = { type: 'livestate', liveStateDataId: 'slide', data: { page: 4 }, lastUpdated: entry.lastUpdated };
    expect(JSON.parse(await nextStateless(ada))).toEqual(expected);
    expect(JSON.parse(await nextStateless(bob))).toEqual(expected);

    // Sent after the first on the same server: had cy been sent the first, it would have arrived before this one.
    await client.liveState.broadcastEvent({ organizationId: ORG, documentId: other, liveStateDataId: 'slide', data: 'theirs' });
    expect(JSON.parse(await nextStateless(cy))).toMatchObject({ data: 'theirs' });
    expect(cy.stateless).toHaveLength(1);
  });

  it('a merge delivers the merged value', async () => {
    const doc = await freshDocument();
    const ada = await open(doc, 'ada');
    await client.liveState.broadcastEvent({ organizationId: ORG, documentId: doc, liveStateDataId: 'form', data: { a: 1 } });
    await nextStateless(ada);
    await client.liveState.broadcastEvent({ organizationId: ORG, documentId: doc, liveStateDataId: 'form', data: { b: 2 }, merge: true });
    expect(JSON.parse(await nextStateless(ada))).toMatchObject({ data: { a: 1, b: 2 } });
  });

  it('a client that connects later receives every stored value of its document on connect', async () => {
    const doc = await freshDocument();
    await client.liveState.broadcastEvent({ organizationId: ORG, documentId: doc, liveStateDataId: 'a', data: 'first' });
    await client.liveState.broadcastEvent({ organizationId: ORG, documentId: doc, liveStateDataId: 'a', data: 'latest' });
    await client.liveState.broadcastEvent({ organizationId: ORG, documentId: doc, liveStateDataId: 'b', data: null });
    const late = await open(doc, 'late');
    const received = [JSON.parse(await nextStateless(late)), JSON.parse(await nextStateless(late))];
    expect(received.map((m: { liveStateDataId: string; data: unknown }) => [m.liveStateDataId, m.data])).toEqual([
      ['a', 'latest'],
      ['b', null],
    ]);
  });
});

describe('API presence as awareness states', () => {
  it('a connected client sees an entry appear, change and leave', async () => {
    const doc = await freshDocument();
    const ada = await open(doc, 'ada');
    const key = { organizationId: ORG, documentId: doc };

    await client.presence.addPresence({ ...key, user: { userId: 'bot', name: 'Review bot' }, state: { status: 'reviewing' } });
    await untilAwareness(ada, () => apiPresenceOf(ada, 'bot').length === 1);
    expect(apiPresenceOf(ada, 'bot')).toEqual([{ user: { userId: 'bot', name: 'Review bot' }, status: 'reviewing', source: 'api' }]);

    await client.presence.updatePresence({ ...key, userId: 'bot', state: { status: 'done' } });
    await untilAwareness(ada, () => apiPresenceOf(ada, 'bot').some((state) => state.status === 'done'));
    // The state it replaced is gone in the same change.
    expect(apiPresenceOf(ada, 'bot')).toHaveLength(1);

    await client.presence.deletePresence({ ...key, userIds: ['bot'] });
    await untilAwareness(ada, () => apiPresenceOf(ada, 'bot').length === 0);
  });

  it('concurrent updates of one entry leave clients exactly one state, the stored one', async () => {
    const doc = await freshDocument();
    const key = { organizationId: ORG, documentId: doc };
    const ada = await open(doc, 'ada');
    await client.presence.addPresence({ ...key, user: { userId: 'busy' } });
    await Promise.all(Array.from({ length: 8 }, (_, i) => client.presence.updatePresence({ ...key, userId: 'busy', state: { step: i } })));
    const stored = (await client.presence.getPresence(key)).data.find((e) => e.userId === 'busy')!.state;
    await untilAwareness(ada, () => apiPresenceOf(ada, 'busy').some((state) => state.step === stored.step));
    expect(apiPresenceOf(ada, 'busy')).toHaveLength(1);
  });

  it('entries added before anyone connected are there when the document loads', async () => {
    const doc = await freshDocument();
    await client.presence.addPresence({ organizationId: ORG, documentId: doc, user: { userId: 'early' }, state: { since: 1 } });
    const ada = await open(doc, 'ada');
    await untilAwareness(ada, () => apiPresenceOf(ada, 'early').length === 1);
    expect(apiPresenceOf(ada, 'early')[0]).toMatchObject({ since: 1, source: 'api' });
  });

  it('every editor of the document shows the entries', async () => {
    const doc = await freshDocument();
    const text = await open(doc, 'ada', 'text');
    const canvas = await open(doc, 'bob', 'canvas');
    await client.presence.addPresence({ organizationId: ORG, documentId: doc, user: { userId: 'bot' } });
    await untilAwareness(text, () => apiPresenceOf(text, 'bot').length === 1);
    await untilAwareness(canvas, () => apiPresenceOf(canvas, 'bot').length === 1);
  });

  it('the periodic renewal applies what the database holds, so a lost fan-out message is caught up', async () => {
    const doc = await freshDocument();
    const ada = await open(doc, 'ada');
    const apiKeyId = (await server.cli<{ apiKey: { id: string } }>('workspace', 'get', '--api-key', ws.apiKey)).apiKey.id;
    // Written behind the fan-out's back, as if its message had been lost.
    await server.running.database.db.presence.create({
      data: { apiKeyId, organizationId: ORG, documentId: doc, userId: 'quiet', user: '{"userId":"quiet"}', state: '{}', clientId: 12345, updatedAt: 1n },
    });
    await server.running.services.presenceAwareness.renew();
    await untilAwareness(ada, () => apiPresenceOf(ada, 'quiet').length === 1);
  });

  it('erasing a user removes their entries from connected clients', async () => {
    const doc = await freshDocument();
    const ada = await open(doc, 'ada');
    await client.presence.addPresence({ organizationId: ORG, documentId: doc, user: { userId: 'gone' } });
    await untilAwareness(ada, () => apiPresenceOf(ada, 'gone').length === 1);
    await client.userData.deleteAllUserData({ userId: 'gone' });
    await server.running.services.jobs.runDue();
    await untilAwareness(ada, () => apiPresenceOf(ada, 'gone').length === 0);
  });
});

describe('Get Presence and connected users', () => {
  it('lists users connected to any editor, with their awareness state; an API entry of the same user wins', async () => {
    const doc = await freshDocument();
    const key = { organizationId: ORG, documentId: doc };
    const ada = await open(doc, 'ada', 'text');
    const bob = await open(doc, 'bob', 'canvas');
    const observer = await open(doc, 'obs', 'text');
    ada.provider.setAwarenessField('cursor', { index: 5 });
    // Once another client has it, the server has applied it.
    await untilAwareness(observer, () => [...observer.provider.awareness!.getStates().values()].some((s) => (s as { cursor?: unknown }).cursor !== undefined));

    const entries = (await client.presence.getPresence(key)).data;
    expect(entries.map((e) => [e.userId, e.source])).toEqual([
      ['ada', 'connection'],
      ['bob', 'connection'],
      ['obs', 'connection'],
    ]);
    expect(entries[0]).toEqual({ userId: 'ada', user: { userId: 'ada', name: 'User ada', email: 'ada@example.com' }, state: { cursor: { index: 5 } }, source: 'connection', lastUpdated: clock.nowMs() });
    expect(entries[1]!.state).toEqual({});

    await client.presence.addPresence({ ...key, user: { userId: 'bob', name: 'Bob (API)' }, state: { status: 'away' } });
    const after = (await client.presence.getPresence(key)).data;
    expect(after.find((e) => e.userId === 'bob')).toMatchObject({ source: 'api', state: { status: 'away' }, user: { name: 'Bob (API)' } });
    expect(after).toHaveLength(3);
    bob.close();
  });
});
