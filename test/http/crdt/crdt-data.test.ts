// Add, Update, Get and Delete CRDT Data over REST: the specification's states
// (ALREADY_EXISTS, NOT_FOUND, data matching type), the stored Yjs state, the
// crdt.update_data event, the owned-data registry, and tenancy.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { testClock } from '../../../server/lib/clock.js';
import { eventFromRow } from '../../../server/platform/events.js';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

const ORG = 'crdt-org';
const DOC = 'doc-1';
const clock = testClock(Date.UTC(2026, 5, 1));
let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;
let appId: string;
let editor = 0;
/** A fresh editor ID per test: the data of one test never meets another's. */
let key: { organizationId: string; documentId: string; editorId: string };
/** The statements sent while `recording` (verbs only). */
let statements: string[] = [];
let recording = false;

beforeAll(async () => {
  server = await startTestServer({}, { overrides: { clock, onQuery: (sql) => recording && statements.push(sql.trim().split(/\s+/)[0]!.toUpperCase()) } });
  ws = await server.workspace();
  client = server.client(ws);
  appId = (await server.cli<{ apiKey: { id: string } }>('workspace', 'get', '--api-key', ws.apiKey)).apiKey.id;
  await client.organizations.addOrganization({ organizationId: ORG });
  for (const documentId of [DOC, 'doc-2', 'doc-3']) await client.organizations.addDocument({ organizationId: ORG, documentId });
});
afterAll(() => server?.close());
beforeEach(() => {
  key = { organizationId: ORG, documentId: DOC, editorId: `editor-${++editor}` };
  clock.advance(1000);
});

const stateOf = (base64: string) => {
  const doc = new Y.Doc();
  Y.applyUpdate(doc, Buffer.from(base64, 'base64'));
  return doc;
};

describe('Add CRDT Data, read back with Get CRDT Data', () => {
  it('a Get of data the REST side already read or wrote opens no transaction and writes nothing; one after a change does', async () => {
    await client.crdt.addCrdtData({ ...key, type: 'text', data: 'Hello' });
    const record = async <T>(work: () => Promise<T>) => {
      statements = [];
      recording = true;
      try {
        return await work();
      } finally {
        recording = false;
      }
    };
    const first = (await record(() => client.crdt.getCrdtData(key))).data;
    // Only reads: no BEGIN or COMMIT of a transaction (the ORM logs its COMMIT), no write.
    expect(statements.filter((s) => s !== 'SELECT')).toEqual([]);
    const again = (await record(() => client.crdt.getCrdtData(key))).data;
    expect(again).toEqual(first);
    expect(statements.filter((s) => s !== 'SELECT')).toEqual([]);

    // Another process's save (the row changed under the live document's feet): the read takes the locked path again.
    const prisma = server.running.database.db;
    await prisma.crdtDocument.updateMany({ where: { editorId: key.editorId }, data: { restBase: null } });
    await record(() => client.crdt.getCrdtData(key));
    expect(statements.some((s) => s === 'UPDATE' || s === 'INSERT')).toBe(true);
    await record(() => client.crdt.getCrdtData(key));
    expect(statements.filter((s) => s !== 'SELECT')).toEqual([]);
  });

  it('stores each type under its content key; success carries status and message only', async () => {
    const res = await server.post('/v2/crdt/add', { data: { ...key, type: 'text', data: 'Hello' } }, { 'x-service-api-key': ws.apiKey, 'x-service-auth-token': ws.authToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: { status: 'success', message: 'CRDT data added.' } });
    const { data } = await client.crdt.getCrdtData(key);
    expect(data).toMatchObject({ data: 'Hello', type: 'text', contentKey: 'content', lastUpdated: clock.nowMs() });
    expect(stateOf(data.state).getText('content').toString()).toBe('Hello');

    const cases = [
      { type: 'map', data: { title: 'T', tags: ['a'], nested: { n: 1, ok: null } }, contentKey: 'meta' },
      { type: 'array', data: [1, 'two', { three: 3 }, [4]] },
      { type: 'xml', data: '<paragraph>Hi <bold>there</bold></paragraph>', contentKey: 'default' },
    ] as const;
    for (const c of cases) {
      const k = { ...key, editorId: `${key.editorId}-${c.type}` };
      await client.crdt.addCrdtData({ ...k, ...c } as never);
      const got = (await client.crdt.getCrdtData(k)).data;
      expect(got).toMatchObject({ data: c.data, type: c.type, contentKey: 'contentKey' in c ? c.contentKey : 'content' });
    }
  });

  it('is ALREADY_EXISTS the second time, and leaves the data as it was', async () => {
    await client.crdt.addCrdtData({ ...key, type: 'text', data: 'first' });
    await expectCollabError(client.crdt.addCrdtData({ ...key, type: 'text', data: 'second' }), 'ALREADY_EXISTS');
    expect((await client.crdt.getCrdtData(key)).data.data).toBe('first');
  });

  it('refuses data that does not match type, naming the field', async () => {
    for (const [type, data] of [
      ['text', { a: 1 }],
      ['xml', ['x']],
      ['map', 'text'],
      ['map', [1]],
      ['array', { a: 1 }],
      ['array', 'text'],
    ] as const) {
      const error = await expectCollabError(client.crdt.addCrdtData({ ...key, type, data } as never), 'INVALID_ARGUMENT');
      expect(error.message).toMatch(/data/);
    }
    await expectCollabError(client.crdt.addCrdtData({ ...key, type: 'xml', data: '<p>unclosed' }), 'INVALID_ARGUMENT');
    await expectCollabError(client.crdt.addCrdtData({ ...key, type: 'text' } as never), 'INVALID_ARGUMENT');
    await expectCollabError(client.crdt.getCrdtData(key), 'NOT_FOUND');
  });

  it('is NOT_FOUND for an unknown organization or document', async () => {
    await expectCollabError(client.crdt.addCrdtData({ ...key, organizationId: 'nope', type: 'text', data: 'x' }), 'NOT_FOUND', /organization/);
    await expectCollabError(client.crdt.addCrdtData({ ...key, documentId: 'nope', type: 'text', data: 'x' }), 'NOT_FOUND', /document/);
  });

  it('keeps map keys such as constructor and toString as data; __proto__ keys are refused (see hostile-bodies)', async () => {
    const data = { constructor: 'c', toString: 2, hasOwnProperty: { n: 1 } };
    await client.crdt.addCrdtData({ ...key, type: 'map', data });
    expect((await client.crdt.getCrdtData(key)).data.data).toEqual(data);
    const withProto = JSON.parse('{"a": {"__proto__": {"polluted": true}}}') as Record<string, unknown>;
    await expectCollabError(client.crdt.addCrdtData({ ...key, editorId: `${key.editorId}-n`, type: 'map', data: withProto }), 'INVALID_ARGUMENT', /__proto__/);
  });

  it('publishes crdt.update_data in the same transaction', async () => {
    await client.crdt.addCrdtData({ ...key, type: 'text', data: 'evented' });
    const rows = await server.running.database.db.domainEvent.findMany({ where: { apiKeyId: appId, type: 'crdt.update_data' } });
    const event = rows.map(eventFromRow).find((e) => (e.payload as { editorId: string }).editorId === key.editorId);
    expect(event).toMatchObject({
      organizationId: ORG,
      documentId: DOC,
      actor: null,
      payload: { editorId: key.editorId, type: 'text', contentKey: 'content', lastUpdated: clock.nowMs(), updatedBy: null },
    });
  });
});

