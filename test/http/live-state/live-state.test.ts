// Broadcast Event and Get Live State Data over REST: the stored latest value
// per liveStateDataId (replace and shallow merge), its order, validation, the
// NOT_FOUND cases, the owned-data registry and tenancy. Delivery to connected
// clients is in test/realtime/live-state.test.ts.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_LIVE_STATE_BYTES, MAX_LIVE_STATE_DEPTH } from '../../../contract/live-state/schemas.js';
import { testClock } from '../../../server/lib/clock.js';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

const ORG = 'ls-org';
const DOC = 'ls-doc';
const clock = testClock(Date.UTC(2026, 6, 1));
let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;
let n = 0;
/** A fresh liveStateDataId per test. */
let id: string;

beforeAll(async () => {
  server = await startTestServer({}, { overrides: { clock } });
  ws = await server.workspace();
  client = server.client(ws);
  await client.organizations.addOrganization({ organizationId: ORG });
  for (const documentId of [DOC, 'moving', 'doomed']) await client.organizations.addDocument({ organizationId: ORG, documentId });
});
afterAll(() => server?.close());
beforeEach(() => {
  id = `value-${++n}`;
  clock.advance(1000);
});

const key = { organizationId: ORG, documentId: DOC };
const get = async (data: Record<string, unknown> = {}) => (await client.liveState.getLiveStateData({ ...key, ...data })).data;

describe('Broadcast Event', () => {
  it('stores the value and returns the entry in the envelope', async () => {
    const res = await server.post('/v2/livestate/broadcast', { data: { ...key, liveStateDataId: id, data: { slide: 3 } } }, appHeaders(ws));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: { status: 'success', message: 'Event broadcast.', data: { liveStateDataId: id, data: { slide: 3 }, lastUpdated: clock.nowMs() } } });
    expect(await get({ liveStateDataId: id })).toEqual([{ liveStateDataId: id, data: { slide: 3 }, lastUpdated: clock.nowMs() }]);
  });

  it('keeps any JSON value exactly, null and fractions included', async () => {
    for (const [i, data] of [[1, 'x'], 0.1 + 0.2, -7, true, false, null, 'text', '', [], {}, { nested: { deep: [1, { a: null }] } }, 1e308].entries()) {
      const { data: entry } = await client.liveState.broadcastEvent({ ...key, liveStateDataId: `${id}-${i}`, data });
      expect(entry.data).toEqual(data);
      expect((await get({ liveStateDataId: `${id}-${i}` }))[0]!.data).toEqual(data);
    }
  });

  it('replaces the stored value, unless merge asks for a shallow merge of two objects', async () => {
    await client.liveState.broadcastEvent({ ...key, liveStateDataId: id, data: { a: 1, nested: { x: 1, y: 2 } } });
    await client.liveState.broadcastEvent({ ...key, liveStateDataId: id, data: { b: 2, nested: { x: 9 } }, merge: true });
    expect((await get({ liveStateDataId: id }))[0]!.data).toEqual({ a: 1, b: 2, nested: { x: 9 } });
    await client.liveState.broadcastEvent({ ...key, liveStateDataId: id, data: { c: 3 } });
    expect((await get({ liveStateDataId: id }))[0]!.data).toEqual({ c: 3 });
    // Merge needs an object on both sides; otherwise the value is replaced.
    await client.liveState.broadcastEvent({ ...key, liveStateDataId: id, data: [1, 2], merge: true });
    expect((await get({ liveStateDataId: id }))[0]!.data).toEqual([1, 2]);
    await client.liveState.broadcastEvent({ ...key, liveStateDataId: id, data: { d: 4 }, merge: true });
    expect((await get({ liveStateDataId: id }))[0]!.data).toEqual({ d: 4 });
    await client.liveState.broadcastEvent({ ...key, liveStateDataId: `${id}-new`, data: { e: 5 }, merge: true });
    expect((await get({ liveStateDataId: `${id}-new` }))[0]!.data).toEqual({ e: 5 });
  });

  it('concurrent merges into one entry, the very first included, keep every key', async () => {
    const keys = Array.from({ length: 12 }, (_, i) => `k${i}`);
    const results = await Promise.all(keys.map((k, i) => client.liveState.broadcastEvent({ ...key, liveStateDataId: id, data: { [k]: i }, merge: true })));
    expect(Object.keys((await get({ liveStateDataId: id }))[0]!.data as object).sort()).toEqual([...keys].sort());
    expect(new Set(results.map((r) => r.data.lastUpdated)).size).toBe(keys.length);
  });

  it('lastUpdated strictly increases per entry, also within one millisecond', async () => {
    const first = (await client.liveState.broadcastEvent({ ...key, liveStateDataId: id, data: 1 })).data.lastUpdated;
    const second = (await client.liveState.broadcastEvent({ ...key, liveStateDataId: id, data: 2 })).data.lastUpdated;
    expect(first).toBe(clock.nowMs());
    expect(second).toBe(first + 1);
    clock.advance(5);
    expect((await client.liveState.broadcastEvent({ ...key, liveStateDataId: id, data: 3 })).data.lastUpdated).toBe(clock.nowMs());
  });

  it('is INVALID_ARGUMENT without data, for non-finite numbers, too deep or too large values', async () => {
    const post = (body: string) => server.post('/v2/livestate/broadcast', body, appHeaders(ws));
    const base = JSON.stringify({ ...key, liveStateDataId: id }).slice(0, -1);
    const cases: [string, RegExp][] = [
      [`{"data":${base}}}`, /data\.data: is required/],
      [`{"data":${base},"data":1e400}}`, /finite/],
      // Refused for every operation while the body is parsed (see test/http/hostile-bodies.test.ts).
      [`{"data":${base},"data":{"a":[1e400]}}}`, /must be finite numbers/],
      [`{"data":${base},"data":${'['.repeat(MAX_LIVE_STATE_DEPTH + 1)}${']'.repeat(MAX_LIVE_STATE_DEPTH + 1)}}}`, /levels deep/],
      [`{"data":${base},"data":"${'x'.repeat(MAX_LIVE_STATE_BYTES)}"}}`, /at most 262144 bytes/],
      [`{"data":${base},"data":1,"merge":"yes"}}`, /merge/],
    ];
    for (const [body, message] of cases) {
      const res = await post(body);
      expect([res.status, res.body.error?.status]).toEqual([400, 'INVALID_ARGUMENT']);
      expect(res.body.error.message).toMatch(message);
    }
    // At the limits: accepted.
    const nested = JSON.parse(`${'['.repeat(MAX_LIVE_STATE_DEPTH)}${']'.repeat(MAX_LIVE_STATE_DEPTH)}`) as unknown;
    await client.liveState.broadcastEvent({ ...key, liveStateDataId: id, data: nested });
    await client.liveState.broadcastEvent({ ...key, liveStateDataId: id, data: 'x'.repeat(MAX_LIVE_STATE_BYTES - 2) });
    expect(await get({ liveStateDataId: id })).toHaveLength(1);
  });

  it('is NOT_FOUND for an unknown organization or document, and stores nothing', async () => {
    await expectCollabError(client.liveState.broadcastEvent({ organizationId: 'nope', documentId: DOC, liveStateDataId: id, data: 1 }), 'NOT_FOUND', /organization nope/);
    await expectCollabError(client.liveState.broadcastEvent({ ...key, documentId: 'nope', liveStateDataId: id, data: 1 }), 'NOT_FOUND', /document nope/);
    expect(await get({ liveStateDataId: id })).toEqual([]);
  });
});

