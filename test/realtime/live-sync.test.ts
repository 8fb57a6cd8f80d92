// Real WebSocket clients (the Hocuspocus provider Tiptap uses) on /crdt of the
// running server, with REST operations acting on the same live documents.
// Every wait is on an event (a document update, an acknowledgement, a refusal).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { testClock } from '../../server/lib/clock.js';
import type { Client } from '../../sdk/index.js';
import { connectEditor, until, type LiveEditor } from '../helpers/live-client.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';

const ORG = 'live-org';
const DOC = 'live-doc';
const clock = testClock(Date.now());
let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;
let editors: LiveEditor[] = [];
let n = 0;
const freshKey = () => ({ organizationId: ORG, documentId: DOC, editorId: `ed-${++n}` });

beforeAll(async () => {
  // Saves only when the last client leaves or the server stops: those are the paths under test.
  server = await startTestServer({ CRDT_SAVE_DEBOUNCE_MS: '60000', CRDT_SAVE_MAX_DEBOUNCE_MS: '600000' }, { overrides: { clock } });
  ws = await server.workspace();
  client = server.client(ws);
  await client.organizations.addOrganization({ organizationId: ORG });
  await client.organizations.addDocument({ organizationId: ORG, documentId: DOC, accessType: 'restricted' });
});
afterEach(() => {
  for (const e of editors) e.close();
  editors = [];
});
afterAll(() => server?.close());

async function tokenFor(userId: string, accessRole: 'editor' | 'viewer' = 'editor', c: Client = client, extra: Record<string, unknown> = {}) {
  const { data } = await c.permissions.generateToken({
    userId,
    userProperties: { name: `User ${userId}`, email: `${userId}@example.com` },
    permissions: { resources: [{ type: 'document', id: DOC, organizationId: ORG, accessRole, ...extra }] },
  });
  return data.token;
}

function open(key: ReturnType<typeof freshKey> | string, token: string): LiveEditor {
  const editor = connectEditor(server.url, key, token);
  editors.push(editor);
  return editor;
}

const text = (e: LiveEditor, contentKey = 'content') => e.doc.getText(contentKey).toString();

describe('editing over WebSocket with REST on the same document', () => {
  it('a REST update reaches connected clients, and a client edit is what REST reads', async () => {
    const key = freshKey();
    await client.crdt.addCrdtData({ ...key, type: 'text', data: 'Hello' });
    const ada = open(key, await tokenFor('ada'));
    await ada.ready;
    expect(text(ada)).toBe('Hello');

    await client.crdt.updateCrdtData({ ...key, type: 'text', data: 'Hello, world' });
    await until(ada.doc, () => text(ada) === 'Hello, world');

    ada.doc.getText('content').insert(0, '>> ');
    await ada.acknowledged();
    expect((await client.crdt.getCrdtData(key)).data.data).toBe('>> Hello, world');
  });

  it('a REST update and a client edit made at the same moment both survive, and everyone converges', async () => {
    const key = freshKey();
    const base = 'First sentence. Second sentence. Third sentence.';
    await client.crdt.addCrdtData({ ...key, type: 'text', data: base });
    const ada = open(key, await tokenFor('ada'));
    const bob = open(key, await tokenFor('bob'));
    await Promise.all([ada.ready, bob.ready]);

    // Ada types at the start while REST (computed from the old value) rewrites the last sentence.
    ada.doc.getText('content').insert(0, 'Ada: ');
    await client.crdt.updateCrdtData({ ...key, type: 'text', data: base.replace('Third sentence.', 'Third, rewritten.') });
    await ada.acknowledged();
    const expected = 'Ada: First sentence. Second sentence. Third, rewritten.';
    await until(ada.doc, () => text(ada) === expected);
    await until(bob.doc, () => text(bob) === expected);
    expect((await client.crdt.getCrdtData(key)).data.data).toBe(expected);
  });

  it('maps: per-key changes from REST and a client merge', async () => {
    const key = freshKey();
    await client.crdt.addCrdtData({ ...key, type: 'map', data: { title: 'Draft', status: 'open' } });
    const ada = open(key, await tokenFor('ada'));
    await ada.ready;
    ada.doc.getMap('content').set('owner', 'ada');
    await client.crdt.updateCrdtData({ ...key, type: 'map', data: { title: 'Final', status: 'open' } });
    await ada.acknowledged();
    await until(ada.doc, () => ada.doc.getMap('content').get('title') === 'Final');
    expect((await client.crdt.getCrdtData(key)).data.data).toEqual({ title: 'Final', status: 'open', owner: 'ada' });
  });
});

