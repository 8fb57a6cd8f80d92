// Every comment write publishes its events (contract/events.ts) in its own
// unit of work: the outbox rows carry the payload shapes of the registry, the
// acting user, the organization and the document. A write that fails leaves
// neither rows nor events, on SQLite and on PostgreSQL.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { testClock } from '../../../server/lib/clock.js';
import { eventFromRow, type DomainEvent } from '../../../server/platform/events.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { usingPostgres } from '../../helpers/database.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;
const clock = testClock(Date.UTC(2026, 4, 1));
const where = { organizationId: 'org', documentId: 'doc' };
const ann = { userId: 'ann' };
const bob = { userId: 'bob' };
const ANN = { userId: 'ann', name: 'Ann', email: 'ann@example.com' };
const BOB = { userId: 'bob', name: 'Bob' };

beforeAll(async () => {
  server = await startTestServer({}, { overrides: { clock } });
  ws = await server.workspace();
  client = server.client(ws);
  await client.users.addUsers({ organizationId: 'org', users: [{ userId: 'ann', name: 'Ann', email: 'ann@example.com' }, { userId: 'bob', name: 'Bob' }] });
});
afterAll(() => server?.close());
beforeEach(async () => {
  await server.running.database.db.domainEvent.deleteMany({});
});

async function outbox(): Promise<DomainEvent[]> {
  const rows = await server.running.database.db.domainEvent.findMany({ orderBy: [{ occurredAt: 'asc' }, { id: 'asc' }] });
  return rows.map(eventFromRow);
}

const types = (events: DomainEvent[]) => events.map((e) => e.type);

async function open(annotationId: string, extra: Record<string, unknown> = {}) {
  const { data } = await client.comments.addCommentAnnotations({
    ...where,
    commentAnnotations: [{ annotationId, from: ann, commentData: [{ commentId: 'c1', commentText: 'first' }], ...extra }],
  });
  return data[0]!;
}