describe('Update CRDT Data', () => {
  it('replaces the value of each type', async () => {
    const cases = [
      { type: 'text', before: 'The quick brown fox.', after: 'The quick red fox jumps.' },
      { type: 'map', before: { a: 1, b: { c: 2 }, gone: true }, after: { a: 1, b: { c: 3 }, added: 'x' } },
      { type: 'array', before: [1, 2, 3, 4], after: [1, 'two', 4, 5] },
      { type: 'xml', before: '<p>one</p><p>two</p>', after: '<p>one</p><p>2</p><h1 level="1">three</h1>' },
    ] as const;
    for (const c of cases) {
      const k = { ...key, editorId: `${key.editorId}-${c.type}` };
      await client.crdt.addCrdtData({ ...k, type: c.type, data: c.before } as never);
      const res = await server.post('/v2/crdt/update', { data: { ...k, type: c.type, data: c.after } }, { 'x-service-api-key': ws.apiKey, 'x-service-auth-token': ws.authToken });
      expect(res.body).toEqual({ result: { status: 'success', message: 'CRDT data updated.' } });
      expect((await client.crdt.getCrdtData(k)).data.data).toEqual(c.after);
    }
  });

  it('is NOT_FOUND when the editor has no data', async () => {
    await expectCollabError(client.crdt.updateCrdtData({ ...key, type: 'text', data: 'x' }), 'NOT_FOUND', /no CRDT data/);
  });

  it('keeps the type and content key the data was added with', async () => {
    await client.crdt.addCrdtData({ ...key, type: 'text', data: 'x', contentKey: 'default' });
    await expectCollabError(client.crdt.updateCrdtData({ ...key, type: 'text', data: 'y' }), 'INVALID_ARGUMENT', /contentKey "default"/);
    await expectCollabError(client.crdt.updateCrdtData({ ...key, type: 'array', data: [], contentKey: 'default' }), 'INVALID_ARGUMENT', /text/);
    await client.crdt.updateCrdtData({ ...key, type: 'text', data: 'y', contentKey: 'default' });
    expect((await client.crdt.getCrdtData(key)).data.data).toBe('y');
  });

  it('applies only the difference: the stored update grows by about the change, not the document', async () => {
    const sentence = (i: number) => `Sentence number ${i} of a long document that people edit together. `;
    const text = Array.from({ length: 1700 }, (_, i) => sentence(i)).join('');
    await client.crdt.addCrdtData({ ...key, type: 'text', data: text });
    const before = (await server.running.database.db.crdtDocument.findFirstOrThrow({ where: { apiKeyId: appId, editorId: key.editorId } })).state.byteLength;
    await client.crdt.updateCrdtData({ ...key, type: 'text', data: text.replace(sentence(700), 'A changed sentence. ') });
    const after = (await server.running.database.db.crdtDocument.findFirstOrThrow({ where: { apiKeyId: appId, editorId: key.editorId } })).state.byteLength;
    expect(text.length).toBeGreaterThan(100_000);
    expect(after - before).toBeLessThan(500);
  });
});

