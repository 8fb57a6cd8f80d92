// Secrets inside agents: every scalar leaf under the rest-api strategy's
// `auth` and `headers` and under each MCP server's `auth` (and the other
// secret places: secret-fields.test.ts) is stored encrypted and read back as
// `__redacted__`; sent back as `__redacted__` it keeps the stored secret
// (which one: secret-servers.test.ts), and that literal is never stored as a
// secret.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCollabError } from '../../helpers/credentials.js';
import { type AgentsTestContext, minimalAgent, startAgentsTest } from './fixtures.js';

let { server, ws, client, apiKeyId } = {} as AgentsTestContext;
beforeAll(async () => ({ server, ws, client, apiKeyId } = await startAgentsTest()));
afterAll(() => server?.close());

const R = '__redacted__';
const SECRETS = ['rest-token-0001', 'rest-nested-0002', 'header-secret-0003', 'mcp-docs-0004', 'mcp-bare-0005', 'mcp-list-0006'];

const secretAgent = () =>
  minimalAgent({
    contextGathering: {
      strategies: ['rest-api', 'web-page-text'],
      strategyOptions: {
        'rest-api': {
          url: 'https://api.example.com/items',
          method: 'GET',
          auth: { type: 'bearer', token: SECRETS[0], nested: { apiKey: SECRETS[1], port: 8443, on: true } },
          headers: { 'X-Api-Key': SECRETS[2] },
        },
      },
    },
    execution: {
      executionStrategy: 'mcp-tools',
      mcpServers: [
        { name: 'docs', url: 'https://mcp.example.com/docs', auth: { token: SECRETS[3] } },
        { url: 'https://mcp.example.com/bare', auth: SECRETS[4] },
        { name: 'list', url: 'https://mcp.example.com/list', auth: { keys: [SECRETS[5], 42] } },
      ],
    },
  });

const REDACTED_GATHERING = {
  strategies: ['rest-api', 'web-page-text'],
  strategyOptions: {
    'rest-api': {
      url: 'https://api.example.com/items',
      method: 'GET',
      auth: { type: R, token: R, nested: { apiKey: R, port: R, on: R } },
      headers: { 'X-Api-Key': R },
    },
  },
};
const REDACTED_SERVERS = [
  { name: 'docs', url: 'https://mcp.example.com/docs', auth: { token: R } },
  { url: 'https://mcp.example.com/bare', auth: R },
  { name: 'list', url: 'https://mcp.example.com/list', auth: { keys: [R, R] } },
];

async function storedConfig(agentId: string, version: number): Promise<{ text: string; config: any }> {
  const row = await server.running.database.db.agentVersion.findFirstOrThrow({ where: { apiKeyId, agentId, version } });
  return { text: row.config, config: JSON.parse(row.config) };
}