describe('REST read-modify-write while clients type', () => {
  it('an Update computed from a Get keeps what a client typed after the Get, even once that was saved', async () => {
    const key = freshKey();
    await client.crdt.addCrdtData({ ...key, type: 'text', data: 'Hello' });
    const ada = open(key, await tokenFor('ada'));
    await ada.ready;
    const read = (await client.crdt.getCrdtData(key)).data.data as string;
    ada.doc.getText('content').insert(0, 'Ada was here. ');
    await ada.acknowledged();
    // A restart saves the document: the stored state now has Ada's edit (and the REST base survives it).
    ada.close();
    editors = [];
    await server.restart();
    client = server.client(ws);
    await client.crdt.updateCrdtData({ ...key, type: 'text', data: `${read}, world` });
    expect((await client.crdt.getCrdtData(key)).data.data).toBe('Ada was here. Hello, world');
  });

  it('Get, then Update from what it returned, again and again while a client types: every keystroke and every change is there once', async () => {
    const key = freshKey();
    await client.crdt.addCrdtData({ ...key, type: 'text', data: '' });
    const ada = open(key, await tokenFor('ada'));
    await ada.ready;
    let typed = 0;
    const typing = setInterval(() => {
      ada.doc.getText('content').insert(0, 'a');
      typed += 1;
    }, 2);
    for (let i = 0; i < 20; i++) {
      const read = (await client.crdt.getCrdtData(key)).data.data as string;
      await client.crdt.updateCrdtData({ ...key, type: 'text', data: `${read}!` });
    }
    clearInterval(typing);
    await ada.acknowledged();
    const final = (await client.crdt.getCrdtData(key)).data.data as string;
    expect([...final].filter((c) => c === 'a').length).toBe(typed);
    // Where a '!' lands relative to 'a's typed concurrently at the same spot is the CRDT's choice; that each is there once is not.
    expect([...final].filter((c) => c === '!').length).toBe(20);
    expect(final.length).toBe(typed + 20);
    await until(ada.doc, () => ada.doc.getText('content').toString() === final);
  });

  it('a write whose transaction fails changes nothing, so retrying it applies it once', async () => {
    const key = freshKey();
    await client.crdt.addCrdtData({ ...key, type: 'text', data: 'abc' });
    const ada = open(key, await tokenFor('ada'));
    await ada.ready;
    const events = server.running.services.events;
    const publish = events.publish;
    let failures = 1;
    events.publish = (async (event: Parameters<typeof publish>[0]) => {
      if (event.type === 'crdt.update_data' && failures-- > 0) throw new Error('transient database failure');
      return publish.call(events, event);
    }) as typeof publish;
    try {
      await expect(client.crdt.updateCrdtData({ ...key, type: 'text', data: 'abc and more' })).rejects.toThrow();
      expect(text(ada)).toBe('abc');
      await client.crdt.updateCrdtData({ ...key, type: 'text', data: 'abc and more' });
    } finally {
      events.publish = publish;
    }
    await until(ada.doc, () => text(ada) === 'abc and more');
    expect((await client.crdt.getCrdtData(key)).data.data).toBe('abc and more');
  });
});

