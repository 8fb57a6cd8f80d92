// Add, Update, Delete and Get Presence over REST: the stored entries, their
// errors (ALREADY_EXISTS, NOT_FOUND), validation, erasure and migration
// through the owned-data registry, and tenancy. What connected clients see
// is in test/realtime/live-state.test.ts.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_PRESENCE_STATE_BYTES } from '../../../contract/live-state/schemas.js';
import { testClock } from '../../../server/lib/clock.js';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

const ORG = 'pr-org';
const clock = testClock(Date.UTC(2026, 6, 2));
let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;
let n = 0;
/** A fresh document per test. */
let key: { organizationId: string; documentId: string };

beforeAll(async () => {
  server = await startTestServer({}, { overrides: { clock } });
  ws = await server.workspace();
  client = server.client(ws);
  await client.organizations.addOrganization({ organizationId: ORG });
});
afterAll(() => server?.close());
beforeEach(async () => {
  key = { organizationId: ORG, documentId: `doc-${++n}` };
  await client.organizations.addDocument(key);
  clock.advance(1000);
});

const present = async (k = key) => (await client.presence.getPresence(k)).data;

describe('Add Presence', () => {
  it('stores the entry (state default {}) and returns it in the envelope', async () => {
    const res = await server.post('/v2/presence/add', { data: { ...key, user: { userId: 'ann', name: 'Ann', email: 'ann@example.com' } } }, appHeaders(ws));
    expect(res.status).toBe(200);
    const entry = { userId: 'ann', user: { userId: 'ann', name: 'Ann', email: 'ann@example.com' }, state: {}, source: 'api', lastUpdated: clock.nowMs() };
    expect(res.body).toEqual({ result: { status: 'success', message: 'Presence added.', data: entry } });
    expect(await present()).toEqual([entry]);
  });

  it('is ALREADY_EXISTS for a user who has an entry on the document, and keeps the first', async () => {
    await client.presence.addPresence({ ...key, user: { userId: 'bob' }, state: { status: 'first' } });
    await expectCollabError(client.presence.addPresence({ ...key, user: { userId: 'bob' }, state: { status: 'second' } }), 'ALREADY_EXISTS', /bob/);
    expect((await present()).map((e) => e.state)).toEqual([{ status: 'first' }]);
  });

  it('is NOT_FOUND for an unknown organization or document', async () => {
    await expectCollabError(client.presence.addPresence({ organizationId: 'nope', documentId: key.documentId, user: { userId: 'u' } }), 'NOT_FOUND', /organization nope/);
    await expectCollabError(client.presence.addPresence({ ...key, documentId: 'nope', user: { userId: 'u' } }), 'NOT_FOUND', /document nope/);
  });

  it('refuses a missing user, a state that is not an object, and a state over the limit', async () => {
    const cases: [unknown, RegExp][] = [
      [{ ...key }, /data\.user/],
      [{ ...key, user: { userId: 'u', role: 'x' } }, /role/],
      [{ ...key, user: { userId: 'u' }, state: [1] }, /data\.state/],
      [{ ...key, user: { userId: 'u' }, state: 'away' }, /data\.state/],
      [{ ...key, user: { userId: 'u' }, state: { blob: 'x'.repeat(MAX_PRESENCE_STATE_BYTES) } }, /at most 16384 bytes/],
    ];
    for (const [data, message] of cases) {
      const res = await server.post('/v2/presence/add', { data }, appHeaders(ws));
      expect([res.status, res.body.error?.status]).toEqual([400, 'INVALID_ARGUMENT']);
      expect(res.body.error.message).toMatch(message);
    }
    expect(await present()).toEqual([]);
  });
});

describe('Update Presence', () => {
  it('replaces the state and lastUpdated; the user stays', async () => {
    await client.presence.addPresence({ ...key, user: { userId: 'cy', name: 'Cy' }, state: { status: 'here', page: 1 } });
    clock.advance(500);
    const { data } = await client.presence.updatePresence({ ...key, userId: 'cy', state: { status: 'away' } });
    const entry = { userId: 'cy', user: { userId: 'cy', name: 'Cy' }, state: { status: 'away' }, source: 'api', lastUpdated: clock.nowMs() };
    expect(data).toEqual(entry);
    expect(await present()).toEqual([entry]);
  });

  it('is NOT_FOUND when the user has no entry, and for an unknown document', async () => {
    await expectCollabError(client.presence.updatePresence({ ...key, userId: 'ghost', state: {} }), 'NOT_FOUND', /presence of user ghost/);
    await expectCollabError(client.presence.updatePresence({ ...key, documentId: 'nope', userId: 'ghost', state: {} }), 'NOT_FOUND', /document nope/);
  });

  it('requires the state', async () => {
    await client.presence.addPresence({ ...key, user: { userId: 'dee' } });
    const res = await server.post('/v2/presence/update', { data: { ...key, userId: 'dee' } }, appHeaders(ws));
    expect([res.status, res.body.error?.status]).toEqual([400, 'INVALID_ARGUMENT']);
    expect(res.body.error.message).toMatch(/data\.state/);
  });
});

