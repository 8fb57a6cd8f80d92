// Comment threads: Add, Get, Update, Delete Comment Annotations and their
// count, through HTTP with the SDK: success, validation, each domain error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { testClock } from '../../../server/lib/clock.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;
const clock = testClock(Date.UTC(2026, 2, 1));
const ORG = 'org';
const DOC = 'doc';
const ann = { userId: 'ann' };
const bob = { userId: 'bob' };

beforeAll(async () => {
  server = await startTestServer({}, { overrides: { clock } });
  ws = await server.workspace();
  client = server.client(ws);
  await client.users.addUsers({ organizationId: ORG, users: [{ userId: 'ann', name: 'Ann Lee', email: 'ann@example.com' }, { userId: 'bob', name: 'Bob' }] });
});
afterAll(() => server?.close());

const add = (commentAnnotations: any[], documentId = DOC, organizationId = ORG) =>
  client.comments.addCommentAnnotations({ organizationId, documentId, commentAnnotations });

describe('Add Comment Annotations', () => {
  it('opens threads with their first comments, defaults filled, users completed from their records, the document created', async () => {
    const at = clock.nowMs();
    const { data } = await add(
      [
        {
          annotationId: 'first',
          from: ann,
          location: { locationId: 'page-1', x: 10 },
          assignedTo: bob,
          customList: ['bug'],
          context: { team: 'design', nested: { deep: [1, 2] } },
          commentData: [
            { commentText: 'Hello', commentHtml: '<p>Hello</p>', taggedUserContacts: [bob, { userId: 'stranger', name: 'S' }] },
            { commentId: 'reply', commentText: 'Me too', from: bob },
          ],
        },
        { from: { userId: 'ann', name: 'Annie' }, status: 'in_progress', priority: 'high', commentData: [{ commentText: 'Second' }] },
      ],
      'new-doc',
    );
    expect(data).toHaveLength(2);
    const [first, second] = data;
    expect(first).toEqual({
      annotationId: 'first',
      organizationId: ORG,
      documentId: 'new-doc',
      location: { locationId: 'page-1', x: 10 },
      status: 'open',
      priority: null,
      assignedTo: { userId: 'bob', name: 'Bob' },
      customList: ['bug'],
      context: { team: 'design', nested: { deep: [1, 2] } },
      from: { userId: 'ann', name: 'Ann Lee', email: 'ann@example.com' },
      comments: [
        {
          commentId: expect.stringMatching(/^cmt_/),
          commentText: 'Hello',
          commentHtml: '<p>Hello</p>',
          from: { userId: 'ann', name: 'Ann Lee', email: 'ann@example.com' },
          taggedUserContacts: [{ userId: 'bob', name: 'Bob' }, { userId: 'stranger', name: 'S' }],
          createdAt: at,
          lastUpdated: at,
          reactions: [],
        },
        { commentId: 'reply', commentText: 'Me too', from: { userId: 'bob', name: 'Bob' }, taggedUserContacts: [], createdAt: at, lastUpdated: at, reactions: [] },
      ],
      createdAt: at,
      lastUpdated: at,
    });
    // A name given in the request is kept; the missing email is filled.
    expect(second).toMatchObject({ annotationId: expect.stringMatching(/^ann_/), status: 'in_progress', priority: 'high', assignedTo: null, context: null, customList: [] });
    expect(second!.from).toEqual({ userId: 'ann', name: 'Annie', email: 'ann@example.com' });
    expect(second!.location).toBeUndefined();
    const docs = await client.organizations.getDocuments({ organizationId: ORG, documentIds: ['new-doc'] });
    expect(docs.data.map((d) => d.id)).toEqual(['new-doc']);
  });

  it('creates a missing organization too', async () => {
    await add([{ from: ann, commentData: [{ commentText: 'x' }] }], 'd', 'fresh-org');
    expect((await client.organizations.getOrganizations({ organizationIds: ['fresh-org'] })).data).toHaveLength(1);
  });

  it('is ALREADY_EXISTS for an annotationId taken in any document, and writes nothing of the request', async () => {
    await expectCollabError(
      add([{ annotationId: 'brand-new', from: ann, commentData: [{ commentText: 'x' }] }, { annotationId: 'first', from: ann, commentData: [{ commentText: 'y' }] }]),
      'ALREADY_EXISTS',
      /comment annotation first already exists/,
    );
    await expectCollabError(client.comments.getComments({ organizationId: ORG, documentId: DOC, annotationId: 'brand-new' }), 'NOT_FOUND');
  });

  it('refuses invalid requests naming the field', async () => {
    const cases: [unknown, RegExp][] = [
      [{ organizationId: ORG, documentId: DOC, commentAnnotations: [] }, /commentAnnotations/],
      [{ organizationId: ORG, documentId: DOC, commentAnnotations: [{ from: ann, commentData: [] }] }, /commentData/],
      [{ organizationId: ORG, documentId: DOC, commentAnnotations: [{ commentData: [{ commentText: 'x' }] }] }, /from is required/],
      [{ organizationId: ORG, documentId: DOC, commentAnnotations: Array.from({ length: 101 }, () => ({ from: ann, commentData: [{ commentText: 'x' }] })) }, /commentAnnotations/],
      [
        { organizationId: ORG, documentId: DOC, commentAnnotations: [{ annotationId: 'a', from: ann, commentData: [{ commentText: 'x' }] }, { annotationId: 'a', from: ann, commentData: [{ commentText: 'x' }] }] },
        /annotationId a is given twice/,
      ],
      [{ organizationId: ORG, documentId: DOC, commentAnnotations: [{ from: ann, commentData: [{ commentId: 'c', commentText: 'x' }, { commentId: 'c', commentText: 'y' }] }] }, /commentId c is given twice/],
      [{ organizationId: ORG, documentId: DOC, commentAnnotations: [{ from: ann, status: '', commentData: [{ commentText: 'x' }] }] }, /status/],
      [{ organizationId: ORG, documentId: DOC, commentAnnotations: [{ from: ann, status: 'x'.repeat(65), commentData: [{ commentText: 'x' }] }] }, /status/],
      [{ organizationId: ORG, documentId: DOC, commentAnnotations: [{ from: ann, context: { big: 'x'.repeat(17_000) }, commentData: [{ commentText: 'x' }] }] }, /context: must be at most 16384 bytes/],
      [{ organizationId: ORG, documentId: DOC, commentAnnotations: [{ from: ann, context: [1], commentData: [{ commentText: 'x' }] }] }, /context must be object/],
      [{ organizationId: ORG, documentId: DOC, commentAnnotations: [{ from: ann, location: { x: 1 }, commentData: [{ commentText: 'x' }] }] }, /location\.locationId is required/],
      [{ organizationId: ORG, documentId: DOC, commentAnnotations: [{ from: ann, commentData: [{ commentText: 'x', extra: 1 }] }] }, /extra/],
      [{ organizationId: ORG, documentId: DOC, commentAnnotations: [{ from: { userId: '__proto__' }, commentData: [{ commentText: 'x' }] }] }, /from\.userId: .*__proto__/],
    ];
    for (const [data, message] of cases) {
      const res = await server.post('/v2/commentannotations/add', { data }, appHeaders(ws));
      expect({ status: res.status, error: res.body.error?.status, message: res.body.error?.message }).toEqual({
        status: 400,
        error: 'INVALID_ARGUMENT',
        message: expect.stringMatching(message),
      });
    }
  });

  it('refuses a key "__proto__" at any depth of context or location, and nesting past 8 levels', async () => {
    const bodies = [
      '{"data":{"organizationId":"org","documentId":"doc","commentAnnotations":[{"from":{"userId":"ann"},"context":{"__proto__":{"team":"x"}},"commentData":[{"commentText":"x"}]}]}}',
      '{"data":{"organizationId":"org","documentId":"doc","commentAnnotations":[{"from":{"userId":"ann"},"context":{"a":[{"__proto__":1}]},"commentData":[{"commentText":"x"}]}]}}',
      '{"data":{"organizationId":"org","documentId":"doc","commentAnnotations":[{"from":{"userId":"ann"},"location":{"locationId":"l","__proto__":{}},"commentData":[{"commentText":"x"}]}]}}',
    ];
    for (const body of bodies) {
      const res = await server.post('/v2/commentannotations/add', body, appHeaders(ws));
      expect([res.status, res.body.error?.status]).toEqual([400, 'INVALID_ARGUMENT']);
      expect(res.body.error.message).toMatch(/__proto__/);
    }
    let deep: unknown = 1;
    for (let i = 0; i < 9; i++) deep = { d: deep };
    const res = await server.post('/v2/commentannotations/add', { data: { organizationId: ORG, documentId: DOC, commentAnnotations: [{ from: ann, context: deep, commentData: [{ commentText: 'x' }] }] } }, appHeaders(ws));
    expect(res.body.error?.message).toMatch(/at most 8 levels deep/);
  });
});

