// Reads made for a user (Get Comment Annotations with userId, Get Comment
// Annotations Count): only documents the user can read, only threads the user
// is involved in (Get), and a thread with context only when the user's access
// fields on the document match it (feature-level access context).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;
const ORG = 'org';
const DOC = 'secret';
const everyone = [{ userId: 'dee' }, { userId: 'eve' }, { userId: 'fay' }, { userId: 'gus' }];

beforeAll(async () => {
  server = await startTestServer();
  ws = await server.workspace();
  client = server.client(ws);
  await client.organizations.addDocument({ organizationId: ORG, documentId: DOC, accessType: 'restricted' });
  const grant = (userId: string, accessFields?: string[]) =>
    client.permissions.addPermissions({
      user: { userId },
      permissions: { resources: [{ type: 'document', id: DOC, organizationId: ORG, ...(accessFields ? { context: { accessFields } } : {}) }] },
    });
  await grant('dee', ['team:design', 'level:3']);
  await grant('eve', ['team:eng']);
  await grant('gus');
  // fay has no grant on the restricted document.
  const thread = (annotationId: string, context?: Record<string, unknown>) => ({
    annotationId,
    from: { userId: 'author' },
    ...(context ? { context } : {}),
    commentData: [{ commentText: annotationId, taggedUserContacts: everyone }],
  });
  await client.comments.addCommentAnnotations({
    organizationId: ORG,
    documentId: DOC,
    commentAnnotations: [
      thread('t-plain'),
      thread('t-design', { team: 'design' }),
      thread('t-eng', { team: 'eng' }),
      thread('t-nested-only', { meta: { team: 'eng' }, tags: ['x'], none: null }),
      thread('t-design-3', { team: 'design', level: 3 }),
      thread('t-design-4', { team: 'design', level: 4 }),
    ],
  });
});
afterAll(() => server?.close());

async function visibleTo(userId: string, pageSize?: number): Promise<string[]> {
  const seen: string[] = [];
  let pageToken: string | undefined;
  do {
    const page = await client.comments.getCommentAnnotations({ organizationId: ORG, documentId: DOC, userId, order: 'asc', pageSize, pageToken });
    seen.push(...page.data.map((a) => a.annotationId));
    pageToken = page.pageToken ?? undefined;
  } while (pageToken !== undefined);
  // Threads added in one request share createdAt: they come in annotationId order.
  return seen;
}

describe('Get Comment Annotations for a user', () => {
  it("shows a thread with context only when the user's access fields hold every scalar entry", async () => {
    expect(await visibleTo('dee')).toEqual(['t-design', 't-design-3', 't-nested-only', 't-plain']);
    expect(await visibleTo('eve')).toEqual(['t-eng', 't-nested-only', 't-plain']);
    expect(await visibleTo('gus')).toEqual(['t-nested-only', 't-plain']);
  });

  it('shows nothing of a document the user cannot read', async () => {
    expect(await visibleTo('fay')).toEqual([]);
    const { data } = await client.comments.getCommentAnnotations({ organizationId: ORG, documentIds: [DOC, 'elsewhere'], userId: 'fay' });
    expect(data).toEqual([]);
  });

  it('pages through the visible threads only, every one once, whatever the page size', async () => {
    for (const pageSize of [1, 2, 3]) expect(await visibleTo('dee', pageSize)).toEqual(['t-design', 't-design-3', 't-nested-only', 't-plain']);
  });

  it('without userId, the application reads every thread', async () => {
    const { data } = await client.comments.getCommentAnnotations({ organizationId: ORG, documentId: DOC, order: 'asc' });
    expect(data.map((a) => a.annotationId)).toEqual(['t-design', 't-design-3', 't-design-4', 't-eng', 't-nested-only', 't-plain']);
  });

  it('follows the grants: a changed access field changes what the user sees', async () => {
    await client.permissions.addPermissions({
      user: { userId: 'gus' },
      permissions: { resources: [{ type: 'document', id: DOC, organizationId: ORG, context: { accessFields: ['team:eng'] } }] },
    });
    expect(await visibleTo('gus')).toEqual(['t-eng', 't-nested-only', 't-plain']);
  });
});

describe('the user involved', () => {
  it('is who opened the thread, wrote or is mentioned in a comment, or is assigned; nobody else', async () => {
    await client.users.addUsers({ organizationId: 'team', users: ['opener', 'writer', 'mentioned', 'assignee', 'bystander'].map((userId) => ({ userId })) });
    await client.comments.addCommentAnnotations({
      organizationId: 'team',
      documentId: 'board',
      commentAnnotations: [{ annotationId: 'inv', from: { userId: 'opener' }, assignedTo: { userId: 'assignee' }, commentData: [{ commentText: 'hi', taggedUserContacts: [{ userId: 'mentioned' }] }] }],
    });
    await client.comments.addComments({ organizationId: 'team', documentId: 'board', annotationId: 'inv', commentData: [{ commentText: 'me', from: { userId: 'writer' } }] });
    for (const userId of ['opener', 'writer', 'mentioned', 'assignee']) {
      const { data } = await client.comments.getCommentAnnotations({ organizationId: 'team', documentId: 'board', userId });
      expect({ userId, threads: data.map((a) => a.annotationId) }).toEqual({ userId, threads: ['inv'] });
    }
    const { data } = await client.comments.getCommentAnnotations({ organizationId: 'team', documentId: 'board', userId: 'bystander' });
    expect(data).toEqual([]);
  });
});

describe('Get Comment Annotations Count for a user', () => {
  it('counts only the threads the user may see', async () => {
    const count = async (userId: string) => (await client.comments.getCommentAnnotationsCount({ organizationId: ORG, documentIds: [DOC], userId })).data[DOC];
    expect(await count('dee')).toEqual({ total: 4, unread: 4 });
    expect(await count('eve')).toEqual({ total: 3, unread: 3 });
    expect(await count('fay')).toEqual({ total: 0, unread: 0 });
    await client.comments.updateCommentAnnotations({ organizationId: ORG, documentId: DOC, annotationIds: ['t-design', 't-eng'], actionUser: { userId: 'dee' }, markAs: 'read' });
    expect(await count('dee')).toEqual({ total: 4, unread: 3 });
  });
});