describe('events of comment writes', () => {
  it('Add Comment Annotations: one comment_annotation.add per thread with its first comments, no comment.add', async () => {
    const { data } = await client.comments.addCommentAnnotations({
      ...where,
      commentAnnotations: [
        { annotationId: 'e1', from: ann, commentData: [{ commentText: 'a' }, { commentText: 'b', from: bob }] },
        { annotationId: 'e2', from: bob, commentData: [{ commentText: 'c' }] },
      ],
    });
    const events = await outbox();
    expect(types(events)).toEqual(['comment_annotation.add', 'comment_annotation.add']);
    expect(events[0]).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'comment_annotation.add',
      apiKeyId: expect.any(String),
      organizationId: 'org',
      documentId: 'doc',
      actor: ANN,
      occurredAt: clock.nowMs(),
      payload: { annotation: data[0] },
    });
    expect(events[0]!.payload).toMatchObject({ annotation: { comments: [{ commentText: 'a' }, { commentText: 'b', from: BOB }] } });
    expect(events[1]).toMatchObject({ actor: BOB, payload: { annotation: data[1] } });
  });

  it('Update Comment Annotations: status, assignment and priority changes, only when the value changes', async () => {
    await open('e-upd', { priority: 'low' });
    await server.running.database.db.domainEvent.deleteMany({});
    clock.advance(10);
    const { data } = await client.comments.updateCommentAnnotations({
      ...where,
      annotationIds: ['e-upd'],
      actionUser: bob,
      updatedData: { status: 'resolved', assignedTo: ann, priority: 'high', customList: ['x'] },
    });
    const annotation = data[0]!;
    const events = await outbox();
    expect(types(events)).toEqual(['comment_annotation.status_change', 'comment_annotation.assign', 'comment_annotation.priority_change']);
    for (const event of events) expect(event).toMatchObject({ actor: BOB, organizationId: 'org', documentId: 'doc' });
    expect(events.map((e) => e.payload)).toEqual([
      { annotation, previousStatus: 'open', status: 'resolved' },
      { annotation, previousAssignee: null, assignedTo: ANN },
      { annotation, previousPriority: 'low', priority: 'high' },
    ]);

    await server.running.database.db.domainEvent.deleteMany({});
    await client.comments.updateCommentAnnotations({ ...where, annotationIds: ['e-upd'], actionUser: bob, updatedData: { status: 'resolved', assignedTo: ann, customList: ['y'], context: { a: 1 } } });
    expect(await outbox()).toEqual([]);
    await client.comments.updateCommentAnnotations({ ...where, annotationIds: ['e-upd'], actionUser: bob, markAs: 'read' });
    expect(await outbox()).toEqual([]);
    await client.comments.updateCommentAnnotations({ ...where, annotationIds: ['e-upd'], actionUser: ann, updatedData: { assignedTo: null, priority: null } });
    const unassigned = await outbox();
    expect(types(unassigned)).toEqual(['comment_annotation.assign', 'comment_annotation.priority_change']);
    expect(unassigned[0]!.payload).toMatchObject({ previousAssignee: ANN, assignedTo: null });
    expect(unassigned[1]!.payload).toMatchObject({ previousPriority: 'high', priority: null });
    expect(unassigned[0]!.actor).toEqual(ANN);
  });

  it('Delete Comment Annotations: comment_annotation.delete with the thread as it was', async () => {
    const before = await open('e-del');
    await server.running.database.db.domainEvent.deleteMany({});
    await client.comments.deleteCommentAnnotations({ ...where, annotationIds: ['e-del'], actionUser: bob });
    const events = await outbox();
    expect(events).toEqual([expect.objectContaining({ type: 'comment_annotation.delete', actor: BOB, documentId: 'doc', payload: { annotation: before } })]);
  });

  it('Add, Update, Delete Comments: comment.add per comment, comment.update with the previous text, comment.delete', async () => {
    await open('e-com');
    await server.running.database.db.domainEvent.deleteMany({});
    const { data: added } = await client.comments.addComments({
      ...where,
      annotationId: 'e-com',
      commentData: [
        { commentId: 'c2', commentText: 'two', from: bob, taggedUserContacts: [ann] },
        { commentId: 'c3', commentText: 'three', from: ann },
      ],
    });
    let events = await outbox();
    expect(types(events)).toEqual(['comment.add', 'comment.add']);
    expect(events[0]).toMatchObject({ actor: BOB, payload: { comment: added[0], annotation: { annotationId: 'e-com' } } });
    expect(events[1]).toMatchObject({ actor: ANN, payload: { comment: added[1] } });
    expect((events[0]!.payload as any).annotation.comments.map((c: any) => c.commentId)).toEqual(['c1', 'c2', 'c3']);

    await server.running.database.db.domainEvent.deleteMany({});
    const { data: updated } = await client.comments.updateComment({ ...where, annotationId: 'e-com', commentId: 'c2', actionUser: bob, updatedData: { commentText: 'TWO' } });
    events = await outbox();
    expect(events).toEqual([expect.objectContaining({ type: 'comment.update', actor: BOB, payload: expect.objectContaining({ comment: updated, previousCommentText: 'two' }) })]);
    await client.comments.updateComment({ ...where, annotationId: 'e-com', commentId: 'c2', actionUser: bob, updatedData: { commentText: 'TWO' } });
    expect(await outbox()).toHaveLength(1);

    await server.running.database.db.domainEvent.deleteMany({});
    await client.comments.deleteComments({ ...where, annotationId: 'e-com', commentIds: ['c3'], actionUser: ann });
    events = await outbox();
    expect(types(events)).toEqual(['comment.delete']);
    expect(events[0]).toMatchObject({ actor: ANN, payload: { comment: { commentId: 'c3', commentText: 'three' } } });
    expect((events[0]!.payload as any).annotation.comments.map((c: any) => c.commentId)).toEqual(['c1', 'c2']);
  });

  it('deleting the last comments publishes comment.delete for each, then comment_annotation.delete', async () => {
    const before = await open('e-last');
    await server.running.database.db.domainEvent.deleteMany({});
    await client.comments.deleteComments({ ...where, annotationId: 'e-last', commentIds: ['c1'], actionUser: bob });
    const events = await outbox();
    expect(types(events)).toEqual(['comment.delete', 'comment_annotation.delete']);
    expect((events[0]!.payload as any).annotation.comments).toEqual([]);
    expect(events[1]!.payload).toEqual({ annotation: before });
  });

  it('Add and Delete Reaction: comment.reaction_add and comment.reaction_delete', async () => {
    await open('e-rx');
    await server.running.database.db.domainEvent.deleteMany({});
    const { data: reaction } = await client.comments.addReaction({ ...where, annotationId: 'e-rx', commentId: 'c1', icon: '🎉', from: bob });
    await client.comments.deleteReaction({ ...where, annotationId: 'e-rx', commentId: 'c1', icon: '🎉', from: bob });
    const events = await outbox();
    expect(types(events)).toEqual(['comment.reaction_add', 'comment.reaction_delete']);
    expect(events[0]).toMatchObject({ actor: BOB, organizationId: 'org', documentId: 'doc', payload: { reaction, comment: { commentId: 'c1', reactions: [reaction] } } });
    expect(events[1]).toMatchObject({ actor: BOB, payload: { reaction, comment: { commentId: 'c1', reactions: [] } } });
  });
});