describe('Get Comment Annotations', () => {
  beforeAll(async () => {
    clock.advance(1000);
    await add([{ annotationId: 'g1', from: ann, location: { locationId: 'p1' }, commentData: [{ commentText: 'one' }] }], 'gdoc');
    clock.advance(1000);
    await add([{ annotationId: 'g2', from: bob, status: 'resolved', location: { locationId: 'p2' }, commentData: [{ commentText: 'two', taggedUserContacts: [{ userId: 'cat' }] }] }], 'gdoc');
    clock.advance(1000);
    await add([{ annotationId: 'g3', from: bob, assignedTo: { userId: 'dan' }, commentData: [{ commentText: 'three' }] }], 'gdoc');
    clock.advance(1000);
    await add([{ annotationId: 'g4', from: bob, commentData: [{ commentText: 'four' }] }], 'gdoc2');
  });

  const ids = (data: { annotationId: string }[]) => data.map((a) => a.annotationId);

  it('lists the threads of a document newest first, or oldest first, with their comments', async () => {
    const { data, pageToken } = await client.comments.getCommentAnnotations({ organizationId: ORG, documentId: 'gdoc' });
    expect(ids(data)).toEqual(['g3', 'g2', 'g1']);
    expect(pageToken).toBeNull();
    expect(data[2]!.comments.map((c) => c.commentText)).toEqual(['one']);
    const asc = await client.comments.getCommentAnnotations({ organizationId: ORG, documentId: 'gdoc', order: 'asc' });
    expect(ids(asc.data)).toEqual(['g1', 'g2', 'g3']);
  });

  it('filters by documents, annotations, locations, statuses and the user involved', async () => {
    const get = async (filters: Record<string, unknown>) =>
      ids((await client.comments.getCommentAnnotations({ organizationId: ORG, order: 'asc', ...filters } as any)).data);
    expect(await get({ documentIds: ['gdoc', 'gdoc2', 'unknown-doc'] })).toEqual(['g1', 'g2', 'g3', 'g4']);
    expect(await get({ documentIds: ['gdoc'], annotationIds: ['g3', 'g1', 'g4'] })).toEqual(['g1', 'g3']);
    expect(await get({ documentId: 'gdoc', locationIds: ['p2', 'p9'] })).toEqual(['g2']);
    expect(await get({ documentId: 'gdoc', statusIds: ['open'] })).toEqual(['g1', 'g3']);
    expect(await get({ documentId: 'gdoc', statusIds: ['resolved', 'open'], locationIds: ['p1'] })).toEqual(['g1']);
  });

  it('pages with an opaque token, the same pages whatever is added meanwhile', async () => {
    const first = await client.comments.getCommentAnnotations({ organizationId: ORG, documentIds: ['gdoc', 'gdoc2'], pageSize: 2 });
    expect(ids(first.data)).toEqual(['g4', 'g3']);
    clock.advance(1000);
    await add([{ annotationId: 'g5', from: bob, commentData: [{ commentText: 'five' }] }], 'gdoc');
    const second = await client.comments.getCommentAnnotations({ organizationId: ORG, documentIds: ['gdoc', 'gdoc2'], pageSize: 2, pageToken: first.pageToken! });
    expect(ids(second.data)).toEqual(['g2', 'g1']);
    expect(second.pageToken).toBeNull();
  });

  it('refuses a forged token, a token of another query, and a missing or doubled document', async () => {
    const first = await client.comments.getCommentAnnotations({ organizationId: ORG, documentId: 'gdoc', pageSize: 1 });
    await expectCollabError(client.comments.getCommentAnnotations({ organizationId: ORG, documentId: 'gdoc', pageToken: `${first.pageToken}x` }), 'INVALID_ARGUMENT', /pageToken/);
    await expectCollabError(client.comments.getCommentAnnotations({ organizationId: ORG, documentId: 'gdoc2', pageToken: first.pageToken! }), 'INVALID_ARGUMENT', /pageToken/);
    await expectCollabError(client.comments.getCommentAnnotations({ organizationId: ORG } as any), 'INVALID_ARGUMENT', /documentId or documentIds/);
    await expectCollabError(client.comments.getCommentAnnotations({ organizationId: ORG, documentId: 'a', documentIds: ['b'] }), 'INVALID_ARGUMENT', /documentId or documentIds/);
    await expectCollabError(client.comments.getCommentAnnotations({ organizationId: ORG, documentIds: Array.from({ length: 31 }, (_, i) => `d${i}`) }), 'INVALID_ARGUMENT', /documentIds/);
  });

  it('is NOT_FOUND for an unknown organization or document', async () => {
    await expectCollabError(client.comments.getCommentAnnotations({ organizationId: 'nope', documentIds: ['gdoc'] }), 'NOT_FOUND', /organization nope/);
    await expectCollabError(client.comments.getCommentAnnotations({ organizationId: ORG, documentId: 'nope' }), 'NOT_FOUND', /document nope/);
  });
});

