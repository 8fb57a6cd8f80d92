// An agent run's findings as suggestion threads (the comments module's
// addAgentSuggestions and deleteOpenAgentSuggestions, called as the runner
// calls them), read back through HTTP: their type, source and agent block,
// their `private` / `public` visibility in reads made for a user, their
// events, the clearing of a page's untouched suggestions, and other
// applications seeing none of it. A user's thread reads as it always has.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TCommentAnnotation } from '../../../contract/comments/schemas.js';
import type { Client } from '../../../sdk/index.js';
import type { AgentFindingInput } from '../../../server/domains/comments/agent-suggestions.js';
import { testClock } from '../../../server/lib/clock.js';
import type { Caller } from '../../../server/platform/caller.js';
import { eventFromRow } from '../../../server/platform/events.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;
let app: Caller;
const clock = testClock(Date.UTC(2026, 5, 1));
const ORG = 'org';
const DOC = 'site';
const PAGE = 'https://example.com/pricing';
const OTHER_PAGE = 'https://example.com/about';
const AGENT_USER = { userId: 'agent:spell', name: 'Spell checker' };

async function callerOf(credentials: WorkspaceCredentials): Promise<Caller> {
  const { apiKey } = await server.cli<{ apiKey: { id: string } }>('workspace', 'get', '--api-key', credentials.apiKey);
  return { apiKeyId: apiKey.id, apiKey: credentials.apiKey };
}

const comments = () => server.running.services.agentSuggestions;

function finding(findingId: string, url = PAGE): AgentFindingInput {
  return {
    findingId,
    url,
    title: `Typo ${findingId}`,
    description: 'Recieve is misspelled <here>.',
    severity: 'low',
    findingType: 'text',
    issueType: 'spelling',
    confidence: 90,
    suggestion: 'Write "receive".',
    htmlSelector: 'main > p:nth-child(2)',
    targetText: 'Recieve',
    occurrence: 1,
  };
}

function suggest(findings: AgentFindingInput[], options: { agentId?: string; executionId?: string; visibility?: 'private' | 'public'; caller?: Caller } = {}) {
  const agentId = options.agentId ?? 'spell';
  return comments().addAgentSuggestions(options.caller ?? app, {
    organizationId: ORG,
    documentId: DOC,
    visibility: options.visibility ?? 'private',
    author: agentId === 'spell' ? AGENT_USER : { userId: `agent:${agentId}` },
    agent: { agentId, executionId: options.executionId ?? 'run-1' },
    findings,
  });
}

async function threads(filters: Record<string, unknown> = {}): Promise<TCommentAnnotation[]> {
  return (await client.comments.getCommentAnnotations({ organizationId: ORG, documentId: DOC, order: 'asc', pageSize: 100, ...filters })).data;
}

beforeAll(async () => {
  server = await startTestServer({}, { overrides: { clock } });
  ws = await server.workspace();
  client = server.client(ws);
  app = await callerOf(ws);
  // mia is a member of the organization; ned can read the document through a grant on it alone.
  await client.users.addUsers({ organizationId: ORG, users: [{ userId: 'mia', name: 'Mia' }] });
  await client.permissions.addPermissions({ user: { userId: 'ned' }, permissions: { resources: [{ type: 'document', id: DOC, organizationId: ORG }] } });
});
afterAll(() => server?.close());

beforeEach(async () => {
  const all = await threads();
  if (all.length > 0) {
    await client.comments.deleteCommentAnnotations({ organizationId: ORG, documentId: DOC, annotationIds: all.map((t) => t.annotationId), actionUser: { userId: 'mia' } });
  }
});

