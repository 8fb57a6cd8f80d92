// Comments inside a thread: Add, Get, Update and Delete Comments, through
// HTTP with the SDK.
import { describe, expect, it } from 'vitest';
import { expectCollabError } from '../../helpers/credentials.js';
import { server, client, clock, thread, ann, bob, useCommentsServer } from './fixture.js';

useCommentsServer();

async function open(annotationId: string, comments = [{ commentId: 'first', commentText: 'first' }]) {
  await client.comments.addCommentAnnotations({ ...thread, commentAnnotations: [{ annotationId, from: ann, commentData: comments }] });
  return { ...thread, annotationId };
}

describe('Add Comments', () => {
  it('appends comments in request order, whatever their IDs, and returns them', async () => {
    const t = await open('t-add');
    clock.advance(100);
    const { data } = await client.comments.addComments({
      ...t,
      commentData: [
        { commentId: 'zz', commentText: 'one', from: bob, taggedUserContacts: [ann] },
        { commentId: 'aa', commentText: 'two', commentHtml: '<b>two</b>', from: ann },
        { commentText: 'three', from: bob },
      ],
    });
    expect(data.map((c) => c.commentId)).toEqual(['zz', 'aa', expect.stringMatching(/^cmt_/)]);
    expect(data[0]).toEqual({
      commentId: 'zz',
      commentText: 'one',
      from: { userId: 'bob', name: 'Bob', email: 'bob@example.com' },
      taggedUserContacts: [{ userId: 'ann' }],
      createdAt: clock.nowMs(),
      lastUpdated: clock.nowMs(),
      reactions: [],
    });
    const all = await client.comments.getComments(t);
    expect(all.data.map((c) => c.commentText)).toEqual(['first', 'one', 'two', 'three']);
    const some = await client.comments.getComments({ ...t, commentIds: ['aa', 'first', 'nope'] });
    expect(some.data.map((c) => c.commentId)).toEqual(['first', 'aa']);
    const [annotation] = (await client.comments.getCommentAnnotations({ ...thread, annotationIds: ['t-add'] })).data;
    expect(annotation!.lastUpdated).toBe(clock.nowMs());
  });

  it('is ALREADY_EXISTS for a comment ID the thread has, NOT_FOUND for an unknown thread, INVALID_ARGUMENT without an author', async () => {
    const t = await open('t-dup');
    await expectCollabError(
      client.comments.addComments({ ...t, commentData: [{ commentId: 'new', commentText: 'x', from: ann }, { commentId: 'first', commentText: 'y', from: ann }] }),
      'ALREADY_EXISTS',
      /comment first already exists/,
    );
    expect((await client.comments.getComments(t)).data.map((c) => c.commentId)).toEqual(['first']);
    // The same comment ID in another thread is fine.
    await client.comments.addComments({ ...t, commentData: [{ commentId: 'new', commentText: 'x', from: ann }] });
    await client.comments.addComments({ ...thread, annotationId: 't-add', commentData: [{ commentId: 'new', commentText: 'x', from: ann }] });
    await expectCollabError(client.comments.addComments({ ...thread, annotationId: 'nope', commentData: [{ commentText: 'x', from: ann }] }), 'NOT_FOUND', /comment annotation nope/);
    await expectCollabError(client.comments.addComments({ ...thread, documentId: 'other', annotationId: 't-dup', commentData: [{ commentText: 'x', from: ann }] }), 'NOT_FOUND');
    await expectCollabError(client.comments.addComments({ ...t, commentData: [{ commentText: 'x' }] } as any), 'INVALID_ARGUMENT', /from is required/);
    await expectCollabError(client.comments.addComments({ ...t, commentData: [{ commentText: 'x'.repeat(50_001), from: ann }] }), 'INVALID_ARGUMENT', /commentText/);
    await expectCollabError(client.comments.addComments({ ...t, commentData: [{ commentText: 'x', from: ann, taggedUserContacts: Array(101).fill(ann) }] }), 'INVALID_ARGUMENT', /taggedUserContacts/);
  });

  it('is FAILED_PRECONDITION past 1000 comments in a thread', async () => {
    const t = await open('t-full');
    // 998 more rows straight into the table (the API path of each is tested above): 999 in all.
    const at = BigInt(clock.nowMs());
    const apiKeyId = (await server.running.database.db.commentAnnotation.findFirstOrThrow({ where: { id: 't-full' } })).apiKeyId;
    await server.running.database.db.comment.createMany({
      data: Array.from({ length: 998 }, (_, i) => ({
        apiKeyId,
        ...thread,
        annotationId: 't-full',
        id: `seed-${i}`,
        orderKey: server.running.services.ids.next('cmo'),
        text: `seed ${i}`,
        fromUserId: 'ann',
        fromUser: '{"userId":"ann"}',
        createdAt: at,
        lastUpdated: at,
      })),
    });
    await expectCollabError(
      client.comments.addComments({ ...t, commentData: [{ commentText: 'a', from: ann }, { commentText: 'b', from: ann }] }),
      'FAILED_PRECONDITION',
      /more than 1000/,
    );
    await client.comments.addComments({ ...t, commentData: [{ commentText: 'the thousandth', from: ann }] });
    const all = (await client.comments.getComments(t)).data;
    expect([all.length, all[0]!.commentId, all[999]!.commentText]).toEqual([1000, 'first', 'the thousandth']);
    await expectCollabError(client.comments.addComments({ ...t, commentData: [{ commentText: 'one too many', from: ann }] }), 'FAILED_PRECONDITION', /more than 1000/);
  });
});