describe('Get Live State Data', () => {
  it('lists every entry of the document by liveStateDataId, or the one asked for', async () => {
    await client.organizations.addDocument({ organizationId: ORG, documentId: id });
    for (const name of ['b', 'a', 'c']) await client.liveState.broadcastEvent({ organizationId: ORG, documentId: id, liveStateDataId: name, data: name });
    const all = (await client.liveState.getLiveStateData({ organizationId: ORG, documentId: id })).data;
    expect(all.map((e) => [e.liveStateDataId, e.data])).toEqual([
      ['a', 'a'],
      ['b', 'b'],
      ['c', 'c'],
    ]);
    expect((await client.liveState.getLiveStateData({ organizationId: ORG, documentId: id, liveStateDataId: 'b' })).data.map((e) => e.data)).toEqual(['b']);
    expect((await client.liveState.getLiveStateData({ organizationId: ORG, documentId: id, liveStateDataId: 'zzz' })).data).toEqual([]);
  });

  it('is NOT_FOUND for an unknown organization or document', async () => {
    await expectCollabError(client.liveState.getLiveStateData({ organizationId: 'nope', documentId: DOC }), 'NOT_FOUND', /organization/);
    await expectCollabError(client.liveState.getLiveStateData({ ...key, documentId: 'nope' }), 'NOT_FOUND', /document/);
  });
});

describe('live state and its document', () => {
  it('follows Migrate Documents, and goes with its document', async () => {
    await client.liveState.broadcastEvent({ organizationId: ORG, documentId: 'moving', liveStateDataId: 'v', data: 'moved' });
    const { migrationId } = (await client.migrations.migrateDocuments({ organizationId: ORG, documentId: 'moving', newDocumentId: 'moved' })).data;
    await server.running.services.jobs.runDue();
    expect((await client.migrations.getMigrateDocumentsStatus({ organizationId: ORG, migrationId })).data.status).toBe('completed');
    expect((await client.liveState.getLiveStateData({ organizationId: ORG, documentId: 'moved' })).data.map((e) => e.data)).toEqual(['moved']);

    await client.liveState.broadcastEvent({ organizationId: ORG, documentId: 'doomed', liveStateDataId: 'v', data: 'gone' });
    await client.organizations.deleteDocument({ organizationId: ORG, documentId: 'doomed' });
    await client.organizations.addDocument({ organizationId: ORG, documentId: 'doomed' });
    expect((await client.liveState.getLiveStateData({ organizationId: ORG, documentId: 'doomed' })).data).toEqual([]);
  });
});

describe('tenancy', () => {
  it('another application with the same IDs sees none of it, and its broadcasts leave ours alone', async () => {
    await client.liveState.broadcastEvent({ ...key, liveStateDataId: id, data: 'mine' });
    const other = server.client(await server.workspace());
    await expectCollabError(other.liveState.getLiveStateData(key), 'NOT_FOUND');
    await expectCollabError(other.liveState.broadcastEvent({ ...key, liveStateDataId: id, data: 'theirs' }), 'NOT_FOUND');
    await other.organizations.addOrganization({ organizationId: ORG });
    await other.organizations.addDocument({ organizationId: ORG, documentId: DOC });
    expect((await other.liveState.getLiveStateData(key)).data).toEqual([]);
    await other.liveState.broadcastEvent({ ...key, liveStateDataId: id, data: 'theirs' });
    expect((await get({ liveStateDataId: id }))[0]!.data).toBe('mine');
  });
});
