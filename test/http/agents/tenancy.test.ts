// Another application's agents, versions and groups are invisible and
// untouchable: NOT_FOUND on their IDs, never in lists; built-in agents have
// their enabled state per application.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';
import { BUILTIN_IDS, minimalAgent } from './fixtures.js';

const MARKER = 'agents-tenant-a-9d2e';
let server: TestServer;
let a: WorkspaceCredentials;
let b: WorkspaceCredentials;
let clientA: Client;
let clientB: Client;
let agentA: string;

beforeAll(async () => {
  server = await startTestServer();
  a = await server.workspace();
  b = await server.workspace();
  clientA = server.client(a);
  clientB = server.client(b);
  agentA = (await clientA.agents.createAgent(minimalAgent({ name: MARKER, description: MARKER, metadata: { [MARKER]: MARKER } }))).data.agentId;
  await clientA.agents.updateAgentVersion({ agentId: agentA, instructions: MARKER });
  await clientA.agents.createAgentGroup({ groupId: 'shared-group', name: MARKER, agentIds: [agentA, 'crawler'] });
  await clientA.agents.updateAgent({ agentId: 'crawler', enabled: false });
});
afterAll(() => server?.close());

describe("another application's agents", () => {
  it('are NOT_FOUND on every read and write by ID, and stay as they were', async () => {
    const before = await clientA.agents.getAgents({ agentId: agentA });
    const calls: [string, unknown][] = [
      ['/v2/agents/get', { agentId: agentA }],
      ['/v2/agents/update', { agentId: agentA, name: 'stolen', enabled: false }],
      ['/v2/agents/update', { agentId: agentA }],
      ['/v2/agents/version/update', { agentId: agentA, instructions: 'stolen' }],
      ['/v2/agents/versions/get', { agentId: agentA }],
      ['/v2/agents/version/get', { agentId: agentA, version: 1 }],
      ['/v2/agents/delete', { agentId: agentA }],
      ['/v2/agents/get', { groupId: 'shared-group' }],
      ['/v2/agents/groups/get', { groupId: 'shared-group' }],
      ['/v2/agents/groups/update', { groupId: 'shared-group', name: 'stolen' }],
      ['/v2/agents/groups/delete', { groupId: 'shared-group' }],
      // A's agent cannot join B's groups.
      ['/v2/agents/groups/create', { groupId: 'b-group', name: 'B', agentIds: [agentA] }],
    ];
    for (const [path, data] of calls) {
      const res = await server.post(path, { data }, appHeaders(b));
      expect({ path, status: res.status, error: res.body.error?.status }).toEqual({ path, status: 404, error: 'NOT_FOUND' });
      expect(JSON.stringify(res.body)).not.toContain(MARKER);
    }
    expect(await clientA.agents.getAgents({ agentId: agentA })).toEqual(before);
    expect((await clientA.agents.getAgentVersions({ agentId: agentA })).data.map((v) => v.version)).toEqual([2, 1]);
    expect((await clientA.agents.getAgentGroups({ groupId: 'shared-group' })).data).toEqual({
      group: { groupId: 'shared-group', name: MARKER, description: '', agentIds: [agentA, 'crawler'] },
    });
  });

  it('never appear in lists, with any filter', async () => {
    for (const filter of [undefined, 'customOnly', 'defaultOnly'] as const) {
      const res = await server.post('/v2/agents/get', { data: filter === undefined ? {} : { filter } }, appHeaders(b));
      expect(JSON.stringify(res.body)).not.toContain(MARKER);
      expect(res.body.result.data.agents.map((x: { id: string }) => x.id)).toEqual(filter === 'customOnly' ? [] : BUILTIN_IDS);
    }
    const groups = await server.post('/v2/agents/groups/get', { data: {} }, appHeaders(b));
    expect(groups.body.result.data).toEqual({ groups: [] });
  });

  it("take IDs B may use on its own: A's group ID is free for B", async () => {
    const own = await clientB.agents.createAgentGroup({ groupId: 'shared-group', name: 'B group', agentIds: ['crawler'] });
    expect(own.data).toEqual({ groupId: 'shared-group', name: 'B group', description: '', agentIds: ['crawler'] });
    expect((await clientA.agents.getAgentGroups({ groupId: 'shared-group' })).data).toMatchObject({ group: { name: MARKER } });
    await clientB.agents.deleteAgentGroup({ groupId: 'shared-group' });
    expect((await clientA.agents.getAgentGroups({ groupId: 'shared-group' })).data).toMatchObject({ group: { name: MARKER } });
  });
});

describe('built-in agents', () => {
  it('exist in every application, each with its own enabled state', async () => {
    expect((await clientA.agents.getAgents({ agentId: 'crawler' })).data).toMatchObject({ agent: { enabled: false } });
    expect((await clientB.agents.getAgents({ agentId: 'crawler' })).data).toMatchObject({ agent: { enabled: true } });
    await clientB.agents.updateAgent({ agentId: 'screenshot', enabled: false });
    expect((await clientA.agents.getAgents({ agentId: 'screenshot' })).data).toMatchObject({ agent: { enabled: true } });
    const listA = (await clientA.agents.getAgents({ filter: 'defaultOnly' })).data as { agents: { id: string; enabled: boolean }[] };
    expect(listA.agents.map((x) => [x.id, x.enabled])).toEqual(BUILTIN_IDS.map((id) => [id, id !== 'crawler']));
    await expectCollabError(clientB.agents.getAgents({ agentId: agentA }), 'NOT_FOUND');
  });
});