describe('who may connect', () => {
  it('a viewer reads but its edits are refused: other clients never see them', async () => {
    const key = freshKey();
    await client.crdt.addCrdtData({ ...key, type: 'text', data: 'read me' });
    const editor = open(key, await tokenFor('eve'));
    const viewer = open(key, await tokenFor('val', 'viewer'));
    await Promise.all([editor.ready, viewer.ready]);
    expect(text(viewer)).toBe('read me');

    viewer.doc.getText('content').insert(0, 'VANDALISM ');
    // Sent after the edit on the same socket: once the editor sees this awareness change, the server has handled the edit.
    const seen = new Promise<void>((resolve) => editor.provider.awareness!.on('change', () => resolve()));
    viewer.provider.setAwarenessField('marker', 1);
    await seen;
    await client.crdt.updateCrdtData({ ...key, type: 'text', data: 'read me!' });
    await until(editor.doc, () => text(editor).endsWith('!'));
    expect(text(editor)).toBe('read me!');
    expect((await client.crdt.getCrdtData(key)).data.data).toBe('read me!');
  });

  it('refuses a garbage token, an expired one, another application\'s and a user without access', async () => {
    const key = freshKey();
    await expect(open(key, 'not-a-token').ready).rejects.toThrow(/denied/);

    const other = server.client(await server.workspace());
    await other.organizations.addOrganization({ organizationId: ORG });
    await other.organizations.addDocument({ organizationId: ORG, documentId: DOC, accessType: 'restricted' });
    const foreign = await tokenFor('ada', 'editor', other);
    // Valid for the other application's document of the same name, which is another document.
    await client.crdt.addCrdtData({ ...key, type: 'text', data: 'ours' });
    const theirs = open(key, foreign);
    await theirs.ready;
    expect(text(theirs)).toBe('');

    // A user with no grant on the restricted document.
    const { data } = await client.permissions.generateToken({ userId: 'nobody', userProperties: { name: 'N', email: 'n@example.com' }, permissions: { resources: [] } });
    await expect(open(key, data.token).ready).rejects.toThrow(/denied/);

    const stale = await tokenFor('old');
    clock.advance(49 * 3600 * 1000);
    await expect(open(key, stale).ready).rejects.toThrow(/denied/);
  });

  it('refuses a document name that is not <organizationId>/<documentId>/<editorId>', async () => {
    const token = await tokenFor('ada');
    for (const name of ['just-one', `${ORG}/${DOC}`, `${ORG}/${DOC}/a/b`, `${ORG}/${DOC}/%zz`, '__proto__', `${ORG}/${DOC}/`]) {
      await expect(open(name, token).ready).rejects.toThrow(/denied|closed/);
    }
  });

  it('a user removed from the document, or whose permission lapses, loses the connection at the next access check', async () => {
    const key = freshKey();
    const removed = open(key, await tokenFor('rem'));
    const lapsing = open(key, await tokenFor('lap', 'editor', client, { expiresAt: Math.floor(clock.nowMs() / 1000) + 60 }));
    const staying = open(key, await tokenFor('sta'));
    await Promise.all([removed.ready, lapsing.ready, staying.ready]);

    await client.permissions.removePermissions({ user: { userId: 'rem' }, permissions: { resources: [{ type: 'document', id: DOC, organizationId: ORG }] } });
    clock.advance(120_000);
    await server.running.services.realtime.recheckAccess();
    await expect(removed.refused).resolves.toBeTruthy();
    await expect(lapsing.refused).resolves.toBeTruthy();

    // The one who kept access still edits.
    staying.doc.getText('content').insert(0, 'still here');
    await staying.acknowledged();
    expect(server.running.services.realtime.stats().connections).toBeGreaterThan(0);
  });
});

describe('persistence', () => {
  it('saves client edits, and a restart keeps every acknowledged edit', async () => {
    const key = freshKey();
    const ada = open(key, await tokenFor('ada'));
    await ada.ready;
    ada.doc.getMap('content').set('k', 'v');
    ada.doc.getText('notes').insert(0, 'typed live');
    await ada.acknowledged();
    // Add registers the type of what clients created; the value is then what REST sent.
    await client.crdt.addCrdtData({ ...key, type: 'text', data: 'typed live, then added', contentKey: 'notes' });
    ada.doc.getText('notes').insert(0, '1 ');
    await ada.acknowledged();
    await until(ada.doc, () => text(ada, 'notes') === '1 typed live, then added');
    ada.close();
    editors = [];

    await server.restart();
    client = server.client(ws);
    const { data } = await client.crdt.getCrdtData(key);
    expect(data.data).toBe('1 typed live, then added');
    const doc = new Y.Doc();
    Y.applyUpdate(doc, Buffer.from(data.state, 'base64'));
    expect(doc.getMap('content').get('k')).toBe('v');
  });

  it('shutdown saves documents that clients are still editing', async () => {
    const key = freshKey();
    await client.crdt.addCrdtData({ ...key, type: 'text', data: '' });
    const ada = open(key, await tokenFor('ada'));
    await ada.ready;
    ada.doc.getText('content').insert(0, 'unsaved at shutdown?');
    await ada.acknowledged();
    await server.restart();
    client = server.client(ws);
    expect((await client.crdt.getCrdtData(key)).data.data).toBe('unsaved at shutdown?');
  });
});