describe('Delete Presence', () => {
  it('reports per user and removes the entries', async () => {
    for (const userId of ['a', 'b', 'c']) await client.presence.addPresence({ ...key, user: { userId } });
    const { data } = await client.presence.deletePresence({ ...key, userIds: ['a', 'c', 'zed'] });
    expect(data).toEqual({
      a: { success: true, message: 'Presence deleted.' },
      c: { success: true, message: 'Presence deleted.' },
      zed: { success: false, message: `presence zed does not exist in organization ${ORG}` },
    });
    expect((await present()).map((e) => e.userId)).toEqual(['b']);
  });

  it('is NOT_FOUND for an unknown organization or document; at most 100 IDs', async () => {
    await expectCollabError(client.presence.deletePresence({ organizationId: 'nope', documentId: key.documentId, userIds: ['a'] }), 'NOT_FOUND');
    await expectCollabError(client.presence.deletePresence({ ...key, documentId: 'nope', userIds: ['a'] }), 'NOT_FOUND');
    const res = await server.post('/v2/presence/delete', { data: { ...key, userIds: Array.from({ length: 101 }, (_, i) => `u${i}`) } }, appHeaders(ws));
    expect(res.body.error?.status).toBe('INVALID_ARGUMENT');
  });
});

describe('Get Presence', () => {
  it('lists the entries by userId, only this document\'s', async () => {
    for (const userId of ['zoe', 'al', 'mo']) await client.presence.addPresence({ ...key, user: { userId, name: userId.toUpperCase() } });
    const other = { organizationId: ORG, documentId: `${key.documentId}-other` };
    await client.organizations.addDocument(other);
    await client.presence.addPresence({ ...other, user: { userId: 'elsewhere' } });
    expect((await present()).map((e) => [e.userId, e.user.name, e.source])).toEqual([
      ['al', 'AL', 'api'],
      ['mo', 'MO', 'api'],
      ['zoe', 'ZOE', 'api'],
    ]);
  });

  it('is NOT_FOUND for an unknown organization or document', async () => {
    await expectCollabError(client.presence.getPresence({ organizationId: 'nope', documentId: key.documentId }), 'NOT_FOUND', /organization/);
    await expectCollabError(client.presence.getPresence({ ...key, documentId: 'nope' }), 'NOT_FOUND', /document/);
  });
});

describe('presence and the owned-data registry', () => {
  it('Delete All User Data erases the user\'s entries on every document, and only theirs', async () => {
    const second = { organizationId: ORG, documentId: `${key.documentId}-2` };
    await client.organizations.addDocument(second);
    for (const k of [key, second]) {
      await client.presence.addPresence({ ...k, user: { userId: 'erased' } });
      await client.presence.addPresence({ ...k, user: { userId: 'kept' } });
    }
    await client.userData.deleteAllUserData({ userId: 'erased' });
    await server.running.services.jobs.runDue();
    expect((await present()).map((e) => e.userId)).toEqual(['kept']);
    expect((await present(second)).map((e) => e.userId)).toEqual(['kept']);
  });

  it('entries follow Migrate Documents and go with a deleted document', async () => {
    await client.presence.addPresence({ ...key, user: { userId: 'mover' }, state: { page: 2 } });
    const newDocumentId = `${key.documentId}-new`;
    const { migrationId } = (await client.migrations.migrateDocuments({ ...key, newDocumentId })).data;
    await server.running.services.jobs.runDue();
    expect((await client.migrations.getMigrateDocumentsStatus({ organizationId: ORG, migrationId })).data.status).toBe('completed');
    const moved = { organizationId: ORG, documentId: newDocumentId };
    expect((await present(moved)).map((e) => [e.userId, e.state])).toEqual([['mover', { page: 2 }]]);

    await client.organizations.deleteDocument(moved);
    await client.organizations.addDocument(moved);
    expect(await present(moved)).toEqual([]);
  });
});

describe('tenancy', () => {
  it('another application with the same IDs sees and changes none of it', async () => {
    await client.presence.addPresence({ ...key, user: { userId: 'mine' } });
    const other = server.client(await server.workspace());
    await expectCollabError(other.presence.getPresence(key), 'NOT_FOUND');
    await other.organizations.addOrganization({ organizationId: ORG });
    await other.organizations.addDocument(key);
    expect((await other.presence.getPresence(key)).data).toEqual([]);
    await expectCollabError(other.presence.updatePresence({ ...key, userId: 'mine', state: { x: 1 } }), 'NOT_FOUND');
    expect((await other.presence.deletePresence({ ...key, userIds: ['mine'] })).data.mine!.success).toBe(false);
    expect((await present()).map((e) => [e.userId, e.state])).toEqual([['mine', {}]]);
  });
});
