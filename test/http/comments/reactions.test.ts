// Reactions on a comment: Add and Delete Reaction, through HTTP with the SDK.
import { describe, expect, it } from 'vitest';
import { expectCollabError } from '../../helpers/credentials.js';
import { appHeaders } from '../../helpers/server.js';
import { server, ws, client, clock, thread, ann, bob, useCommentsServer } from './fixture.js';

useCommentsServer();

async function open(annotationId: string, comments = [{ commentId: 'first', commentText: 'first' }]) {
  await client.comments.addCommentAnnotations({ ...thread, commentAnnotations: [{ annotationId, from: ann, commentData: comments }] });
  return { ...thread, annotationId };
}

describe('Add Reaction and Delete Reaction', () => {
  it('adds one reaction per user and icon, returns it, and removes it', async () => {
    const t = await open('t-react');
    clock.advance(100);
    const { data: reaction } = await client.comments.addReaction({ ...t, commentId: 'first', icon: 'thumbs_up', from: bob });
    expect(reaction).toEqual({ reactionId: expect.stringMatching(/^rct_/), icon: 'thumbs_up', from: { userId: 'bob', name: 'Bob', email: 'bob@example.com' }, createdAt: clock.nowMs() });
    await client.comments.addReaction({ ...t, commentId: 'first', icon: '❤️', from: bob });
    await client.comments.addReaction({ ...t, commentId: 'first', icon: 'thumbs_up', from: ann });
    await expectCollabError(client.comments.addReaction({ ...t, commentId: 'first', icon: 'thumbs_up', from: bob }), 'ALREADY_EXISTS', /reaction thumbs_up of user bob/);
    const [comment] = (await client.comments.getComments(t)).data;
    expect(comment!.reactions.map((r) => [r.from.userId, r.icon])).toEqual([
      ['bob', 'thumbs_up'],
      ['bob', '❤️'],
      ['ann', 'thumbs_up'],
    ]);
    await client.comments.deleteReaction({ ...t, commentId: 'first', icon: 'thumbs_up', from: bob });
    await expectCollabError(client.comments.deleteReaction({ ...t, commentId: 'first', icon: 'thumbs_up', from: bob }), 'NOT_FOUND', /reaction thumbs_up of user bob does not exist/);
    const [after] = (await client.comments.getComments(t)).data;
    expect(after!.reactions.map((r) => [r.from.userId, r.icon])).toEqual([
      ['bob', '❤️'],
      ['ann', 'thumbs_up'],
    ]);
  });

  it('is NOT_FOUND for an unknown thread or comment, INVALID_ARGUMENT for a bad icon', async () => {
    const t = await open('t-react2');
    await expectCollabError(client.comments.addReaction({ ...t, commentId: 'nope', icon: 'x', from: bob }), 'NOT_FOUND', /comment nope/);
    await expectCollabError(client.comments.addReaction({ ...thread, annotationId: 'nope', commentId: 'first', icon: 'x', from: bob }), 'NOT_FOUND');
    await expectCollabError(client.comments.deleteReaction({ ...t, commentId: 'nope', icon: 'x', from: bob }), 'NOT_FOUND');
    for (const icon of ['', 'x'.repeat(65)]) {
      const res = await server.post('/v2/commentannotations/comments/reactions/add', { data: { ...t, commentId: 'first', icon, from: bob } }, appHeaders(ws));
      expect([res.status, res.body.error?.status]).toEqual([400, 'INVALID_ARGUMENT']);
      expect(res.body.error.message).toMatch(/data\.icon/);
    }
  });
});
