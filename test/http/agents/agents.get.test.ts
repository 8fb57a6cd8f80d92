// Get Agent(s): one agent (custom or built-in) vs the list, the filters,
// groups and their order, and the fields each shape carries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError, expectCredentialChecks } from '../../helpers/credentials.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';
import { testClock } from '../../../server/lib/clock.js';
import { BUILTIN_IDS, DEFAULT_POST_PROCESS, minimalAgent } from './fixtures.js';

const clock = testClock(Date.UTC(2026, 6, 1));
let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;
const custom: string[] = [];

beforeAll(async () => {
  server = await startTestServer({}, { overrides: { clock } });
  ws = await server.workspace();
  client = server.client(ws);
  for (const name of ['First', 'Second', 'Third']) {
    custom.push((await client.agents.createAgent(minimalAgent({ name, description: `${name} agent` }))).data.agentId);
    clock.advance(1000);
  }
});
afterAll(() => server?.close());

const listIds = async (data: { filter?: 'defaultOnly' | 'customOnly'; groupId?: string } = {}) => {
  const result = (await client.agents.getAgents(data)).data;
  if (!('agents' in result)) throw new Error('expected a list');
  return result.agents.map((agent) => agent.id);
};

describe('Get Agent(s): one agent', () => {
  it('reads a custom agent with identity, managedBy customer, its version and the merged behavioral fields; no counters', async () => {
    const { data } = await client.agents.getAgents({ agentId: custom[0]! });
    expect(data).toEqual({
      agent: {
        id: custom[0],
        name: 'First',
        description: 'First agent',
        enabled: true,
        managedBy: 'customer',
        version: 1,
        instructions: 'Report every broken link.',
        contextGathering: { strategies: ['web-page-text'] },
        execution: { executionStrategy: 'ai' },
        postProcess: DEFAULT_POST_PROCESS,
      },
    });
    expect(data).not.toHaveProperty('agents');
  });

  it('reads the latest version, merged, after Update Agent Version', async () => {
    const { data } = await client.agents.createAgent(minimalAgent({ response: { useAiFormatting: true, formattingPrompt: 'Short.' } }));
    await client.agents.updateAgentVersion({ agentId: data.agentId, response: { formattingPrompt: 'Long.' } });
    const read = (await client.agents.getAgents({ agentId: data.agentId })).data;
    expect(read).toMatchObject({ agent: { version: 2, response: { useAiFormatting: true, formattingPrompt: 'Long.' } } });
    await client.agents.deleteAgent({ agentId: data.agentId });
  });

  it('reads each built-in agent with id, name, description, enabled, managedBy, system and input when declared, nothing else', async () => {
    for (const id of BUILTIN_IDS) {
      const { data } = await client.agents.getAgents({ agentId: id });
      if (!('agent' in data)) throw new Error('expected one agent');
      const agent = data.agent as Record<string, unknown>;
      expect(agent).toMatchObject({ id, enabled: true, managedBy: 'collab-backend', system: true });
      expect(typeof agent.name).toBe('string');
      expect(typeof agent.description).toBe('string');
      const keys = ['id', 'name', 'description', 'enabled', 'managedBy', 'system', ...(['crawler', 'screenshot'].includes(id) ? ['input'] : [])];
      expect(Object.keys(agent).sort()).toEqual(keys.sort());
    }
    const crawler = (await client.agents.getAgents({ agentId: 'crawler' })).data as { agent: { input: unknown } };
    expect(crawler.agent.input).toEqual({
      userContextFields: [{ id: 'url', title: 'Start URL', type: 'string', required: true, example: 'https://example.com' }],
      inputRequirements: { requires: ['url'] },
    });
  });

  it('ignores filter and groupId when agentId is given, but still refuses a filter outside the two values', async () => {
    const one = (await client.agents.getAgents({ agentId: custom[1]! })).data;
    expect((await client.agents.getAgents({ agentId: custom[1]!, filter: 'defaultOnly' })).data).toEqual(one);
    expect((await client.agents.getAgents({ agentId: custom[1]!, groupId: 'no-such-group' })).data).toEqual(one);
    expect((await client.agents.getAgents({ agentId: 'crawler', filter: 'customOnly' })).data).toMatchObject({ agent: { id: 'crawler' } });
    await expectCollabError(client.agents.getAgents({ agentId: custom[1]!, filter: 'all' as never }), 'INVALID_ARGUMENT', /data\.filter/);
  });

  it('is NOT_FOUND for an unknown agent, INVALID_ARGUMENT for an empty agentId', async () => {
    await expectCollabError(client.agents.getAgents({ agentId: 'agt_unknown' }), 'NOT_FOUND', /no agent agt_unknown/);
    await expectCollabError(client.agents.getAgents({ agentId: 'Crawler' }), 'NOT_FOUND');
    await expectCollabError(client.agents.getAgents({ agentId: '' }), 'INVALID_ARGUMENT', /data\.agentId/);
  });
});

