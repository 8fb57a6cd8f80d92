/**
 * Add Comment Annotations mentioning 20 users (the bench's write scenario):
 * the statements one request sends, named by verb and table, held to what
 * its rows need (issue #24: 27 before, besides BEGIN and COMMIT), and its
 * answer, built from the rows it wrote rather than read back, equal to what a
 * read of the thread gives.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

const ORG = 'stmt-org';
const DOC = 'stmt-doc';
const tagged = Array.from({ length: 20 }, (_, i) => `stmt-u${i}`);

/** "SELECT Document", "INSERT Comment": the verb and the first table of a statement, whichever path sent it. */
function named(sql: string): string {
  const verb = sql.trim().split(/\s+/)[0]!.toUpperCase();
  const table = /(?:FROM|INTO|UPDATE)\s+(?:[`"]main[`"]\.)?[`"](\w+)[`"]/i.exec(sql)?.[1];
  return table === undefined ? verb : `${verb} ${table}`;
}

describe('Add Comment Annotations mentioning 20 users', () => {
  let server: TestServer;
  let workspace: WorkspaceCredentials;
  let statements: string[] = [];
  let recording = false;
  const headers = () => ({ 'x-service-api-key': workspace.apiKey, 'x-service-auth-token': workspace.authToken });
  const body = (commentText: string) => ({
    data: {
      organizationId: ORG,
      documentId: DOC,
      commentAnnotations: [{ from: { userId: 'stmt-author' }, commentData: [{ commentText, taggedUserContacts: tagged.map((userId) => ({ userId })) }] }],
    },
  });

  beforeAll(async () => {
    server = await startTestServer({}, { overrides: { onQuery: (sql) => recording && statements.push(sql) } });
    workspace = await server.workspace();
    const users = ['stmt-author', ...tagged].map((userId, i) => ({ userId, name: `User ${i}`, email: `${userId}@example.com` }));
    expect((await server.post('/v2/users/add', { data: { organizationId: ORG, documentId: DOC, createDocument: true, users } }, headers())).status).toBe(200);
    const all = tagged.filter((_, i) => i % 2 === 0);
    const mine = tagged.filter((_, i) => i % 2 === 1);
    const set = (data: unknown) => server.post('/v2/notifications/config/set', { data }, headers());
    expect((await set({ organizationId: ORG, documentIds: [DOC], userIds: all, config: { inbox: 'ALL', email: 'ALL' } })).status).toBe(200);
    expect((await set({ organizationId: ORG, userIds: mine, config: { inbox: 'MINE', email: 'NONE' } })).status).toBe(200);
  });
  afterAll(async () => server?.close());

  it('sends 16 statements besides the transaction, each one a row needs', async () => {
    // The first request fills the credential and settings caches, as a running server has them.
    expect((await server.post('/v2/commentannotations/add', body('warm-up'), headers())).status).toBe(200);
    statements = [];
    recording = true;
    const answer = await server.post('/v2/commentannotations/add', body('Everyone, please review.'), headers());
    recording = false;
    expect(answer.status).toBe(200);
    const work = statements.map(named).filter((s) => !/^(BEGIN|COMMIT|ROLLBACK)$/.test(s));
    expect(work).toEqual([
      'SELECT Document', // the document, held for the unit of work (it exists: so does its organization)
      'SELECT User', // names and emails of the mentioned users
      'INSERT CommentAnnotation',
      'INSERT Comment',
      'INSERT CommentMention',
      'INSERT CommentReadMark',
      'INSERT DomainEvent',
      // The notification projection: configs on the document and organization defaults (once for both audiences),
      'SELECT NotificationConfig',
      'SELECT NotificationDefaultConfig',
      // who can read the document (no folder: the folder tree is not read),
      'SELECT Organization',
      'SELECT Document',
      'SELECT UserGroupMember',
      'SELECT Grant',
      // the recipients' emails, and the rows.
      'SELECT User',
      'INSERT Notification',
      'INSERT NotificationRecipient',
    ]);
  });

  it('answers what a read of the thread gives, with every input kind stored and decoded', async () => {
    const added = await server.post(
      '/v2/commentannotations/add',
      {
        data: {
          organizationId: ORG,
          documentId: DOC,
          commentAnnotations: [
            {
              annotationId: 'stmt-rich',
              from: { userId: 'stmt-author', name: 'Given name' },
              assignedTo: { userId: 'stmt-u1' },
              status: 'in_progress',
              priority: 'high',
              customList: ['a', 'b'],
              context: { access: { team: 'x' }, nested: [1, { deep: true }] },
              location: { locationId: 'loc-1', extra: 'kept' },
              commentData: [
                { commentText: 'first', commentHtml: '<p>first</p>', taggedUserContacts: [{ userId: 'stmt-u2' }, { userId: 'unknown-user', email: 'given@example.com' }] },
                { commentText: 'second ü 📎', from: { userId: 'stmt-u3' } },
              ],
            },
            { from: { userId: 'stmt-u4' }, commentData: [{ commentText: 'plain' }] },
          ],
        },
      },
      headers(),
    );
    expect(added.status).toBe(200);
    const ids = (added.body.result.data as { annotationId: string }[]).map((a) => a.annotationId);
    const read = await server.post('/v2/commentannotations/get', { data: { organizationId: ORG, annotationIds: ids, documentIds: [DOC] } }, headers());
    expect(read.status).toBe(200);
    const byId = new Map((read.body.result.data as { annotationId: string }[]).map((a) => [a.annotationId, a]));
    expect(ids.map((id) => byId.get(id))).toEqual(added.body.result.data);
  });
});