describe('Update Comment Annotations', () => {
  beforeAll(async () => {
    await add([
      { annotationId: 'u1', from: ann, commentData: [{ commentText: 'x' }] },
      { annotationId: 'u2', from: ann, priority: 'low', commentData: [{ commentText: 'y' }] },
    ]);
  });

  it('changes the threads alike and returns them in request order', async () => {
    clock.advance(5000);
    const { data } = await client.comments.updateCommentAnnotations({
      organizationId: ORG,
      documentId: DOC,
      annotationIds: ['u2', 'u1'],
      actionUser: bob,
      updatedData: { status: 'resolved', priority: 'high', assignedTo: { userId: 'ann' }, customList: ['a', 'b'], context: { team: 'x' }, location: { locationId: 'loc' } },
    });
    expect(data.map((a) => a.annotationId)).toEqual(['u2', 'u1']);
    for (const thread of data) {
      expect(thread).toMatchObject({
        status: 'resolved',
        priority: 'high',
        assignedTo: { userId: 'ann', name: 'Ann Lee', email: 'ann@example.com' },
        customList: ['a', 'b'],
        context: { team: 'x' },
        location: { locationId: 'loc' },
        lastUpdated: clock.nowMs(),
      });
    }
    const cleared = await client.comments.updateCommentAnnotations({
      organizationId: ORG,
      documentId: DOC,
      annotationIds: ['u1'],
      actionUser: bob,
      updatedData: { priority: null, assignedTo: null, context: null, location: null },
    });
    expect(cleared.data[0]).toMatchObject({ priority: null, assignedTo: null, context: null, status: 'resolved' });
    expect(cleared.data[0]!.location).toBeUndefined();
    const byLocation = await client.comments.getCommentAnnotations({ organizationId: ORG, documentId: DOC, locationIds: ['loc'] });
    expect(byLocation.data.map((a) => a.annotationId)).toEqual(['u2']);
  });

  it('is NOT_FOUND for a thread that is not in this document, and changes nothing', async () => {
    await expectCollabError(
      client.comments.updateCommentAnnotations({ organizationId: ORG, documentId: 'gdoc', annotationIds: ['g1', 'u1'], actionUser: bob, updatedData: { status: 'zzz' } }),
      'NOT_FOUND',
      /comment annotation u1 does not exist in document gdoc/,
    );
    const { data } = await client.comments.getCommentAnnotations({ organizationId: ORG, documentId: 'gdoc', annotationIds: ['g1'] });
    expect(data[0]!.status).toBe('open');
  });

  it('needs something to do, and bounded values', async () => {
    const base = { organizationId: ORG, documentId: DOC, annotationIds: ['u1'], actionUser: bob };
    await expectCollabError(client.comments.updateCommentAnnotations(base as any), 'INVALID_ARGUMENT', /updatedData with at least one field, or markAs/);
    await expectCollabError(client.comments.updateCommentAnnotations({ ...base, updatedData: {} }), 'INVALID_ARGUMENT', /updatedData/);
    await expectCollabError(client.comments.updateCommentAnnotations({ ...base, updatedData: { customList: Array(51).fill('x') } }), 'INVALID_ARGUMENT', /customList/);
    await expectCollabError(client.comments.updateCommentAnnotations({ ...base, annotationIds: ['u1', 'u1'], markAs: 'read' }), 'INVALID_ARGUMENT', /given twice/);
    await expectCollabError(client.comments.updateCommentAnnotations({ ...base, actionUser: undefined, markAs: 'read' } as any), 'INVALID_ARGUMENT', /actionUser is required/);
  });
});