describe('addAgentSuggestions', () => {
  it('opens one suggestion thread per finding, in one write, readable with its type, source and agent block', async () => {
    await server.running.database.db.domainEvent.deleteMany({});
    const placed = await suggest([finding('f1'), finding('f2', OTHER_PAGE)], { executionId: 'run-7' });
    expect(placed.map((p) => p.findingId)).toEqual(['f1', 'f2']);

    const read = await threads();
    expect(read.map((t) => t.annotationId)).toEqual(placed.map((p) => p.annotationId));
    const first = read[0]!;
    expect(first).toMatchObject({
      annotationId: placed[0]!.annotationId,
      organizationId: ORG,
      documentId: DOC,
      status: 'open',
      priority: null,
      assignedTo: null,
      context: null,
      from: AGENT_USER,
      type: 'suggestion',
      sourceType: 'agent',
      agent: {
        agentId: 'spell',
        executionId: 'run-7',
        url: PAGE,
        visibility: 'private',
        reason: {
          findingId: 'f1',
          title: 'Typo f1',
          description: 'Recieve is misspelled <here>.',
          severity: 'low',
          findingType: 'text',
          issueType: 'spelling',
          confidence: 90,
          suggestion: 'Write "receive".',
          htmlSelector: 'main > p:nth-child(2)',
          targetText: 'Recieve',
          occurrence: 1,
        },
      },
    });
    expect(first.location).toBeUndefined();
    expect(first.comments).toEqual([
      {
        commentId: placed[0]!.commentId,
        commentText: 'Typo f1\n\nRecieve is misspelled <here>.\n\nSuggestion: Write "receive".',
        commentHtml: '<p><strong>Typo f1</strong></p><p>Recieve is misspelled &lt;here&gt;.</p><p><em>Suggestion:</em> Write &quot;receive&quot;.</p>',
        from: AGENT_USER,
        taggedUserContacts: [],
        createdAt: first.createdAt,
        lastUpdated: first.createdAt,
        reactions: [],
      },
    ]);
    expect(read[1]!.agent?.url).toBe(OTHER_PAGE);

    // The path of Add Comment Annotations: one comment_annotation.add per thread, the thread as read.
    const events = (await server.running.database.db.domainEvent.findMany({ orderBy: [{ occurredAt: 'asc' }, { id: 'asc' }] })).map(eventFromRow);
    expect(events.map((e) => e.type)).toEqual(['comment_annotation.add', 'comment_annotation.add']);
    expect(events[0]!.actor).toEqual(AGENT_USER);
    expect((events[0]!.payload as { annotation: TCommentAnnotation }).annotation).toEqual(first);
  });

  it('is filtered by type, sourceType and agentId in Get Comment Annotations', async () => {
    await suggest([finding('f1')]);
    await suggest([finding('g1')], { agentId: 'a11y' });
    await client.comments.addCommentAnnotations({ organizationId: ORG, documentId: DOC, commentAnnotations: [{ annotationId: 'by-mia', from: { userId: 'mia' }, commentData: [{ commentText: 'hi' }] }] });
    const ids = (list: TCommentAnnotation[]) => list.map((t) => t.agent?.reason.findingId ?? t.annotationId);
    expect(ids(await threads({ type: 'suggestion' }))).toEqual(['f1', 'g1']);
    expect(ids(await threads({ type: 'comment' }))).toEqual(['by-mia']);
    expect(ids(await threads({ sourceType: 'agent' }))).toEqual(['f1', 'g1']);
    expect(ids(await threads({ sourceType: 'user' }))).toEqual(['by-mia']);
    expect(ids(await threads({ agentId: 'a11y' }))).toEqual(['g1']);
    expect(ids(await threads({ agentId: 'nobody' }))).toEqual([]);
  });

  it('leaves a user thread reading exactly as before: no type, sourceType or agent', async () => {
    const at = clock.nowMs();
    const { data } = await client.comments.addCommentAnnotations({
      organizationId: ORG,
      documentId: DOC,
      commentAnnotations: [{ annotationId: 'plain', from: { userId: 'mia' }, commentData: [{ commentId: 'c1', commentText: 'Hello' }] }],
    });
    const expected = {
      annotationId: 'plain',
      organizationId: ORG,
      documentId: DOC,
      status: 'open',
      priority: null,
      assignedTo: null,
      customList: [],
      context: null,
      from: { userId: 'mia', name: 'Mia' },
      comments: [{ commentId: 'c1', commentText: 'Hello', from: { userId: 'mia', name: 'Mia' }, taggedUserContacts: [], createdAt: at, lastUpdated: at, reactions: [] }],
      createdAt: at,
      lastUpdated: at,
    };
    expect(data[0]).toStrictEqual(expected);
    expect((await threads())[0]).toStrictEqual(expected);
  });
});

describe('visibility in reads made for a user', () => {
  it('private: organization members only; public: anyone who can read the document', async () => {
    const [priv] = await suggest([finding('private-one')], { visibility: 'private' });
    const [pub] = await suggest([finding('public-one')], { visibility: 'public', executionId: 'run-2' });
    // Both readers write in both threads, so both are involved in each (Get made for a user lists only those).
    for (const userId of ['mia', 'ned']) {
      for (const placed of [priv!, pub!]) {
        await client.comments.addComments({ organizationId: ORG, documentId: DOC, annotationId: placed.annotationId, commentData: [{ commentText: `seen by ${userId}`, from: { userId } }] });
      }
    }
    const visibleTo = async (userId: string) => (await threads({ userId })).map((t) => t.agent?.reason.findingId);
    expect(await visibleTo('mia')).toEqual(['private-one', 'public-one']);
    expect(await visibleTo('ned')).toEqual(['public-one']);
    // The application's own read (no userId) sees both.
    expect((await threads()).map((t) => t.agent?.visibility)).toEqual(['private', 'public']);

    // The count of threads a user may see (involved or not) follows the same rule.
    const count = async (userId: string) =>
      (await client.comments.getCommentAnnotationsCount({ organizationId: ORG, documentIds: [DOC], userId })).data[DOC]!.total;
    expect(await count('mia')).toBe(2);
    expect(await count('ned')).toBe(1);
  });

  it("notifies by the same rule: a private suggestion reaches the organization's members only", async () => {
    await client.notifications.setNotificationConfig({ organizationId: ORG, userIds: ['mia', 'ned'], config: { inbox: 'ALL' } });
    const [priv] = await suggest([finding('notified-private')], { visibility: 'private' });
    const [pub] = await suggest([finding('notified-public')], { visibility: 'public', executionId: 'run-2' });
    const { data } = await client.notifications.getNotifications({ organizationId: ORG, documentId: DOC, pageSize: 100 });
    const recipientsOf = (annotationId: string) =>
      Object.keys(data.find((n) => (n.notificationSourceData as { annotationId?: string }).annotationId === annotationId)?.notifyUsersByUserId ?? {}).sort();
    expect(recipientsOf(priv!.annotationId)).toEqual(['mia']);
    expect(recipientsOf(pub!.annotationId)).toEqual(['mia', 'ned']);
  });

  it('a members-only thread stays members-only when its context changes', async () => {
    const [priv] = await suggest([finding('private-ctx')], { visibility: 'private' });
    await client.comments.updateCommentAnnotations({
      organizationId: ORG,
      documentId: DOC,
      annotationIds: [priv!.annotationId],
      actionUser: { userId: 'mia' },
      updatedData: { context: { nested: { x: 1 } } },
    });
    const count = async (userId: string) =>
      (await client.comments.getCommentAnnotationsCount({ organizationId: ORG, documentIds: [DOC], userId })).data[DOC]!.total;
    expect(await count('mia')).toBe(1);
    expect(await count('ned')).toBe(0);
  });
});

