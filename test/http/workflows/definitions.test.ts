// Workflow definitions: create, read, list, update with ifVersion, delete
// (tombstone and purge), the graph checks, and another application's view.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';
import { reviewDefinition } from './fixtures.js';

let server: TestServer;
let a: WorkspaceCredentials;
let client: Client;
let clientB: Client;

beforeAll(async () => {
  server = await startTestServer();
  a = await server.workspace();
  client = server.client(a);
  clientB = server.client(await server.workspace());
});
afterAll(async () => {
  await server?.close();
});

describe('Create Workflow Definition and Get Workflow Definition', () => {
  it('stores version 1 with its compiled view, and reads it back', async () => {
    const created = (await client.workflowDefinitions.createWorkflowDefinition(reviewDefinition('doc-signoff', [{ userId: 'u-ana', mandatory: true }]))).data;
    expect(created).toMatchObject({ definitionId: 'doc-signoff', version: 1, status: 'active', scope: { level: 'apiKey', organizationId: null, documentId: null }, groups: null, triggers: null });
    expect(created.compiled.forwardEdges).toEqual([
      { from: 'review', to: 'approved', role: 'approve', when: { op: 'eq', args: [{ var: 'output.decision' }, 'approve'] } },
      { from: 'review', to: 'rejected', role: 'reject', when: { op: 'eq', args: [{ var: 'output.decision' }, 'reject'] } },
    ]);
    expect((await client.workflowDefinitions.getWorkflowDefinition({ definitionId: 'doc-signoff' })).data).toEqual(created);
    await expectCollabError(client.workflowDefinitions.createWorkflowDefinition(reviewDefinition('doc-signoff', [{ userId: 'u-ana' }])), 'ALREADY_EXISTS');
  });

  it('refuses a graph that does not hold, naming the culprit', async () => {
    const bad = reviewDefinition('bad-graph', [{ userId: 'u-ana' }]);
    await expectCollabError(client.workflowDefinitions.createWorkflowDefinition({ ...bad, edges: [...bad.edges!, { from: 'review', to: 'nowhere', on: 'always' }] }), 'INVALID_ARGUMENT', /dangling-edge: edges\[2\]\.to names a node/);
    await expectCollabError(client.workflowDefinitions.createWorkflowDefinition({ ...bad, edges: [{ from: 'review', to: 'approved', on: 'approve' }] }), 'INVALID_ARGUMENT', /human-node-requires-reject-path|unreachable-node/);
    await expectCollabError(
      client.workflowDefinitions.createWorkflowDefinition({ ...bad, edges: [...bad.edges!.slice(0, 1), { from: 'review', to: 'rejected', on: 'custom', when: '{"op":"nope","args":[]}' }] }),
      'INVALID_ARGUMENT',
      /nope/,
    );
    await expectCollabError(
      client.workflowDefinitions.createWorkflowDefinition({ ...bad, nodes: [...bad.nodes, { nodeId: 'gate', type: 'agent', config: { agentId: 'no-such-agent', url: 'https://example.com' } }], edges: [...bad.edges!, { from: 'approved', to: 'gate' }] }),
      'INVALID_ARGUMENT',
      /unknown-agent: data\.nodes\[3\]\.config\.agentId \(node gate\)/,
    );
    await expectCollabError(client.workflowDefinitions.createWorkflowDefinition({ ...bad, definitionId: 'Bad_Id' }), 'INVALID_ARGUMENT', /definitionId/);
  });

  it('another application sees nothing of it', async () => {
    await expectCollabError(clientB.workflowDefinitions.getWorkflowDefinition({ definitionId: 'doc-signoff' }), 'NOT_FOUND');
    expect((await clientB.workflowDefinitions.listWorkflowDefinitions({})).data).toEqual([]);
  });

  it('refuses a missing or wrong credential', async () => {
    const response = await server.post('/v2/workflow/definitions/get', { data: { definitionId: 'doc-signoff' } }, { 'x-service-api-key': a.apiKey, 'x-service-auth-token': 'wrong' });
    expect(response.status).toBe(403);
  });
});

describe('Update Workflow Definition', () => {
  it('writes the next version only at ifVersion', async () => {
    const input = reviewDefinition('update-me', [{ userId: 'u-ana' }]);
    await client.workflowDefinitions.createWorkflowDefinition(input);
    const updated = (await client.workflowDefinitions.updateWorkflowDefinition({ ...input, ifVersion: 1, name: 'Renamed' })).data;
    expect(updated).toMatchObject({ version: 2, name: 'Renamed' });
    await expectCollabError(client.workflowDefinitions.updateWorkflowDefinition({ ...input, ifVersion: 1 }), 'FAILED_PRECONDITION', /expected 1, current 2/);
    await expectCollabError(client.workflowDefinitions.updateWorkflowDefinition({ ...input, definitionId: 'never-made', ifVersion: 1 }), 'NOT_FOUND');
  });
});

describe('List Workflow Definitions and Delete Workflow Definition', () => {
  it('lists active definitions newest first in pages; tombstones, then purges', async () => {
    for (const id of ['list-1', 'list-2', 'list-3']) await client.workflowDefinitions.createWorkflowDefinition(reviewDefinition(id, [{ userId: 'u-ana' }]));
    const first = await client.workflowDefinitions.listWorkflowDefinitions({ pageSize: 2 });
    expect(first.data.map((d) => d.definitionId)).toEqual(['list-3', 'list-2']);
    expect(first.pageToken).not.toBeNull();

    expect((await client.workflowDefinitions.deleteWorkflowDefinition({ definitionId: 'list-1' })).data).toEqual({ definitionId: 'list-1', deleted: true, purged: false });
    expect((await client.workflowDefinitions.getWorkflowDefinition({ definitionId: 'list-1' })).data.status).toBe('tombstoned');
    const active = (await client.workflowDefinitions.listWorkflowDefinitions({ pageSize: 500 })).data.map((d) => d.definitionId);
    expect(active).not.toContain('list-1');
    await client.workflowDefinitions.deleteWorkflowDefinition({ definitionId: 'list-1', purge: true });
    await expectCollabError(client.workflowDefinitions.getWorkflowDefinition({ definitionId: 'list-1' }), 'NOT_FOUND');
    await expectCollabError(client.workflowDefinitions.deleteWorkflowDefinition({ definitionId: 'list-1' }), 'NOT_FOUND');
  });
});
