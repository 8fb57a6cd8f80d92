// Two server processes on one database and one Redis (REDIS_URL): clients and
// REST operations on either process act on the same live documents. Both
// servers run in this test process, each with its own Hocuspocus instances,
// Redis connections and process identifier, as two deployments would.
// Every wait is on an event (a document update, an acknowledgement, a message).
//
// The two servers need PostgreSQL (TEST_DATABASE_URL): on one SQLite file, two
// clients in one process block each other when their write transactions
// overlap (the waiting one's busy timeout stops the one thread, so the other
// never commits, and the write fails with SQLITE_BUSY after 5 s). Separate
// processes on one SQLite file would not, but scale-out runs on PostgreSQL.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from '../../sdk/index.js';
import { loadConfig } from '../../server/config.js';
import { redisFanout, type Fanout } from '../../server/platform/fanout.js';
import { startServer, type RunningServer } from '../../server/server.js';
import { expectCollabError } from '../helpers/credentials.js';
import { usingPostgres } from '../helpers/database.js';
import { connectEditor, until, type LiveEditor } from '../helpers/live-client.js';
import { captureLogger } from '../helpers/log-capture.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';

const redisUrl = process.env.TEST_REDIS_URL;
if (!redisUrl) console.log('skipping scale-out tests: TEST_REDIS_URL is not set');
else if (!usingPostgres) console.log('skipping the two-server scale-out tests: they need TEST_DATABASE_URL (PostgreSQL) as well as TEST_REDIS_URL');

const ORG = 'scale-org';
const DOC = 'scale-doc';

describe.skipIf(!redisUrl || !usingPostgres)('two server processes sharing collaborative documents through Redis (REDIS_URL)', () => {
  let a: TestServer;
  let b: RunningServer;
  let ws: WorkspaceCredentials;
  let apiKeyId: string;
  let onA: Client;
  let onB: Client;
  let editors: LiveEditor[] = [];
  let n = 0;
  const freshKey = () => ({ organizationId: ORG, documentId: DOC, editorId: `ed-${++n}` });

  beforeAll(async () => {
    // Saves only when the last client leaves, a REST write commits, or a server stops: what one process
    // typed reaches the other through Redis, never through a save it happened to make first.
    a = await startTestServer({ REDIS_URL: redisUrl, CRDT_SAVE_DEBOUNCE_MS: '60000', CRDT_SAVE_MAX_DEBOUNCE_MS: '600000' });
    // The second process: same database, same data directory (master key), same Redis.
    b = await startServer(loadConfig(a.env), { logger: captureLogger() });
    ws = await a.workspace();
    apiKeyId = (await a.cli<{ apiKey: { id: string } }>('workspace', 'get', '--api-key', ws.apiKey)).apiKey.id;
    onA = a.client(ws);
    onB = createClient({ baseUrl: b.url, apiKey: ws.apiKey, authToken: ws.authToken });
    await onA.organizations.addOrganization({ organizationId: ORG });
    await onA.organizations.addDocument({ organizationId: ORG, documentId: DOC, accessType: 'restricted' });
  });
  afterEach(() => {
    for (const e of editors) e.close();
    editors = [];
  });
  afterAll(async () => {
    for (const e of editors) e.close();
    await b?.close();
    await a?.close();
  });

  async function tokenFor(userId: string) {
    const { data } = await onA.permissions.generateToken({
      userId,
      userProperties: { name: `User ${userId}`, email: `${userId}@example.com` },
      permissions: { resources: [{ type: 'document', id: DOC, organizationId: ORG, accessRole: 'editor' }] },
    });
    return data.token;
  }

  function open(url: string, key: ReturnType<typeof freshKey>, token: string): LiveEditor {
    const editor = connectEditor(url, key, token);
    editors.push(editor);
    return editor;
  }

  const text = (e: LiveEditor) => e.doc.getText('content').toString();

  it('an edit a client makes on one process reaches a client on the other, both ways', async () => {
    const key = freshKey();
    await onA.crdt.addCrdtData({ ...key, type: 'text', data: 'Hello' });
    const ada = open(a.url, key, await tokenFor('ada'));
    const bob = open(b.url, key, await tokenFor('bob'));
    await Promise.all([ada.ready, bob.ready]);
    expect([text(ada), text(bob)]).toEqual(['Hello', 'Hello']);

    bob.doc.getText('content').insert(5, ', world');
    await until(ada.doc, () => text(ada) === 'Hello, world');
    ada.doc.getText('content').insert(0, '>> ');
    await until(bob.doc, () => text(bob) === '>> Hello, world');
  });

  it('a REST update sent to one process reaches a client connected to the other', async () => {
    const toA = freshKey();
    const toB = freshKey();
    await onA.crdt.addCrdtData({ ...toA, type: 'text', data: 'one' });
    await onA.crdt.addCrdtData({ ...toB, type: 'map', data: { status: 'open' } });
    const onlyOnA = open(a.url, toB, await tokenFor('ada'));
    const onlyOnB = open(b.url, toA, await tokenFor('bob'));
    await Promise.all([onlyOnA.ready, onlyOnB.ready]);

    // Each REST write goes to the process where no client has the document open.
    await onB.crdt.updateCrdtData({ ...toB, type: 'map', data: { status: 'done' } });
    await until(onlyOnA.doc, () => onlyOnA.doc.getMap('content').get('status') === 'done');
    await onA.crdt.updateCrdtData({ ...toA, type: 'text', data: 'one, two' });
    await until(onlyOnB.doc, () => onlyOnB.doc.getText('content').toString() === 'one, two');
  });

  it('a REST Get on one process returns what a client on the other typed, once acknowledged and not yet saved', async () => {
    const key = freshKey();
    await onA.crdt.addCrdtData({ ...key, type: 'text', data: 'stored' });
    const ada = open(a.url, key, await tokenFor('ada'));
    await ada.ready;

    // B has not loaded the document: it loads the stored state, which lacks the typed text.
    ada.doc.getText('content').insert(0, 'typed, ');
    await ada.acknowledged();
    expect(b.services.realtime.documentsOf(apiKeyId, ORG, DOC).map((d) => d.key.editorId)).not.toContain(key.editorId);
    expect((await onB.crdt.getCrdtData(key)).data.data).toBe('typed, stored');

    // B has it loaded now (REST keeps it open a while): an edit acknowledged on A is in B's next read.
    ada.doc.getText('content').insert(0, 'more ');
    await ada.acknowledged();
    expect((await onB.crdt.getCrdtData(key)).data.data).toBe('more typed, stored');
  });

  it('a REST Delete on one process clears what a client on the other typed and has not saved', async () => {
    const key = freshKey();
    await onA.crdt.addCrdtData({ ...key, type: 'text', data: 'stored' });
    const ada = open(a.url, key, await tokenFor('ada'));
    await ada.ready;
    ada.doc.getText('content').insert(0, 'typed, ');
    await ada.acknowledged();

    await onB.crdt.deleteCrdtData(key);
    await until(ada.doc, () => text(ada) === '');
    await expectCollabError(onA.crdt.getCrdtData(key), 'NOT_FOUND');
  });
});

