// The comment tables in the owned-data registry: a document's threads follow
// it to a new ID and go with it (and with its organization); erasing a user
// removes what they wrote and keeps others' threads readable; Get All User
// Data reads a user's comments and reactions in a stable keyset order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZUserDataComment, ZUserDataReaction } from '../../../contract/users/user-data-schemas.js';
import type { Client } from '../../../sdk/index.js';
import { testClock } from '../../../server/lib/clock.js';
import type { UserDataCursor, UserDataFeature } from '../../../server/platform/owned-data.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;
let apiKeyId: string;
const clock = testClock(Date.UTC(2026, 5, 1));
const ANONYMOUS = { userId: 'anonymous', name: 'Anonymous' };

beforeAll(async () => {
  server = await startTestServer({}, { overrides: { clock } });
  ws = await server.workspace();
  client = server.client(ws);
  apiKeyId = (await server.cli<{ apiKey: { id: string } }>('workspace', 'get', '--api-key', ws.apiKey)).apiKey.id;
});
afterAll(() => server?.close());

const inUnitOfWork = <T>(work: () => Promise<T>) => server.running.database.uow.run(work);
const owned = () => server.running.services.owned;

async function rowsOf(organizationId: string, documentId: string) {
  const { db } = server.running.database;
  const where = { organizationId, documentId };
  return {
    threads: await db.commentAnnotation.count({ where }),
    comments: await db.comment.count({ where }),
    mentions: await db.commentMention.count({ where }),
    reactions: await db.commentReaction.count({ where }),
    marks: await db.commentReadMark.count({ where }),
  };
}

async function seedDocument(organizationId: string, documentId: string) {
  await client.comments.addCommentAnnotations({
    organizationId,
    documentId,
    commentAnnotations: [{ annotationId: `${organizationId}-${documentId}`, from: { userId: 'amy' }, commentData: [{ commentId: 'c', commentText: 'x', taggedUserContacts: [{ userId: 'bo' }] }] }],
  });
  await client.comments.addReaction({ organizationId, documentId, annotationId: `${organizationId}-${documentId}`, commentId: 'c', icon: '👍', from: { userId: 'bo' } });
}

describe('document and organization lifecycle', () => {
  it('moveDocument re-keys every comment row to the new document', async () => {
    await seedDocument('mv', 'old');
    const before = await rowsOf('mv', 'old');
    expect(before).toEqual({ threads: 1, comments: 1, mentions: 1, reactions: 1, marks: 1 });
    await inUnitOfWork(() => owned().moveDocument({ apiKeyId, organizationId: 'mv', documentId: 'old' }, 'new'));
    expect(await rowsOf('mv', 'old')).toEqual({ threads: 0, comments: 0, mentions: 0, reactions: 0, marks: 0 });
    expect(await rowsOf('mv', 'new')).toEqual(before);
    const { data } = await client.comments.getCommentAnnotations({ organizationId: 'mv', documentId: 'new' });
    expect(data).toEqual([expect.objectContaining({ annotationId: 'mv-old', documentId: 'new', comments: [expect.objectContaining({ reactions: [expect.objectContaining({ icon: '👍' })] })] })]);
    await expectCollabError(client.comments.getCommentAnnotations({ organizationId: 'mv', documentId: 'old' }), 'NOT_FOUND');
    await client.comments.addComments({ organizationId: 'mv', documentId: 'new', annotationId: 'mv-old', commentData: [{ commentText: 'after the move', from: { userId: 'amy' } }] });
  });

  it('Delete Document and Delete Organization remove the comment rows they own, and only those', async () => {
    await seedDocument('del', 'd1');
    await seedDocument('del', 'd2');
    await seedDocument('del2', 'd1');
    await client.organizations.deleteDocument({ organizationId: 'del', documentId: 'd1' });
    expect(await rowsOf('del', 'd1')).toEqual({ threads: 0, comments: 0, mentions: 0, reactions: 0, marks: 0 });
    expect((await rowsOf('del', 'd2')).threads).toBe(1);
    await client.organizations.deleteOrganization({ organizationId: 'del' });
    expect(await rowsOf('del', 'd2')).toEqual({ threads: 0, comments: 0, mentions: 0, reactions: 0, marks: 0 });
    expect((await rowsOf('del2', 'd1')).threads).toBe(1);
    // Deleted with its document: the annotation ID can be used again.
    await seedDocument('del', 'd1');
  });

  it('deleting a folder removes the comments of the documents in it', async () => {
    await client.organizations.addFolder({ organizationId: 'fold', folderId: 'f' });
    await client.organizations.addDocument({ organizationId: 'fold', documentId: 'in-f', folderId: 'f' });
    await seedDocument('fold', 'in-f');
    await client.organizations.deleteFolder({ organizationId: 'fold', folderId: 'f' });
    expect(await rowsOf('fold', 'in-f')).toEqual({ threads: 0, comments: 0, mentions: 0, reactions: 0, marks: 0 });
  });
});

