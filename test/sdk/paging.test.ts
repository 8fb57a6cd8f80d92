// Iteration over paged lists: which operations have it (read off the
// contract, at runtime and in the types alike), and what it does against the
// real server: every item once, in order, with the same filters on every page.
import { readFileSync } from 'node:fs';
import type { AppRoute } from '@ts-rest/core';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { TDocument, TOrganization } from '../../contract/access/schemas.js';
import { CollabError, createClient, type Client, type Contract, type PageItem } from '../../sdk/index.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';

/** `group.operation` of every paged operation, as the types see them. */
type PagedName = {
  [G in keyof Contract]: {
    [K in keyof Contract[G]]: Contract[G][K] extends AppRoute ? ([PageItem<Contract[G][K]>] extends [never] ? never : `${G & string}.${K & string}`) : never;
  }[keyof Contract[G]];
}[keyof Contract];

// Compiled against the types: a name that is not paged fails to compile, and
// `missing` below fails when the contract gains a paged operation not listed.
const PAGED = [
  'users.getUsers',
  'organizations.getOrganizations',
  'organizations.getDocuments',
  'comments.getCommentAnnotations',
  'notifications.getNotifications',
  'activities.getActivityLogs',
  'recordings.getRecordings',
  'webhooks.getWebhookEndpoints',
  'webhooks.getWebhookMessages',
  'webhooks.getWebhookAttempts',
  'memory.getJudgments',
  'agents.getAgentVersions',
  'agentRuns.listAgentExecutions',
  'workflowDefinitions.listWorkflowDefinitions',
  'workflowExecutions.listWorkflowExecutions',
] as const satisfies readonly PagedName[];
const missing: [Exclude<PagedName, (typeof PAGED)[number]>] extends [never] ? true : false = true;

/** The operations that have iterate and pages at runtime. */
function pagedAtRuntime(client: Client): string[] {
  return Object.entries(client).flatMap(([group, operations]) =>
    Object.entries(operations as Record<string, object>)
      .filter(([, method]) => 'iterate' in method && 'pages' in method)
      .map(([name]) => `${group}.${name}`),
  );
}

describe('which operations are paged', () => {
  it('is the same set at runtime, in the types and in the README', () => {
    expect(missing).toBe(true);
    const client = createClient({ baseUrl: 'http://127.0.0.1:1' });
    expect(pagedAtRuntime(client).sort()).toEqual([...PAGED].sort());

    const readme = readFileSync(new URL('../../sdk/README.md', import.meta.url), 'utf8');
    const sentence = /^Paged operations: ([\s\S]*?)\.\n/m.exec(readme)?.[1] ?? '';
    const listed = [...sentence.matchAll(/`([a-zA-Z]+\.[a-zA-Z]+)`/g)].map((m) => m[1]);
    expect(listed.sort()).toEqual([...PAGED].sort());
  });

  it('types the items from the contract, and only paged operations have iterate', () => {
    const client = createClient({ baseUrl: 'http://127.0.0.1:1' });
    expectTypeOf<PageItem<Contract['organizations']['getOrganizations']>>().toEqualTypeOf<TOrganization>();
    expectTypeOf(client.organizations.getDocuments.iterate).returns.toEqualTypeOf<AsyncGenerator<TDocument, void, undefined>>();
    expectTypeOf(client.organizations.getDocuments.pages).returns.toEqualTypeOf<
      AsyncGenerator<{ status: 'success'; message: string; data: TDocument[]; pageToken: string | null }, void, undefined>
    >();
    // @ts-expect-error not a paged operation
    expect(client.workspace.getActivityConfig.iterate).toBeUndefined();
    // @ts-expect-error getAllUserData pages by nextPageToken, over several lists at once: not a list
    expect(client.userData.getAllUserDataV2.pages).toBeUndefined();
  });
});