/** Refuses inserts into `table` whose `column` is `value`. */
async function refuseInsert(table: string, column: string, value: string) {
  const { db } = server.running.database;
  const name = `refuse_${table}_${value}`.toLowerCase().replace(/\W/g, '_');
  if (usingPostgres) {
    await db.$executeRawUnsafe(
      `CREATE FUNCTION ${name}() RETURNS trigger AS $$ BEGIN IF NEW."${column}" = '${value}' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
    );
    await db.$executeRawUnsafe(`CREATE TRIGGER ${name} BEFORE INSERT ON "${table}" FOR EACH ROW EXECUTE FUNCTION ${name}()`);
  } else {
    await db.$executeRawUnsafe(`CREATE TRIGGER ${name} BEFORE INSERT ON "${table}" WHEN NEW."${column}" = '${value}' BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
  }
}

async function snapshot() {
  const { db } = server.running.database;
  return {
    threads: await db.commentAnnotation.findMany({ orderBy: { id: 'asc' } }),
    comments: await db.comment.count(),
    mentions: await db.commentMention.count(),
    reactions: await db.commentReaction.count(),
    marks: await db.commentReadMark.findMany({ orderBy: [{ annotationId: 'asc' }, { userId: 'asc' }] }),
    documents: await db.document.count(),
    events: await db.domainEvent.count(),
  };
}

describe(`a failed comment write leaves neither rows nor events (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  beforeAll(async () => {
    // The read mark is the last row Add Comment Annotations writes before publishing.
    await refuseInsert('CommentReadMark', 'annotationId', 'doomed');
    // The outbox row of a comment.add: the comments are written by then.
    await refuseInsert('DomainEvent', 'type', 'comment.add');
  });

  it('Add Comment Annotations: threads, comments, mentions, the created document and the events of earlier threads roll back', async () => {
    const before = await snapshot();
    await expectCollabError(
      client.comments.addCommentAnnotations({
        organizationId: 'org',
        documentId: 'never-created',
        commentAnnotations: [
          { annotationId: 'fine', from: ann, commentData: [{ commentText: 'x', taggedUserContacts: [bob] }] },
          { annotationId: 'doomed', from: ann, commentData: [{ commentText: 'y' }] },
        ],
      }),
      'INTERNAL',
    );
    expect(await snapshot()).toEqual(before);
  });

  it('Add Comments: a failing outbox write takes the comments, mentions and read marks with it', async () => {
    await open('atomic');
    const before = await snapshot();
    clock.advance(10);
    await expectCollabError(
      client.comments.addComments({ ...where, annotationId: 'atomic', commentData: [{ commentText: 'z', from: bob, taggedUserContacts: [ann] }] }),
      'INTERNAL',
    );
    expect(await snapshot()).toEqual(before);
  });

  it('Update Comment Annotations: a failing projection rolls back the change and every event of the request', async () => {
    await open('projected');
    server.running.services.events.project(['comment_annotation.priority_change'], 'test-refuses-priority', async (event) => {
      if ((event.payload as { priority: string | null }).priority === 'refused') throw new Error('injected projection failure');
    });
    const before = await snapshot();
    clock.advance(10);
    await expectCollabError(
      client.comments.updateCommentAnnotations({ ...where, annotationIds: ['projected'], actionUser: bob, updatedData: { status: 'resolved', priority: 'refused' } }),
      'INTERNAL',
    );
    expect(await snapshot()).toEqual(before);
    // The status_change published before the failing projection is gone too.
    expect((await client.comments.getCommentAnnotations({ ...where, annotationIds: ['projected'] })).data[0]!.status).toBe('open');
  });
});

describe('projections of comment events', () => {
  it('with activity logging on, comment writes become activity records in the same transaction', async () => {
    await client.workspace.updateActivityConfig({ isEnabled: true });
    await open('logged');
    // (comment.add outbox rows are refused above, so this test uses the other writes.)
    await client.comments.updateCommentAnnotations({ ...where, annotationIds: ['logged'], actionUser: bob, updatedData: { status: 'resolved' } });
    await client.comments.addReaction({ ...where, annotationId: 'logged', commentId: 'c1', icon: '+1', from: ann });
    const { data } = await client.activities.getActivityLogs({ organizationId: 'org', order: 'asc' });
    const mine = data.filter((a) => a.targetEntityId === 'logged');
    expect(mine.map((a) => [a.actionType, a.actionUser.userId])).toEqual([
      ['comment_annotation.add', 'ann'],
      ['comment_annotation.status_change', 'bob'],
      ['comment.reaction_add', 'ann'],
    ]);
    await client.workspace.updateActivityConfig({ isEnabled: false });
  });
});