async function listAll(feature: UserDataFeature, organizationId: string, userId: string, take: number) {
  const source = owned().userDataSource(feature)!;
  const items: unknown[] = [];
  let after: UserDataCursor | undefined;
  for (;;) {
    const page = await source.list({ apiKeyId, apiKey: ws.apiKey, organizationId, userId }, after, take);
    items.push(...page.map((p) => p.item));
    if (page.length < take) return items;
    after = page[page.length - 1]!.cursor;
  }
}

describe('user data and erasure', () => {
  const ORG = 'gdpr';
  const where = { organizationId: ORG, documentId: 'doc' };

  beforeAll(async () => {
    await client.users.addUsers({ organizationId: ORG, users: [{ userId: 'zed', name: 'Zed', email: 'zed@example.com' }, { userId: 'amy', name: 'Amy' }] });
    // zed alone: goes with zed.
    await client.comments.addCommentAnnotations({ ...where, commentAnnotations: [{ annotationId: 'solo', from: { userId: 'zed' }, commentData: [{ commentText: 'just me' }] }] });
    clock.advance(10);
    // zed opened it and is assigned; amy answered, mentioning zed, and reacted to zed's comment; zed reacted to amy's.
    await client.comments.addCommentAnnotations({
      ...where,
      commentAnnotations: [{ annotationId: 'shared', from: { userId: 'zed' }, assignedTo: { userId: 'zed' }, commentData: [{ commentId: 'z1', commentText: 'by zed' }] }],
    });
    clock.advance(10);
    await client.comments.addComments({ ...where, annotationId: 'shared', commentData: [{ commentId: 'a1', commentText: 'by amy', from: { userId: 'amy' }, taggedUserContacts: [{ userId: 'zed' }, { userId: 'cy' }] }] });
    await client.comments.addReaction({ ...where, annotationId: 'shared', commentId: 'z1', icon: 'amy-on-zed', from: { userId: 'amy' } });
    await client.comments.addReaction({ ...where, annotationId: 'shared', commentId: 'a1', icon: 'zed-on-amy', from: { userId: 'zed' } });
    clock.advance(10);
    // amy's thread where zed is only mentioned.
    await client.comments.addCommentAnnotations({
      ...where,
      commentAnnotations: [{ annotationId: 'mention', from: { userId: 'amy' }, commentData: [{ commentId: 'm1', commentText: 'hey zed', taggedUserContacts: [{ userId: 'zed' }] }] }],
    });
    // In another organization: not part of this organization's user data.
    await client.comments.addCommentAnnotations({ organizationId: 'elsewhere', documentId: 'd', commentAnnotations: [{ annotationId: 'far', from: { userId: 'zed' }, commentData: [{ commentText: 'far' }] }] });
  });

  it("lists a user's comments (written or mentioned in) and reactions, every one once in any page size, in the export shapes", async () => {
    for (const take of [1, 2, 100]) {
      const comments = await listAll('comments', ORG, 'zed', take);
      expect(comments.map((c) => (c as { commentId: string }).commentId)).toEqual([expect.stringMatching(/^cmt_/), 'z1', 'a1', 'm1']);
      for (const item of comments) expect(ZUserDataComment.strict().parse(item)).toEqual(item);
      expect(comments[2]).toMatchObject({ annotationId: 'shared', documentId: 'doc', organizationId: ORG, commentText: 'by amy', reactions: [{ icon: 'zed-on-amy' }] });
      const reactions = await listAll('reactions', ORG, 'zed', take);
      expect(reactions).toEqual([{ reactionId: expect.stringMatching(/^rct_/), icon: 'zed-on-amy', from: { userId: 'zed', name: 'Zed', email: 'zed@example.com' }, createdAt: expect.any(Number), annotationId: 'shared', commentId: 'a1', documentId: 'doc', organizationId: ORG }]);
      for (const item of reactions) expect(ZUserDataReaction.strict().parse(item)).toEqual(item);
    }
    expect(await listAll('comments', ORG, 'nobody', 10)).toEqual([]);
  });

  it('erasure removes what the user wrote and keeps the threads others write in, anonymized; it can run again', async () => {
    const { db } = server.running.database;
    await inUnitOfWork(() => owned().eraseUser({ apiKeyId, userId: 'zed' }));
    const after = async () => (await client.comments.getCommentAnnotations({ ...where, order: 'asc' })).data;
    const threads = await after();
    expect(threads.map((t) => t.annotationId)).toEqual(['shared', 'mention']);
    const [shared, mention] = threads;
    expect(shared).toMatchObject({ from: ANONYMOUS, assignedTo: null });
    expect(shared!.comments).toEqual([
      expect.objectContaining({ commentId: 'a1', from: { userId: 'amy', name: 'Amy' }, taggedUserContacts: [{ userId: 'cy' }], reactions: [] }),
    ]);
    expect(mention!.comments[0]!.taggedUserContacts).toEqual([]);
    // Others' free text stays as they wrote it ("hey zed"); zed's identity is nowhere.
    expect(JSON.stringify(threads)).not.toMatch(/"userId":"zed"|Zed|zed@example/);
    expect(await db.commentMention.count({ where: { userId: 'zed' } })).toBe(0);
    expect(await db.commentReadMark.count({ where: { userId: 'zed' } })).toBe(0);
    expect(await listAll('comments', ORG, 'zed', 100)).toEqual([]);
    expect(await listAll('reactions', ORG, 'zed', 100)).toEqual([]);
    // Other organizations too: erasure is per application.
    expect(await db.commentAnnotation.count({ where: { id: 'far' } })).toBe(0);
    // Others' data stays.
    expect((await listAll('comments', ORG, 'amy', 100)).map((c) => (c as { commentId: string }).commentId)).toEqual(['a1', 'm1']);

    await inUnitOfWork(() => owned().eraseUser({ apiKeyId, userId: 'zed' }));
    expect(await after()).toEqual(threads);
  });
});

