// Agent groups: named, ordered lists of an application's agents, built-in
// and custom, whose order Get Agent(s) follows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError, expectCredentialChecks } from '../../helpers/credentials.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';
import { applicationIdOf, minimalAgent } from './fixtures.js';

let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;
let a: string;
let b: string;

beforeAll(async () => {
  server = await startTestServer();
  ws = await server.workspace();
  client = server.client(ws);
  a = (await client.agents.createAgent(minimalAgent({ name: 'A' }))).data.agentId;
  b = (await client.agents.createAgent(minimalAgent({ name: 'B' }))).data.agentId;
});
afterAll(() => server?.close());

const groupOf = async (groupId: string) => ((await client.agents.getAgentGroups({ groupId })).data as { group: unknown }).group;

describe('Create Agent Group', () => {
  it('creates a group with a chosen ID or a generated one; Get Agent Groups reads it', async () => {
    const chosen = await client.agents.createAgentGroup({ groupId: 'audits', name: 'Audits', description: 'Site audits', agentIds: [b, 'crawler', a] });
    expect(chosen.data).toEqual({ groupId: 'audits', name: 'Audits', description: 'Site audits', agentIds: [b, 'crawler', a] });
    expect(await groupOf('audits')).toEqual(chosen.data);
    const generated = await client.agents.createAgentGroup({ name: 'Generated', agentIds: [] });
    expect(generated.data).toEqual({ groupId: expect.stringMatching(/^agg_/), name: 'Generated', description: '', agentIds: [] });
    const all = (await client.agents.getAgentGroups({})).data as { groups: { groupId: string }[] };
    expect(all.groups.map((g) => g.groupId)).toEqual(['audits', generated.data.groupId]);
  });

  it('is ALREADY_EXISTS for a taken groupId, also when two creates race', async () => {
    await client.agents.createAgentGroup({ groupId: 'taken', name: 'T', agentIds: [] });
    await expectCollabError(client.agents.createAgentGroup({ groupId: 'taken', name: 'T2', agentIds: [] }), 'ALREADY_EXISTS', /agent group taken already exists/);
    const outcomes = await Promise.allSettled(Array.from({ length: 4 }, () => client.agents.createAgentGroup({ groupId: 'raced', name: 'R', agentIds: [a] })));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes) if (o.status === 'rejected') expect((o.reason as { status: string }).status).toBe('ALREADY_EXISTS');
  });

  it('is NOT_FOUND naming every agent the application does not have', async () => {
    const error = await expectCollabError(
      client.agents.createAgentGroup({ groupId: 'missing', name: 'M', agentIds: [a, 'agt_ghost', 'Crawler', 'crawler'] }),
      'NOT_FOUND',
      /no agent agt_ghost, Crawler/,
    );
    expect(error.details).toEqual({ missingAgentIds: ['agt_ghost', 'Crawler'] });
    await expectCollabError(client.agents.getAgentGroups({ groupId: 'missing' }), 'NOT_FOUND');
  });

  it('validates its fields', async () => {
    await expectCollabError(client.agents.createAgentGroup({ name: '', agentIds: [] }), 'INVALID_ARGUMENT', /data\.name/);
    await expectCollabError(client.agents.createAgentGroup({ name: 'x' } as never), 'INVALID_ARGUMENT', /data\.agentIds is required/);
    await expectCollabError(client.agents.createAgentGroup({ name: 'x', agentIds: [a, a] }), 'INVALID_ARGUMENT', /data\.agentIds: must not list an agent twice/);
    await expectCollabError(client.agents.createAgentGroup({ name: 'x', agentIds: Array.from({ length: 101 }, (_, i) => `agt_${i}`) }), 'INVALID_ARGUMENT', /data\.agentIds/);
    await expectCollabError(client.agents.createAgentGroup({ groupId: '', name: 'x', agentIds: [] }), 'INVALID_ARGUMENT', /data\.groupId/);
    await expectCollabError(client.agents.createAgentGroup({ name: 'x', agentIds: [], color: 'red' } as never), 'INVALID_ARGUMENT', /color/);
  });

  it('is FAILED_PRECONDITION past 200 groups in an application', async () => {
    const other = await server.workspace();
    const apiKeyId = await applicationIdOf(server, other);
    await server.running.database.db.agentGroup.createMany({
      data: Array.from({ length: 200 }, (_, i) => ({ apiKeyId, id: `seed-${i}`, name: 'seed', agentIds: '[]', createdAt: 1n, updatedAt: 1n })),
    });
    await expectCollabError(server.client(other).agents.createAgentGroup({ name: 'one more', agentIds: [] }), 'FAILED_PRECONDITION', /at most 200 agent groups/);
  });

  it('checks credentials', async () => {
    await expectCredentialChecks(server, ws, '/v2/agents/groups/create', { name: 'x', agentIds: [] });
  });
});

