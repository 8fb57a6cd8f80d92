// The content domains together, through HTTP only: a comment write reaches
// inboxes (notification projection) and the activity log (activity
// projection) in its own transaction; Get All User Data reads what the
// domains registered; erasure and migration are durable jobs that walk the
// owned-data registry across every domain.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;
const ORG = 'e2e-org';
const DOC = 'e2e-doc';
const user = (userId: string) => ({ userId, name: `Name ${userId}`, email: `${userId}@example.com` });

beforeAll(async () => {
  server = await startTestServer();
  ws = await server.workspace();
  client = server.client(ws);
  await client.users.addUsers({ organizationId: ORG, documentId: DOC, createDocument: true, users: ['ann', 'bob', 'cat'].map(user) });
  // dan exists in the organization's other document only: he cannot read DOC.
  await client.users.addUsers({ organizationId: ORG, documentId: 'other-doc', createDocument: true, users: [user('dan')] });
  await client.organizations.updateDocumentAccess({ organizationId: ORG, documentId: DOC, accessType: 'restricted' });
  await client.workspace.updateActivityConfig({ isEnabled: true });
});
afterAll(() => server?.close());

const inbox = async (userId: string, documentId = DOC) =>
  (await client.notifications.getNotifications({ organizationId: ORG, documentId, userId })).data;

async function runJobs() {
  await server.running.services.jobs.runDue();
}