describe('through the operations that walk the registry', () => {
  const ORG = 'ops';
  const runJobs = () => server.running.services.jobs.runDue();

  it('Migrate Documents moves the threads; Get All User Data returns the comments and reactions; Delete All User Data erases them', async () => {
    await client.comments.addCommentAnnotations({
      organizationId: ORG,
      documentId: 'draft',
      commentAnnotations: [{ annotationId: 'ops-t', from: { userId: 'una' }, commentData: [{ commentId: 'u1', commentText: 'una here' }] }],
    });
    await client.comments.addComments({ organizationId: ORG, documentId: 'draft', annotationId: 'ops-t', commentData: [{ commentId: 'v1', commentText: 'vic here', from: { userId: 'vic' }, taggedUserContacts: [{ userId: 'una' }] }] });
    await client.comments.addReaction({ organizationId: ORG, documentId: 'draft', annotationId: 'ops-t', commentId: 'v1', icon: '+1', from: { userId: 'una' } });

    const { migrationId } = (await client.migrations.migrateDocuments({ organizationId: ORG, documentId: 'draft', newDocumentId: 'final' })).data;
    await runJobs();
    expect((await client.migrations.getMigrateDocumentsStatus({ organizationId: ORG, migrationId })).data.status).toBe('completed');
    const moved = (await client.comments.getCommentAnnotations({ organizationId: ORG, documentId: 'final' })).data;
    expect(moved.map((t) => [t.annotationId, t.documentId, t.comments.length])).toEqual([['ops-t', 'final', 2]]);

    const exported = (await client.userData.getAllUserData({ organizationId: ORG, userId: 'una' })).data;
    expect(exported.comments.map((c) => [c.commentId, c.documentId])).toEqual([
      ['u1', 'final'],
      ['v1', 'final'],
    ]);
    expect(exported.reactions.map((r) => [r.icon, r.commentId, r.documentId])).toEqual([['+1', 'v1', 'final']]);

    const { jobId } = (await client.userData.deleteAllUserData({ userId: 'una' })).data;
    await runJobs();
    expect((await client.userData.getDeleteAllUserDataStatus({ jobId })).data.status).toBe('completed');
    expect(await client.userData.getAllUserData({ organizationId: ORG, userId: 'una' })).toMatchObject({ data: { comments: [], reactions: [] } });
    const [left] = (await client.comments.getCommentAnnotations({ organizationId: ORG, documentId: 'final' })).data;
    expect(left).toMatchObject({ from: ANONYMOUS, comments: [{ commentId: 'v1', taggedUserContacts: [], reactions: [] }] });
  });
});
