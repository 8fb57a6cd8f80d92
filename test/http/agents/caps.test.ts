// The per-application caps on custom agents and agent groups hold when
// creates race at the boundary (on PostgreSQL each request runs on its own
// connection, so count-then-insert alone would let several through). The caps
// are set low through the server's test seam instead of creating 1000 agents.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CollabError, type Client } from '../../../sdk/index.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';
import { minimalAgent } from './fixtures.js';

const AGENT_CAP = 3;
const GROUP_CAP = 2;
const RACERS = 12;

let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;

beforeAll(async () => {
  server = await startTestServer({}, { overrides: { agentLimits: { customAgents: AGENT_CAP, groups: GROUP_CAP } } });
  ws = await server.workspace();
  client = server.client(ws);
});
afterAll(() => server?.close());

/** How many of the calls succeeded; every failure must be FAILED_PRECONDITION. */
async function outcomes(calls: Promise<unknown>[]): Promise<number> {
  const settled = await Promise.allSettled(calls);
  for (const result of settled) {
    if (result.status === 'rejected') {
      expect(result.reason).toBeInstanceOf(CollabError);
      expect((result.reason as CollabError).status).toBe('FAILED_PRECONDITION');
    }
  }
  return settled.filter((result) => result.status === 'fulfilled').length;
}

describe('agent caps under concurrency', () => {
  it('lets exactly one of many concurrent Create Agent calls take the last place', async () => {
    for (let i = 0; i < AGENT_CAP - 1; i++) await client.agents.createAgent(minimalAgent());
    const created = await outcomes(Array.from({ length: RACERS }, () => client.agents.createAgent(minimalAgent())));
    expect(created).toBe(1);
    const list = (await client.agents.getAgents({ filter: 'customOnly' })).data as { agents: unknown[] };
    expect(list.agents).toHaveLength(AGENT_CAP);
    // A place freed is a place taken again, by one racer.
    const victim = (list.agents[0] as { id: string }).id;
    await client.agents.deleteAgent({ agentId: victim });
    expect(await outcomes(Array.from({ length: RACERS }, () => client.agents.createAgent(minimalAgent())))).toBe(1);
  });

  it('lets exactly one of many concurrent Create Agent Group calls take the last place', async () => {
    const other = server.client(await server.workspace());
    for (let i = 0; i < GROUP_CAP - 1; i++) await other.agents.createAgentGroup({ name: `g${i}`, agentIds: [] });
    const created = await outcomes(Array.from({ length: RACERS }, (_, i) => other.agents.createAgentGroup({ name: `racer ${i}`, agentIds: ['crawler'] })));
    expect(created).toBe(1);
    expect(((await other.agents.getAgentGroups({})).data as { groups: unknown[] }).groups).toHaveLength(GROUP_CAP);
  });

  it('states the cap it applies', async () => {
    const fresh = server.client(await server.workspace());
    for (let i = 0; i < AGENT_CAP; i++) await fresh.agents.createAgent(minimalAgent());
    await expect(fresh.agents.createAgent(minimalAgent())).rejects.toThrow(new RegExp(`at most ${AGENT_CAP} custom agents`));
  });
});