describe('Get Agent(s): the list', () => {
  it('lists identity-only rows: built-in agents first in catalog order, then custom agents oldest first', async () => {
    const { data } = await client.agents.getAgents({});
    if (!('agents' in data)) throw new Error('expected a list');
    expect(data.agents.map((a) => a.id)).toEqual([...BUILTIN_IDS, ...custom]);
    expect(data.agents[0]).toEqual({
      id: 'broken-links',
      name: 'Broken Links',
      description: expect.any(String),
      enabled: true,
      managedBy: 'collab-backend',
      system: true,
      executionCount: 0,
      lastExecutedAt: null,
    });
    expect(data.agents[5]).toEqual({
      id: custom[0],
      name: 'First',
      description: 'First agent',
      enabled: true,
      managedBy: 'customer',
      version: 1,
      executionCount: 0,
      lastExecutedAt: null,
    });
    // Identity only: no behavioral fields, and no input even for the built-in agents that declare one.
    for (const row of data.agents) expect(Object.keys(row)).not.toEqual(expect.arrayContaining(['instructions']));
    expect(data.agents.find((a) => a.id === 'crawler')).not.toHaveProperty('input');
  });

  it('reports executionCount and lastExecutedAt as stored', async () => {
    const apiKeyId = (await server.running.database.db.agent.findFirstOrThrow({ where: { id: custom[2] } })).apiKeyId;
    await server.running.database.db.agent.updateMany({ where: { apiKeyId, id: custom[2] }, data: { executionCount: 7, lastExecutedAt: 1_780_000_000_000n } });
    const { data } = await client.agents.getAgents({ filter: 'customOnly' });
    expect((data as { agents: { id: string }[] }).agents.find((a) => a.id === custom[2])).toMatchObject({ executionCount: 7, lastExecutedAt: 1_780_000_000_000 });
    await server.running.database.db.agent.updateMany({ where: { apiKeyId, id: custom[2] }, data: { executionCount: 0, lastExecutedAt: null } });
  });

  it('filters defaultOnly (built-in) and customOnly (user-created); another filter is INVALID_ARGUMENT', async () => {
    expect(await listIds({ filter: 'defaultOnly' })).toEqual(BUILTIN_IDS);
    expect(await listIds({ filter: 'customOnly' })).toEqual(custom);
    for (const filter of ['all', 'default', 'DefaultOnly', '']) {
      await expectCollabError(client.agents.getAgents({ filter: filter as never }), 'INVALID_ARGUMENT', /data\.filter/);
    }
  });

  it('shows a disabled agent with enabled false', async () => {
    await client.agents.updateAgent({ agentId: custom[1]!, enabled: false });
    await client.agents.updateAgent({ agentId: 'screenshot', enabled: false });
    const { data } = await client.agents.getAgents({});
    const rows = (data as { agents: { id: string; enabled: boolean }[] }).agents;
    expect(rows.filter((a) => !a.enabled).map((a) => a.id)).toEqual(['screenshot', custom[1]]);
    await client.agents.updateAgent({ agentId: custom[1]!, enabled: true });
    await client.agents.updateAgent({ agentId: 'screenshot', enabled: true });
  });

  it('with groupId lists only the members, in the order of the group agentIds, combinable with filter', async () => {
    const order = [custom[2]!, 'og-image-checker', custom[0]!, 'crawler'];
    await client.agents.createAgentGroup({ groupId: 'mixed', name: 'Mixed', agentIds: order });
    expect(await listIds({ groupId: 'mixed' })).toEqual(order);
    expect(await listIds({ groupId: 'mixed', filter: 'customOnly' })).toEqual([custom[2], custom[0]]);
    expect(await listIds({ groupId: 'mixed', filter: 'defaultOnly' })).toEqual(['og-image-checker', 'crawler']);
    const rows = ((await client.agents.getAgents({ groupId: 'mixed' })).data as { agents: unknown[] }).agents;
    expect(rows[0]).toEqual({ id: custom[2], name: 'Third', description: 'Third agent', enabled: true, managedBy: 'customer', version: 1, executionCount: 0, lastExecutedAt: null });
    await client.agents.createAgentGroup({ groupId: 'empty', name: 'Empty', agentIds: [] });
    expect(await listIds({ groupId: 'empty' })).toEqual([]);
  });

  it('is NOT_FOUND for an unknown group', async () => {
    await expectCollabError(client.agents.getAgents({ groupId: 'no-such-group' }), 'NOT_FOUND', /no agent group no-such-group/);
    await expectCollabError(client.agents.getAgents({ groupId: 'no-such-group', filter: 'customOnly' }), 'NOT_FOUND');
    await expectCollabError(client.agents.getAgents({ groupId: '' }), 'INVALID_ARGUMENT', /data\.groupId/);
  });

  it('refuses unknown fields and checks credentials', async () => {
    await expectCollabError(client.agents.getAgents({ agentIds: [custom[0]] } as never), 'INVALID_ARGUMENT', /agentIds/);
    await expectCredentialChecks(server, ws, '/v2/agents/get', {});
  });
});