describe.skipIf(!redisUrl)('the real-time fan-out through Redis', () => {
  const log = captureLogger();
  let one: Fanout;
  let two: Fanout;
  beforeAll(async () => {
    one = await redisFanout(redisUrl!, log);
    two = await redisFanout(redisUrl!, log);
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
  });

  it('a message published by one process reaches every process once, the publisher included', async () => {
    // The channel is shared by every process on this Redis (other test runs too): the nonce picks out ours.
    const nonce = `${process.pid}-${Date.now()}-${Math.random()}`;
    const received = (fanout: Fanout) => {
      const seen: unknown[] = [];
      const arrived = new Promise<void>((resolve) =>
        fanout.subscribe((message) => {
          if ((message as { nonce?: string }).nonce !== nonce) return;
          seen.push(message);
          resolve();
        }),
      );
      return { seen, arrived };
    };
    const atOne = received(one);
    const atTwo = received(two);
    await one.publish({ kind: 'test', nonce, payload: { text: 'hi' } });
    await Promise.all([atOne.arrived, atTwo.arrived]);
    // A second message through the same connections: once it arrived, a duplicate of the first would have too.
    const after = `${nonce}-after`;
    const done = Promise.all([one, two].map((f) => new Promise<void>((resolve) => f.subscribe((m) => (m as { nonce?: string }).nonce === after && resolve()))));
    await two.publish({ kind: 'test', nonce: after });
    await done;
    expect(atOne.seen).toEqual([{ kind: 'test', nonce, payload: { text: 'hi' } }]);
    expect(atTwo.seen).toEqual([{ kind: 'test', nonce, payload: { text: 'hi' } }]);
  });
});