describe('Delete Comment Annotations', () => {
  it('deletes threads with their comments; NOT_FOUND for an unknown one, deleting nothing', async () => {
    await add([
      { annotationId: 'd1', from: ann, commentData: [{ commentText: 'x' }] },
      { annotationId: 'd2', from: ann, commentData: [{ commentText: 'y' }] },
    ]);
    await expectCollabError(
      client.comments.deleteCommentAnnotations({ organizationId: ORG, documentId: DOC, annotationIds: ['d1', 'nope'], actionUser: ann }),
      'NOT_FOUND',
      /nope/,
    );
    expect((await client.comments.getCommentAnnotations({ organizationId: ORG, documentId: DOC, annotationIds: ['d1', 'd2'] })).data).toHaveLength(2);
    const res = await client.comments.deleteCommentAnnotations({ organizationId: ORG, documentId: DOC, annotationIds: ['d1', 'd2'], actionUser: ann });
    expect(res.status).toBe('success');
    expect((await client.comments.getCommentAnnotations({ organizationId: ORG, documentId: DOC, annotationIds: ['d1', 'd2'] })).data).toEqual([]);
    const { db } = server.running.database;
    expect(await db.comment.count({ where: { annotationId: { in: ['d1', 'd2'] } } })).toBe(0);
    // The ID is free again.
    await add([{ annotationId: 'd1', from: ann, commentData: [{ commentText: 'again' }] }]);
  });
});