describe('iterating against the server', () => {
  let server: TestServer;
  let ws: WorkspaceCredentials;
  /** Bodies of the requests the counted client sent. */
  const sent: Array<{ path: string; data: Record<string, unknown> }> = [];
  let client: Client;

  beforeAll(async () => {
    server = await startTestServer();
    ws = await server.workspace();
    client = createClient({
      baseUrl: server.url,
      apiKey: ws.apiKey,
      authToken: ws.authToken,
      fetch: async (input, init) => {
        sent.push({ path: new URL(String(input)).pathname, data: (JSON.parse(String(init?.body)) as { data: Record<string, unknown> }).data });
        return fetch(input, init);
      },
    });
    for (let i = 1; i <= 7; i++) await client.organizations.addOrganization({ organizationId: `org-${i}`, organizationName: `Org ${i}` });
    for (let i = 1; i <= 5; i++) await client.organizations.addDocument({ organizationId: 'org-1', documentId: `doc-${i}` });
    for (let i = 1; i <= 3; i++) await client.organizations.addDocument({ organizationId: 'org-2', documentId: `other-${i}` });
  });
  afterAll(() => server?.close());

  it('yields every item once, in the order of one big page, following pageToken until null', async () => {
    const whole = (await client.organizations.getOrganizations({ pageSize: 1000 })).data.map((o) => o.organizationId);
    expect(whole).toHaveLength(7);
    sent.length = 0;
    const iterated: string[] = [];
    for await (const organization of client.organizations.getOrganizations.iterate({ pageSize: 3 })) iterated.push(organization.organizationId);
    expect(iterated).toEqual(whole);
    expect(sent.map((s) => s.data)).toEqual([{ pageSize: 3 }, { pageSize: 3, pageToken: expect.any(String) }, { pageSize: 3, pageToken: expect.any(String) }]);
  });

  it('pages() yields whole results; the last has pageToken null', async () => {
    const pages = [];
    for await (const page of client.organizations.getOrganizations.pages({ pageSize: 3 })) pages.push(page);
    expect(pages.map((p) => p.data.length)).toEqual([3, 3, 1]);
    expect(pages.map((p) => p.pageToken === null)).toEqual([false, false, true]);
    expect(pages.every((p) => p.status === 'success')).toBe(true);
  });

  it('sends the same filters on every page', async () => {
    sent.length = 0;
    const ids: string[] = [];
    for await (const document of client.organizations.getDocuments.iterate({ organizationId: 'org-1', pageSize: 2 })) ids.push(document.id);
    expect(ids.sort()).toEqual(['doc-1', 'doc-2', 'doc-3', 'doc-4', 'doc-5']);
    expect(sent).toHaveLength(3);
    for (const request of sent) expect(request).toMatchObject({ path: '/v2/organizations/documents/get', data: { organizationId: 'org-1', pageSize: 2 } });
  });

  it('resumes from a pageToken given in data', async () => {
    const first = await client.organizations.getDocuments({ organizationId: 'org-1', pageSize: 2 });
    const rest: string[] = [];
    for await (const document of client.organizations.getDocuments.iterate({ organizationId: 'org-1', pageSize: 2, pageToken: first.pageToken! })) rest.push(document.id);
    expect([...first.data.map((d) => d.id), ...rest].sort()).toEqual(['doc-1', 'doc-2', 'doc-3', 'doc-4', 'doc-5']);
  });

  it('stops requesting when the loop is left', async () => {
    sent.length = 0;
    for await (const organization of client.organizations.getOrganizations.iterate({ pageSize: 2 })) {
      expect(organization.organizationId).toBe('org-1');
      break;
    }
    expect(sent).toHaveLength(1);
  });

  it('throws the error of a page from the loop', async () => {
    const error = await (async () => {
      for await (const document of client.organizations.getDocuments.iterate({ organizationId: 'no-such-org' })) throw new Error(`unexpected ${document.id}`);
    })().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CollabError);
    expect((error as CollabError).status).toBe('NOT_FOUND');
  });
});