describe('concurrent writes to one thread take turns', () => {
  async function seedComments(annotationId: string, count: number) {
    const at = BigInt(clock.nowMs());
    const apiKeyId = (await server.running.database.db.commentAnnotation.findFirstOrThrow({ where: { id: annotationId } })).apiKeyId;
    await server.running.database.db.comment.createMany({
      data: Array.from({ length: count }, (_, i) => ({
        apiKeyId,
        ...thread,
        annotationId,
        id: `seed-${i}`,
        orderKey: server.running.services.ids.next('cmo'),
        text: `seed ${i}`,
        fromUserId: 'ann',
        fromUser: '{"userId":"ann"}',
        createdAt: at,
        lastUpdated: at,
      })),
    });
  }

  it('ten adds at once to a thread of 995 comments: five succeed, five are FAILED_PRECONDITION', async () => {
    const t = await open('t-race');
    await seedComments('t-race', 994);
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => client.comments.addComments({ ...t, commentData: [{ commentText: `racer ${i}`, from: bob }] })));
    const statuses = outcomes.map((o) => (o.status === 'fulfilled' ? 'ok' : (o.reason as { status: string }).status)).sort();
    expect(statuses).toEqual([...Array(5).fill('FAILED_PRECONDITION'), ...Array(5).fill('ok')]);
    expect((await client.comments.getComments(t)).data).toHaveLength(1000);
  });

  it('a delete racing comment adds: each add either lands before the delete or is NOT_FOUND, never half-written', async () => {
    const t = await open('t-race-del');
    const adds = Array.from({ length: 5 }, (_, i) => client.comments.addComments({ ...t, commentData: [{ commentText: `racer ${i}`, from: bob }] }));
    const removal = client.comments.deleteCommentAnnotations({ ...thread, annotationIds: ['t-race-del'], actionUser: ann });
    const outcomes = await Promise.allSettled([...adds, removal]);
    for (const o of outcomes) if (o.status === 'rejected') expect((o.reason as { status: string }).status).toBe('NOT_FOUND');
    expect(outcomes[5]!.status).toBe('fulfilled');
    expect(await server.running.database.db.comment.count({ where: { annotationId: 't-race-del' } })).toBe(0);
  });
});

describe('Get Comments', () => {
  it('is NOT_FOUND for an unknown thread', async () => {
    await expectCollabError(client.comments.getComments({ ...thread, annotationId: 'nope' }), 'NOT_FOUND');
  });
});

describe('Update Comment', () => {
  it('edits text, HTML and mentions; returns the comment', async () => {
    const t = await open('t-upd', [{ commentId: 'c', commentText: 'old', commentHtml: '<i>old</i>' } as any]);
    const involving = async (userId: string) =>
      (await client.comments.getCommentAnnotations({ ...thread, userId, annotationIds: ['t-upd'] })).data.map((a) => a.annotationId);
    expect(await involving('bob')).toEqual([]);
    clock.advance(100);
    const { data } = await client.comments.updateComment({ ...t, commentId: 'c', actionUser: ann, updatedData: { commentText: 'new', commentHtml: null, taggedUserContacts: [bob] } });
    expect(data).toMatchObject({ commentId: 'c', commentText: 'new', taggedUserContacts: [{ userId: 'bob', name: 'Bob', email: 'bob@example.com' }], lastUpdated: clock.nowMs() });
    expect(data.commentHtml).toBeUndefined();
    expect(data.createdAt).toBeLessThan(data.lastUpdated);
    // Bob (a member of the organization) is now involved through the mention.
    expect(await involving('bob')).toEqual(['t-upd']);
  });

  it('is NOT_FOUND for an unknown comment or thread, INVALID_ARGUMENT without changes', async () => {
    const t = await open('t-upd2');
    await expectCollabError(client.comments.updateComment({ ...t, commentId: 'nope', actionUser: ann, updatedData: { commentText: 'x' } }), 'NOT_FOUND', /comment nope/);
    await expectCollabError(client.comments.updateComment({ ...thread, annotationId: 'nope', commentId: 'first', actionUser: ann, updatedData: { commentText: 'x' } }), 'NOT_FOUND');
    await expectCollabError(client.comments.updateComment({ ...t, commentId: 'first', actionUser: ann, updatedData: {} }), 'INVALID_ARGUMENT', /at least one field/);
  });
});

describe('Delete Comments', () => {
  it('deletes comments with their reactions; deleting the last ones deletes the thread', async () => {
    const t = await open('t-del', [
      { commentId: 'a', commentText: 'a' },
      { commentId: 'b', commentText: 'b' },
      { commentId: 'c', commentText: 'c' },
    ]);
    await client.comments.addReaction({ ...t, commentId: 'a', icon: '👍', from: bob });
    await expectCollabError(client.comments.deleteComments({ ...t, commentIds: ['a', 'nope'], actionUser: ann }), 'NOT_FOUND', /comment nope/);
    expect((await client.comments.getComments(t)).data).toHaveLength(3);
    await client.comments.deleteComments({ ...t, commentIds: ['a', 'c'], actionUser: ann });
    expect((await client.comments.getComments(t)).data.map((c) => c.commentId)).toEqual(['b']);
    expect(await server.running.database.db.commentReaction.count({ where: { annotationId: 't-del' } })).toBe(0);
    await client.comments.deleteComments({ ...t, commentIds: ['b'], actionUser: ann });
    await expectCollabError(client.comments.getComments(t), 'NOT_FOUND');
  });
});
