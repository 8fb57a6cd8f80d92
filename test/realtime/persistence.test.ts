// Saving collaborative documents: a failing save is retried and the document
// stays in memory meanwhile; a save finds a deleted document gone and writes
// nothing back under its ID.
import { Hocuspocus } from '@hocuspocus/server';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { documentNameOf } from '../../contract/crdt/document-name.js';
import { createCrdtRepo } from '../../server/domains/crdt/repo.js';
import { createAccessLookups } from '../../server/domains/access/lookups.js';
import { createAccessRepos } from '../../server/domains/access/repos/index.js';
import { createEnsureHeldDocument } from '../../server/domains/access/open-document.js';
import { createCrdtStore } from '../../server/domains/crdt/store.js';
import { createPersistence } from '../../server/realtime/persistence.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { systemClock } from '../../server/lib/clock.js';

const ORG = 'p-org';
let server: TestServer;
let appId: string;

beforeAll(async () => {
  server = await startTestServer();
  const ws = await server.workspace();
  const client = server.client(ws);
  appId = (await server.cli<{ apiKey: { id: string } }>('workspace', 'get', '--api-key', ws.apiKey)).apiKey.id;
  await client.organizations.addOrganization({ organizationId: ORG });
  for (const documentId of ['d1', 'd2']) await client.organizations.addDocument({ organizationId: ORG, documentId });
});
afterAll(() => server?.close());

function setUp(failures: number) {
  const { db, uow } = server.running.database;
  const real = createCrdtRepo(db);
  const access = createAccessRepos(db, systemClock);
  const seen = { failed: 0, loadedWhileFailing: [] as boolean[], errors: [] as string[] };
  let left = failures;
  const repo = {
    ...real,
    save: (...args: Parameters<typeof real.save>) => {
      if (left > 0) {
        left -= 1;
        seen.failed += 1;
        seen.loadedWhileFailing.push(hocuspocus.documents.size > 0);
        return Promise.reject(new Error('database unavailable'));
      }
      return real.save(...args);
    },
  };
  const log = pino({ level: 'error' }, { write: (line: string) => void seen.errors.push(line) });
  const persistence = createPersistence({
    apiKeyId: appId,
    store: createCrdtStore({
      repo,
      find: createAccessLookups(access),
      documents: access.documents,
      ensureHeldDocument: createEnsureHeldDocument(access),
      uow,
      events: server.running.services.events,
      clock: server.running.services.clock,
    }),
    uow,
    log,
    options: { retryDelayMs: 1, maxRetryDelayMs: 4 },
    onGone: (name) => hocuspocus.closeConnections(name),
  });
  const hocuspocus = new Hocuspocus({ quiet: true, debounce: 0, extensions: [persistence.extension] });
  return { hocuspocus, seen, db };
}

describe('saving a collaborative document', () => {
  it('retries a failed save until it succeeds, keeping the document in memory meanwhile', async () => {
    const { hocuspocus, seen, db } = setUp(3);
    const name = documentNameOf({ organizationId: ORG, documentId: 'd1', editorId: 'e1' });
    const connection = await hocuspocus.openDirectConnection(name, {});
    await connection.transact((doc) => doc.getText('content').insert(0, 'kept through failures'));
    await connection.disconnect();
    expect(seen.failed).toBe(3);
    expect(seen.loadedWhileFailing).toEqual([true, true, true]);
    expect(seen.errors.join('\n')).toMatch(/saving a collaborative document failed; retrying/);
    const row = await db.crdtDocument.findFirstOrThrow({ where: { apiKeyId: appId, documentId: 'd1', editorId: 'e1' } });
    const doc = new Y.Doc();
    Y.applyUpdate(doc, row.state);
    expect(doc.getText('content').toString()).toBe('kept through failures');
    expect(hocuspocus.documents.size).toBe(0);
  });

  it('each save merges with the stored state: two copies (processes, or a REST write and a save) never overwrite edits only the other had', async () => {
    const a = setUp(0);
    const b = setUp(0);
    const name = documentNameOf({ organizationId: ORG, documentId: 'd1', editorId: 'shared' });
    const onA = await a.hocuspocus.openDirectConnection(name, {});
    const onB = await b.hocuspocus.openDirectConnection(name, {});
    // Two copies that have not synced yet (no Redis here): each saves only its own edit.
    await onA.transact((doc) => doc.getMap('content').set('fromA', 1));
    await onB.transact((doc) => doc.getMap('content').set('fromB', 2));
    await Promise.all([onA.disconnect(), onB.disconnect()]);
    const row = await a.db.crdtDocument.findFirstOrThrow({ where: { apiKeyId: appId, editorId: 'shared' } });
    const doc = new Y.Doc();
    Y.applyUpdate(doc, row.state);
    expect(doc.getMap('content').toJSON()).toEqual({ fromA: 1, fromB: 2 });
  });

  it('writes nothing back for a document that was deleted meanwhile', async () => {
    const { hocuspocus, db } = setUp(0);
    const name = documentNameOf({ organizationId: ORG, documentId: 'd2', editorId: 'e1' });
    const connection = await hocuspocus.openDirectConnection(name, {});
    await db.document.deleteMany({ where: { apiKeyId: appId, organizationId: ORG, id: 'd2' } });
    await connection.transact((doc) => doc.getText('content').insert(0, 'orphan'));
    await connection.disconnect();
    expect(await db.crdtDocument.count({ where: { apiKeyId: appId, documentId: 'd2' } })).toBe(0);
  });
});