describe('REST changes over time', () => {
  it('are authored by one Yjs client per editor: the state vector does not grow with each change', async () => {
    await client.crdt.addCrdtData({ ...key, type: 'text', data: 'v0' });
    for (let i = 1; i <= 30; i++) await client.crdt.updateCrdtData({ ...key, type: 'text', data: `v${i}` });
    const row = await server.running.database.db.crdtDocument.findFirstOrThrow({ where: { apiKeyId: appId, editorId: key.editorId } });
    expect(Y.decodeStateVector(Y.encodeStateVectorFromUpdate(row.state)).size).toBe(1);
    expect((await client.crdt.getCrdtData(key)).data.data).toBe('v30');
  });
});

describe('Delete CRDT Data', () => {
  it('empties the content and forgets the data; Add works again', async () => {
    await client.crdt.addCrdtData({ ...key, type: 'map', data: { a: 1 } });
    await client.crdt.deleteCrdtData(key);
    await expectCollabError(client.crdt.getCrdtData(key), 'NOT_FOUND');
    await expectCollabError(client.crdt.updateCrdtData({ ...key, type: 'map', data: {} }), 'NOT_FOUND');
    await expectCollabError(client.crdt.deleteCrdtData(key), 'NOT_FOUND');
    await client.crdt.addCrdtData({ ...key, type: 'map', data: { b: 2 } });
    expect((await client.crdt.getCrdtData(key)).data.data).toEqual({ b: 2 });
  });
});

describe('CRDT data and the document it belongs to', () => {
  it('follows Migrate Documents to the new document ID', async () => {
    await client.crdt.addCrdtData({ ...key, documentId: 'doc-2', type: 'text', data: 'migrating' });
    const { migrationId } = (await client.migrations.migrateDocuments({ organizationId: ORG, documentId: 'doc-2', newDocumentId: 'doc-2-new' })).data;
    await server.running.services.jobs.runDue();
    expect((await client.migrations.getMigrateDocumentsStatus({ organizationId: ORG, migrationId })).data.status).toBe('completed');
    expect((await client.crdt.getCrdtData({ ...key, documentId: 'doc-2-new' })).data.data).toBe('migrating');
    await expectCollabError(client.crdt.getCrdtData({ ...key, documentId: 'doc-2' }), 'NOT_FOUND');
  });

  it('goes with its document; a document created again under the same ID writes with another Yjs client ID', async () => {
    const k = { ...key, documentId: 'doc-3' };
    const restClientId = async () => (await server.running.database.db.crdtDocument.findFirstOrThrow({ where: { apiKeyId: appId, documentId: 'doc-3', editorId: k.editorId } })).restClientId;
    await client.crdt.addCrdtData({ ...k, type: 'text', data: 'doomed' });
    const before = await restClientId();
    await client.organizations.deleteDocument({ organizationId: ORG, documentId: 'doc-3' });
    expect(await server.running.database.db.crdtDocument.count({ where: { apiKeyId: appId, documentId: 'doc-3' } })).toBe(0);
    await client.organizations.addDocument({ organizationId: ORG, documentId: 'doc-3' });
    await expectCollabError(client.crdt.getCrdtData(k), 'NOT_FOUND');
    // Clients may still hold the old document's changes: reusing its client ID (and clocks) would split the document.
    await client.crdt.addCrdtData({ ...k, type: 'text', data: 'reborn' });
    expect(before).not.toBeNull();
    expect(await restClientId()).not.toBe(before);
  });
});

describe('tenancy', () => {
  it('another application with the same IDs sees none of it and keeps its own', async () => {
    await client.crdt.addCrdtData({ ...key, type: 'text', data: 'mine' });
    const other = server.client(await server.workspace());
    await expectCollabError(other.crdt.getCrdtData(key), 'NOT_FOUND');
    await other.organizations.addOrganization({ organizationId: ORG });
    await other.organizations.addDocument({ organizationId: ORG, documentId: DOC });
    await expectCollabError(other.crdt.getCrdtData(key), 'NOT_FOUND');
    await other.crdt.addCrdtData({ ...key, type: 'text', data: 'theirs' });
    expect((await other.crdt.getCrdtData(key)).data.data).toBe('theirs');
    expect((await client.crdt.getCrdtData(key)).data.data).toBe('mine');
  });
});

describe('restart', () => {
  it('keeps what REST wrote', async () => {
    await client.crdt.addCrdtData({ ...key, type: 'text', data: 'durable' });
    await client.crdt.updateCrdtData({ ...key, type: 'text', data: 'durable, and updated' });
    await server.restart();
    client = server.client(ws);
    expect((await client.crdt.getCrdtData(key)).data.data).toBe('durable, and updated');
  });
});