describe('Get Comment Annotations Count', () => {
  const count = (userId: string, documentIds = ['cdoc'], statusIds?: string[]) =>
    client.comments.getCommentAnnotationsCount({ organizationId: ORG, documentIds, userId, ...(statusIds ? { statusIds } : {}) });

  beforeAll(async () => {
    // Readers of the organization's documents: members.
    await client.users.addUsers({ organizationId: ORG, users: [{ userId: 'cat' }] });
    clock.advance(1000);
    await add([{ annotationId: 'c1', from: ann, commentData: [{ commentText: 'by ann' }] }], 'cdoc');
    await add([{ annotationId: 'c2', from: bob, status: 'resolved', commentData: [{ commentText: 'by bob' }] }], 'cdoc');
  });

  it("counts threads and the unread ones: others' comments after the reader's mark", async () => {
    expect((await count('ann', ['cdoc', 'no-such-doc'])).data).toEqual({ cdoc: { total: 2, unread: 1 }, 'no-such-doc': { total: 0, unread: 0 } });
    expect((await count('bob')).data).toEqual({ cdoc: { total: 2, unread: 1 } });
    expect((await count('cat')).data).toEqual({ cdoc: { total: 2, unread: 2 } });
    expect((await count('cat', ['cdoc'], ['resolved'])).data).toEqual({ cdoc: { total: 1, unread: 1 } });
  });

  it('a read mark clears unread until someone else writes; markAs unread brings it back', async () => {
    clock.advance(1000);
    await client.comments.updateCommentAnnotations({ organizationId: ORG, documentId: 'cdoc', annotationIds: ['c1', 'c2'], actionUser: { userId: 'cat' }, markAs: 'read' });
    expect((await count('cat')).data.cdoc).toEqual({ total: 2, unread: 0 });
    clock.advance(1000);
    await client.comments.addComments({ organizationId: ORG, documentId: 'cdoc', annotationId: 'c1', commentData: [{ commentText: 'news', from: bob }] });
    expect((await count('cat')).data.cdoc).toEqual({ total: 2, unread: 1 });
    // Bob wrote it: not unread for him; his comment marks c1 read for him.
    expect((await count('bob')).data.cdoc).toEqual({ total: 2, unread: 0 });
    expect((await count('ann')).data.cdoc).toEqual({ total: 2, unread: 2 });
    await client.comments.updateCommentAnnotations({ organizationId: ORG, documentId: 'cdoc', annotationIds: ['c2'], actionUser: { userId: 'cat' }, markAs: 'unread' });
    expect((await count('cat')).data.cdoc).toEqual({ total: 2, unread: 2 });
    // A read mark alone changes neither lastUpdated nor anything else.
    const before = (await client.comments.getCommentAnnotations({ organizationId: ORG, documentId: 'cdoc', annotationIds: ['c2'] })).data[0]!;
    clock.advance(1000);
    const marked = await client.comments.updateCommentAnnotations({ organizationId: ORG, documentId: 'cdoc', annotationIds: ['c2'], actionUser: { userId: 'cat' }, markAs: 'read' });
    expect(marked.data[0]).toEqual(before);
  });

  it('counts nothing for a user who cannot read the document, and NOT_FOUND for an unknown organization', async () => {
    expect((await count('outsider')).data).toEqual({ cdoc: { total: 0, unread: 0 } });
    await expectCollabError(client.comments.getCommentAnnotationsCount({ organizationId: 'nope', documentIds: ['cdoc'], userId: 'ann' }), 'NOT_FOUND');
    await expectCollabError(client.comments.getCommentAnnotationsCount({ organizationId: ORG, documentIds: [], userId: 'ann' }), 'INVALID_ARGUMENT', /documentIds/);
  });

  it('keys the result by exactly the document IDs asked about', async () => {
    const { data } = await count('ann', ['constructor', 'toString', 'cdoc']);
    expect(Object.keys(data).sort()).toEqual(['cdoc', 'constructor', 'toString']);
    expect(data.constructor).toEqual({ total: 0, unread: 0 });
  });
});
