// What one WebSocket client can make the server hold or do: raw sockets
// speaking the Hocuspocus protocol, and the permission-provider mode.
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { testClock } from '../../server/lib/clock.js';
import type { Client } from '../../sdk/index.js';
import { connectEditor, liveUrl } from '../helpers/live-client.js';
import { closeReceivers, startReceiver } from '../helpers/receiver.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';

const clock = testClock(Date.now());
let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;

beforeAll(async () => {
  server = await startTestServer({ BODY_LIMIT_BYTES: String(64 * 1024), REALTIME_AUTH_TIMEOUT_MS: '300' }, { overrides: { clock } });
  ws = await server.workspace();
  client = server.client(ws);
  await client.organizations.addOrganization({ organizationId: 'o' });
  await client.organizations.addDocument({ organizationId: 'o', documentId: 'd', accessType: 'restricted' });
});
afterAll(() => server?.close());

function message(name: string, type: number, write: (e: encoding.Encoder) => void) {
  const e = encoding.createEncoder();
  encoding.writeVarString(e, name);
  encoding.writeVarUint(e, type);
  write(e);
  return encoding.toUint8Array(e);
}
const auth = (name: string, token: string) =>
  message(name, 2, (e) => {
    encoding.writeVarUint(e, 0);
    encoding.writeVarString(e, token);
  });
const junk = (name: string, bytes: number) =>
  message(name, 0, (e) => {
    encoding.writeVarUint(e, 2);
    encoding.writeVarUint8Array(e, new Uint8Array(bytes).fill(7));
  });

/** A raw socket and a way to wait for the server's next authentication answer or close. */
async function rawSocket() {
  const socket = new WebSocket(liveUrl(server.url));
  const answers: string[] = [];
  const waiters: ((answer: string) => void)[] = [];
  socket.on('message', (m: Buffer) => {
    const d = decoding.createDecoder(new Uint8Array(m));
    decoding.readVarString(d);
    const type = decoding.readVarUint(d);
    const answer = type === 2 ? (decoding.readVarUint(d) === 2 ? 'authenticated' : 'denied') : type === 7 ? 'closed' : '';
    if (answer === '') return;
    answers.push(answer);
    waiters.shift()?.(answer);
  });
  const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
  // A socket closed before its answer came answers every waiter with its close code, so a test fails on the
  // code it got instead of hanging until its timeout.
  void closed.then((code) => waiters.splice(0).forEach((resolve) => resolve(`socket closed (${code})`)));
  await new Promise((resolve) => socket.once('open', resolve));
  return { socket, closed, next: () => new Promise<string>((resolve) => waiters.push(resolve)) };
}

async function tokenFor(userId: string, resources: unknown[] = [{ type: 'document', id: 'd', organizationId: 'o' }]) {
  return (await client.permissions.generateToken({ userId, userProperties: { name: userId, email: `${userId}@example.com` }, permissions: { resources } as never })).data.token;
}

describe('a hostile or careless socket', () => {
  it('an expired token cannot authenticate again on its open socket', async () => {
    const token = await tokenFor('ada');
    const raw = await rawSocket();
    const first = raw.next();
    raw.socket.send(auth('o/d/e', token));
    expect(await first).toBe('authenticated');
    clock.advance(49 * 3600 * 1000);
    const closing = raw.next();
    await server.running.services.realtime.recheckAccess();
    expect(await closing).toBe('closed');
    const again = raw.next();
    raw.socket.send(auth('o/d/e', token));
    expect(await again).toBe('denied');
    raw.socket.close();
  });

  it('data for a document that is not authenticated is bounded: past the limit the socket is closed', async () => {
    // Tokens are made before the socket opens: its REALTIME_AUTH_TIMEOUT_MS runs from the open.
    const token = await tokenFor('mallory', []);
    const raw = await rawSocket();
    const denied = raw.next();
    raw.socket.send(auth('o/d/e', token));
    expect(await denied).toBe('denied');
    for (let i = 0; i < 4; i++) raw.socket.send(junk('o/d/e', 30 * 1024));
    expect(await raw.closed).toBe(1008);
  });

  it('a socket that names too many documents is closed', async () => {
    const token = await tokenFor('ada');
    const raw = await rawSocket();
    for (let i = 0; i <= 100; i++) raw.socket.send(auth(`o/d/e${i}`, token));
    expect(await raw.closed).toBe(1008);
  });

  it('a socket left without an authenticated document is closed after REALTIME_AUTH_TIMEOUT_MS', async () => {
    const token = await tokenFor('mallory', []);
    const raw = await rawSocket();
    const denied = raw.next();
    raw.socket.send(auth('o/d/e', token));
    expect(await denied).toBe('denied');
    expect(await raw.closed).toBe(4401);
    const silent = await rawSocket();
    expect(await silent.closed).toBe(4401);
  });
});

describe('with a permission provider', () => {
  let providerServer: TestServer;
  afterAll(async () => {
    await providerServer?.close();
    await closeReceivers();
  });

  it('a document the provider grants but nothing created here is created on connect, so edits are saved', async () => {
    const provider = await startReceiver((req, res) => {
      const body = JSON.parse(req.body) as { data: { requests: { userId: string; resource: { id: string; type: string } }[] } };
      const data = body.data.requests.map((r) => ({ userId: r.userId, resourceId: r.resource.id, type: r.resource.type, hasAccess: true, accessRole: 'editor' }));
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ data }));
    }, '/permissions');
    providerServer = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    const c = providerServer.client(await providerServer.workspace());
    await c.workspace.updatePermissionProviderConfig({ usePermissionProvider: true, permissionProviderConfig: { permissionProviderUrl: provider.url } });
    const { data } = await c.permissions.generateToken({
      userId: 'ada',
      userProperties: { name: 'Ada', email: 'ada@example.com' },
      permissions: { resources: [{ type: 'document', id: 'doc-p', organizationId: 'org-p' }] },
    });
    const key = { organizationId: 'org-p', documentId: 'doc-p', editorId: 'e1' };
    const ada = connectEditor(providerServer.url, key, data.token);
    await ada.ready;
    ada.doc.getText('content').insert(0, 'acknowledged edit');
    await ada.acknowledged();
    ada.close();
    await providerServer.restart();
    const rows = await providerServer.running.database.db.crdtDocument.findMany({ where: { documentId: 'doc-p' } });
    expect(rows).toHaveLength(1);
  });
});