describe('deleteOpenAgentSuggestions', () => {
  it("deletes the agent's open suggestions on that page only, except the given run's, through the delete path", async () => {
    const old = await suggest([finding('old-open'), finding('old-resolved'), finding('old-in-progress'), finding('old-other-page', OTHER_PAGE)], { executionId: 'run-1' });
    const [current] = await suggest([finding('current')], { executionId: 'run-2' });
    const [otherAgent] = await suggest([finding('other-agent')], { agentId: 'a11y', executionId: 'run-9' });
    const byFinding = new Map(old.map((p) => [p.findingId, p.annotationId]));
    const setStatus = (annotationId: string, status: string) =>
      client.comments.updateCommentAnnotations({ organizationId: ORG, documentId: DOC, annotationIds: [annotationId], actionUser: { userId: 'mia' }, updatedData: { status } });
    await setStatus(byFinding.get('old-resolved')!, 'resolved');
    await setStatus(byFinding.get('old-in-progress')!, 'in_progress');

    await server.running.database.db.domainEvent.deleteMany({});
    const deleted = await comments().deleteOpenAgentSuggestions(app, { organizationId: ORG, documentId: DOC, agentId: 'spell', url: PAGE, exceptExecutionId: 'run-2' });
    expect(deleted).toBe(1);
    expect((await threads()).map((t) => t.agent?.reason.findingId)).toEqual(['old-resolved', 'old-in-progress', 'old-other-page', 'current', 'other-agent']);

    const events = (await server.running.database.db.domainEvent.findMany({})).map(eventFromRow);
    expect(events.map((e) => [e.type, (e.payload as { annotation: TCommentAnnotation }).annotation.annotationId, e.actor?.userId])).toEqual([
      ['comment_annotation.delete', byFinding.get('old-open'), AGENT_USER.userId],
    ]);

    // Without exceptExecutionId the current run's open suggestion goes too; the other agent's stays.
    expect(await comments().deleteOpenAgentSuggestions(app, { organizationId: ORG, documentId: DOC, agentId: 'spell', url: PAGE })).toBe(1);
    expect((await threads()).map((t) => t.annotationId)).not.toContain(current!.annotationId);
    expect((await threads()).map((t) => t.annotationId)).toContain(otherAgent!.annotationId);
    expect(await comments().deleteOpenAgentSuggestions(app, { organizationId: ORG, documentId: DOC, agentId: 'spell', url: PAGE })).toBe(0);
  });
});

describe('other applications', () => {
  it('see none of the suggestions and cannot delete them', async () => {
    const placed = await suggest([finding('mine')], { visibility: 'public' });
    const otherWs = await server.workspace();
    const other = server.client(otherWs);
    const otherApp = await callerOf(otherWs);

    await expectCollabError(other.comments.getCommentAnnotations({ organizationId: ORG, documentId: DOC }), 'NOT_FOUND');
    // Their own organization and document of the same IDs hold only their own suggestions.
    const theirs = await suggest([finding('theirs')], { caller: otherApp, visibility: 'public' });
    const seen = (await other.comments.getCommentAnnotations({ organizationId: ORG, documentId: DOC, type: 'suggestion' })).data;
    expect(seen.map((t) => t.annotationId)).toEqual([theirs[0]!.annotationId]);
    expect(await comments().deleteOpenAgentSuggestions(otherApp, { organizationId: ORG, documentId: DOC, agentId: 'spell', url: PAGE, exceptExecutionId: 'none' })).toBe(1);
    expect((await threads()).map((t) => t.annotationId)).toEqual([placed[0]!.annotationId]);
  });
});