describe('comments, notifications, activity, user data, erasure and migration together', () => {
  let annotationId = '';

  it('a thread mentioning bob and dan reaches bob only (dan cannot read the document, ann acted)', async () => {
    const [thread] = (
      await client.comments.addCommentAnnotations({
        organizationId: ORG,
        documentId: DOC,
        commentAnnotations: [{ from: { userId: 'ann' }, commentData: [{ commentText: 'Bob, Dan: look', taggedUserContacts: [{ userId: 'bob' }, { userId: 'dan' }] }] }],
      })
    ).data;
    annotationId = thread!.annotationId;
    const [notification] = await inbox('bob');
    expect(notification).toMatchObject({
      notificationSource: 'comment',
      actionUser: { userId: 'ann', name: 'Name ann' },
      metadata: { apiKey: ws.apiKey, documentId: DOC, organizationId: ORG },
      notifyUsersByUserId: { bob: true },
    });
    expect(notification!.displayHeadlineMessageTemplateData).toMatchObject({ recipientUser: { userId: 'bob' } });
    expect(await inbox('ann')).toEqual([]);
    expect(await inbox('cat')).toEqual([]); // MINE by default, not involved
    expect((await client.notifications.getNotifications({ organizationId: ORG, documentId: 'other-doc', userId: 'dan' })).data).toEqual([]);
  });

  it('the same write is in the activity log with its acting user', async () => {
    const { data } = await client.activities.getActivityLogs({ organizationId: ORG, documentId: DOC, actionTypes: ['comment_annotation.add'] });
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({ featureType: 'comment', actionUser: { userId: 'ann' }, targetEntityId: annotationId, metadata: { apiKey: ws.apiKey } });
  });

  it('cat with ALL on the document hears of a reply; bob with NONE does not, even when mentioned', async () => {
    await client.notifications.setNotificationConfig({ organizationId: ORG, documentIds: [DOC], userIds: ['cat'], config: { inbox: 'ALL' } });
    await client.notifications.setNotificationConfig({ organizationId: ORG, userIds: ['bob'], config: { inbox: 'NONE' } });
    await client.comments.addComments({
      organizationId: ORG,
      documentId: DOC,
      annotationId,
      commentData: [{ commentText: 'a reply for bob', from: { userId: 'ann' }, taggedUserContacts: [{ userId: 'bob' }] }],
    });
    expect(await inbox('cat')).toHaveLength(1);
    expect(await inbox('bob')).toHaveLength(1); // only the first one
  });

  it('Get All User Data reads comments, reactions and notifications the domains registered', async () => {
    await client.comments.addReaction({ organizationId: ORG, documentId: DOC, annotationId, commentId: (await firstCommentId()), icon: 'thumbs_up', from: { userId: 'bob' } });
    const bob = (await client.userData.getAllUserData({ organizationId: ORG, userId: 'bob' })).data;
    expect(bob.comments.length).toBeGreaterThanOrEqual(1); // mentioned in
    expect(bob.reactions).toHaveLength(1);
    // The one he received, and the one his reaction caused (to ann, the comment's author).
    expect(bob.notifications).toHaveLength(2);
  });

  it("erasing ann removes what she wrote and caused; the thread stays for cat's comment, opened by the anonymous user", async () => {
    await client.comments.addComments({ organizationId: ORG, documentId: DOC, annotationId, commentData: [{ commentText: 'cat was here', from: { userId: 'cat' } }] });
    // A message that does not name ann, which the erasure must leave alone.
    await client.recordings.addRecording({
      organizationId: ORG,
      documentId: DOC,
      recordingType: 'screen',
      mode: 'floating',
      recordedTime: { duration: 1000 },
      displayName: 'cat on screen',
      attachments: [],
      from: { userId: 'cat' },
    });
    const { jobId } = (await client.userData.deleteAllUserData({ userId: 'ann' })).data;
    expect((await client.userData.getDeleteAllUserDataStatus({ jobId })).data.status).toBe('pending');
    await runJobs();
    expect((await client.userData.getDeleteAllUserDataStatus({ jobId })).data.status).toBe('completed');

    const ann = await client.userData.getAllUserData({ organizationId: ORG, userId: 'ann' });
    expect(ann.data).toEqual({ comments: [], reactions: [], recordings: [], notifications: [], judgments: [] });
    expect(ann.nextPageToken).toBeNull();
    // cat's comment keeps the thread readable, opened by the anonymous user.
    const [thread] = (await client.comments.getCommentAnnotations({ organizationId: ORG, documentId: DOC })).data;
    expect(thread!.from.userId).toBe('anonymous');
    expect(thread!.comments.map((c) => c.commentText)).toEqual(['cat was here']);
    expect(JSON.stringify(await client.activities.getActivityLogs({ organizationId: ORG }))).not.toContain('"ann"');
    const left = JSON.stringify(await client.notifications.getNotifications({ organizationId: ORG, documentId: DOC }));
    // cat (ALL) still has bob's reaction to ann's comment: neither ann's name nor her comment's text is in it.
    expect(left).toContain('reacted');
    expect(left).not.toContain('Name ann');
    expect(left).not.toContain('Bob, Dan: look');
    // The outbox (future webhook deliveries) keeps no message naming her, whoever acted.
    const outbox = await server.running.database.db.domainEvent.findMany({ select: { body: true } });
    expect(outbox.length).toBeGreaterThan(0);
    expect(outbox.map((e) => e.body).join('\n')).not.toMatch(/"userId":"ann"|Name ann/);
  });

  it('migrating the document moves its threads, notifications and activity; the old ID is unknown', async () => {
    const { migrationId } = (await client.migrations.migrateDocuments({ organizationId: ORG, documentId: DOC, newDocumentId: 'e2e-doc-v2' })).data;
    await runJobs();
    expect((await client.migrations.getMigrateDocumentsStatus({ organizationId: ORG, migrationId })).data.status).toBe('completed');
    expect((await client.comments.getCommentAnnotations({ organizationId: ORG, documentId: 'e2e-doc-v2' })).data).toHaveLength(1);
    expect(await inbox('cat', 'e2e-doc-v2')).toHaveLength(1);
    expect((await client.activities.getActivityLogs({ organizationId: ORG, documentId: 'e2e-doc-v2' })).data.length).toBeGreaterThan(0);
    await expect(client.comments.getCommentAnnotations({ organizationId: ORG, documentId: DOC })).rejects.toMatchObject({ status: 'NOT_FOUND' });
    await expect(client.notifications.getNotifications({ organizationId: ORG, documentId: DOC })).rejects.toMatchObject({ status: 'NOT_FOUND' });
  });

  it('deleting the organization removes every domain\'s rows through the registry', async () => {
    await client.organizations.deleteOrganization({ organizationId: ORG });
    const db = server.running.database.db;
    const left = await Promise.all([
      db.commentAnnotation.count(),
      db.comment.count(),
      db.notification.count(),
      db.activity.count(),
      db.domainEvent.count(),
      db.grant.count(),
      db.document.count(),
    ]);
    expect(left).toEqual([0, 0, 0, 0, 0, 0, 0]);
  });
});

async function firstCommentId(): Promise<string> {
  const [thread] = (await client.comments.getCommentAnnotations({ organizationId: ORG, documentId: DOC })).data;
  return thread!.comments[0]!.commentId;
}