describe('Update Agent Group', () => {
  it('changes the fields sent; agentIds replaces the list and its order, which Get Agent(s) follows', async () => {
    await client.agents.createAgentGroup({ groupId: 'ordered', name: 'Ordered', description: 'd', agentIds: [a, b] });
    const renamed = await client.agents.updateAgentGroup({ groupId: 'ordered', name: 'Renamed' });
    expect(renamed.data).toEqual({ groupId: 'ordered', name: 'Renamed', description: 'd', agentIds: [a, b] });
    const reordered = await client.agents.updateAgentGroup({ groupId: 'ordered', agentIds: ['screenshot', b, a], description: '' });
    expect(reordered.data).toEqual({ groupId: 'ordered', name: 'Renamed', description: '', agentIds: ['screenshot', b, a] });
    const listed = (await client.agents.getAgents({ groupId: 'ordered' })).data as { agents: { id: string }[] };
    expect(listed.agents.map((x) => x.id)).toEqual(['screenshot', b, a]);
  });

  it('is NOT_FOUND for an unknown group or missing agents (and changes nothing), INVALID_ARGUMENT without a change', async () => {
    await client.agents.createAgentGroup({ groupId: 'stable', name: 'Stable', agentIds: [a] });
    await expectCollabError(client.agents.updateAgentGroup({ groupId: 'nope', name: 'x' }), 'NOT_FOUND', /no agent group nope/);
    await expectCollabError(client.agents.updateAgentGroup({ groupId: 'stable', name: 'Changed', agentIds: [b, 'agt_ghost'] }), 'NOT_FOUND', /agt_ghost/);
    expect(await groupOf('stable')).toEqual({ groupId: 'stable', name: 'Stable', description: '', agentIds: [a] });
    await expectCollabError(client.agents.updateAgentGroup({ groupId: 'stable' }), 'INVALID_ARGUMENT', /give at least one field to change/);
    await expectCollabError(client.agents.updateAgentGroup({ groupId: 'stable', name: '' }), 'INVALID_ARGUMENT', /data\.name/);
  });

  it('checks credentials', async () => {
    await expectCredentialChecks(server, ws, '/v2/agents/groups/update', { groupId: 'stable', name: 'x' });
  });
});

describe('Delete Agent Group and Get Agent Groups', () => {
  it('deletes the group and leaves its agents', async () => {
    await client.agents.createAgentGroup({ groupId: 'gone', name: 'Gone', agentIds: [a, 'crawler'] });
    expect((await client.agents.deleteAgentGroup({ groupId: 'gone' })).data).toEqual({ groupId: 'gone' });
    await expectCollabError(client.agents.getAgentGroups({ groupId: 'gone' }), 'NOT_FOUND');
    await expectCollabError(client.agents.getAgents({ groupId: 'gone' }), 'NOT_FOUND');
    await expectCollabError(client.agents.deleteAgentGroup({ groupId: 'gone' }), 'NOT_FOUND');
    expect((await client.agents.getAgents({ agentId: a })).data).toMatchObject({ agent: { id: a } });
    // The ID is free again.
    await client.agents.createAgentGroup({ groupId: 'gone', name: 'Again', agentIds: [] });
  });

  it('lists only agents that exist, whatever a group row holds', async () => {
    const c = (await client.agents.createAgent(minimalAgent({ name: 'C' }))).data.agentId;
    await client.agents.createAgentGroup({ groupId: 'stale', name: 'Stale', agentIds: [c, a] });
    // As a group written concurrently with the agent's deletion might hold it.
    const apiKeyId = await applicationIdOf(server, ws);
    await server.running.database.db.agent.deleteMany({ where: { apiKeyId, id: c } });
    expect(await groupOf('stale')).toMatchObject({ agentIds: [a] });
    const all = (await client.agents.getAgentGroups({})).data as { groups: { groupId: string; agentIds: string[] }[] };
    expect(all.groups.find((g) => g.groupId === 'stale')?.agentIds).toEqual([a]);
    expect(((await client.agents.getAgents({ groupId: 'stale' })).data as { agents: { id: string }[] }).agents.map((x) => x.id)).toEqual([a]);
  });

  it('checks credentials', async () => {
    await expectCredentialChecks(server, ws, '/v2/agents/groups/delete', { groupId: 'x' });
    await expectCredentialChecks(server, ws, '/v2/agents/groups/get', {});
  });
});