describe('agent secrets', () => {
  it('are returned as __redacted__ by every read, numbers and booleans too; the rest of the options as given', async () => {
    const { agentId, agent } = (await client.agents.createAgent(secretAgent())).data;
    expect(agent.contextGathering).toEqual(REDACTED_GATHERING);
    expect(agent.execution.mcpServers).toEqual(REDACTED_SERVERS);
    const read = ((await client.agents.getAgents({ agentId })).data as { agent: typeof agent }).agent;
    expect(read).toEqual(agent);
    expect((await client.agents.getAgentVersion({ agentId, version: 1 })).data.agent).toEqual(agent);
    const body = JSON.stringify(await server.post('/v2/agents/get', { data: { agentId } }, { 'x-service-api-key': ws.apiKey, 'x-service-auth-token': ws.authToken }));
    for (const secret of SECRETS) expect(body).not.toContain(secret);
  });

  it('are stored encrypted: the row holds neither a secret nor the literal __redacted__', async () => {
    const { agentId } = (await client.agents.createAgent(secretAgent())).data;
    const { text, config } = await storedConfig(agentId, 1);
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    expect(text).not.toContain(R);
    const auth = config.contextGathering.strategyOptions['rest-api'].auth;
    expect(auth.token).toMatch(/^v1\./);
    expect(auth.type).toMatch(/^v1\./);
    expect(auth.nested.port).toMatch(/^number:v1\./);
    expect(auth.nested.on).toMatch(/^boolean:v1\./);
    expect(config.execution.mcpServers[1].auth).toMatch(/^v1\./);
    expect(config.execution.mcpServers[2].auth.keys[1]).toMatch(/^number:v1\./);
    expect(config.contextGathering.strategyOptions['rest-api'].url).toBe('https://api.example.com/items');
  });

  it('cannot be __redacted__ on Create Agent, where nothing is stored to keep', async () => {
    const agent = secretAgent() as any;
    agent.contextGathering.strategyOptions['rest-api'].auth.token = R;
    await expectCollabError(client.agents.createAgent(agent), 'INVALID_ARGUMENT', /data\.contextGathering\.strategyOptions\.rest-api\.auth\.token: "__redacted__" keeps a stored secret, and none is stored here/);
    const server2 = secretAgent() as any;
    server2.execution.mcpServers[1].auth = R;
    await expectCollabError(client.agents.createAgent(server2), 'INVALID_ARGUMENT', /data\.execution\.mcpServers\[1\]\.auth:/);
    // Outside the secret places the text is ordinary data.
    const plain = await client.agents.createAgent(minimalAgent({ metadata: { note: R } }));
    expect(plain.data.agent.metadata).toEqual({ note: R });
  });

  it('sent back as __redacted__ on Update Agent Version keep the stored secret, ciphertext and all', async () => {
    const { agentId, agent } = (await client.agents.createAgent(secretAgent())).data;
    const v1 = await storedConfig(agentId, 1);
    // The read, sent back whole with one secret changed.
    const gathering = structuredClone(agent.contextGathering) as any;
    gathering.strategyOptions['rest-api'].headers['X-Api-Key'] = 'header-secret-new-0007';
    const { data } = await client.agents.updateAgentVersion({ agentId, contextGathering: gathering, execution: agent.execution });
    expect(data.agent.contextGathering).toEqual(REDACTED_GATHERING);
    expect(data.agent.execution.mcpServers).toEqual(REDACTED_SERVERS);
    const v2 = await storedConfig(agentId, 2);
    expect(v2.text).not.toContain(R);
    expect(v2.text).not.toContain('header-secret-new-0007');
    const rest = (c: any) => c.contextGathering.strategyOptions['rest-api'];
    expect(rest(v2.config).auth).toEqual(rest(v1.config).auth);
    expect(rest(v2.config).headers['X-Api-Key']).not.toBe(rest(v1.config).headers['X-Api-Key']);
    expect(rest(v2.config).headers['X-Api-Key']).toMatch(/^v1\./);
    expect(v2.config.execution.mcpServers).toEqual(v1.config.execution.mcpServers);
  });

  it('keeps MCP server secrets by server name, or by url for a server without one, whatever the order', async () => {
    const { agentId } = (await client.agents.createAgent(secretAgent())).data;
    const v1 = (await storedConfig(agentId, 1)).config.execution.mcpServers;
    const reordered = [
      { name: 'list', url: 'https://mcp.example.com/list', auth: { keys: [R, R] }, timeoutMs: 5000 },
      { name: 'docs', url: 'https://mcp.example.com/docs', auth: { token: R } },
      { url: 'https://mcp.example.com/bare', auth: R },
    ];
    const { data } = await client.agents.updateAgentVersion({ agentId, execution: { mcpServers: reordered } });
    expect(data.agent.execution).toEqual({ executionStrategy: 'mcp-tools', mcpServers: reordered });
    const v2 = (await storedConfig(agentId, 2)).config.execution.mcpServers;
    expect(v2[0].auth).toEqual(v1[2].auth);
    expect(v2[1].auth).toEqual(v1[0].auth);
    expect(v2[2].auth).toBe(v1[1].auth);
  });

  it('untouched by an update are carried to the next version as they are', async () => {
    const { agentId } = (await client.agents.createAgent(secretAgent())).data;
    const v1 = (await storedConfig(agentId, 1)).config;
    await client.agents.updateAgentVersion({ agentId, instructions: 'New words.', execution: { aiConfig: { model: 'm' } } });
    const v2 = (await storedConfig(agentId, 2)).config;
    expect(v2.contextGathering).toEqual(v1.contextGathering);
    expect(v2.execution.mcpServers).toEqual(v1.execution.mcpServers);
  });

  it('sent as __redacted__ where no secret is stored are INVALID_ARGUMENT, and no version is written', async () => {
    const { agentId } = (await client.agents.createAgent(secretAgent())).data;
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ execution: { mcpServers: [{ name: 'unknown', auth: { token: R } }] } }, /data\.execution\.mcpServers\[0\]\.auth\.token: "__redacted__" keeps a stored secret/],
      [{ execution: { mcpServers: [{ name: 'docs', url: 'https://mcp.example.com/docs', auth: { password: R } }] } }, /mcpServers\[0\]\.auth\.password: .*none is stored here/],
      // A server with neither name nor url has no stored counterpart, whatever its position.
      [{ execution: { mcpServers: [{}, { auth: R }] } }, /mcpServers\[1\]\.auth: .*neither name nor url/],
      [{ contextGathering: { strategies: ['rest-api'], strategyOptions: { 'rest-api': { url: 'https://api.example.com/items', auth: { nested: { port2: R } } } } } }, /rest-api\.auth\.nested\.port2: .*none is stored here/],
      [{ contextGathering: { strategies: ['rest-api'], strategyOptions: { 'rest-api': { url: 'https://api.example.com/items', headers: { Other: R } } } } }, /rest-api\.headers\.Other/],
      // An object is stored there, not one secret.
      [{ contextGathering: { strategies: ['rest-api'], strategyOptions: { 'rest-api': { url: 'https://api.example.com/items', auth: { nested: R } } } } }, /rest-api\.auth\.nested: .*none is stored here/],
    ];
    for (const [change, message] of cases) {
      await expectCollabError(client.agents.updateAgentVersion({ agentId, ...change } as never), 'INVALID_ARGUMENT', message);
    }
    expect((await client.agents.getAgentVersions({ agentId })).data.map((v) => v.version)).toEqual([1]);
  });
});
