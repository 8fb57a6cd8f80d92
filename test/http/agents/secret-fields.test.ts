// What counts as a secret in an agent configuration, how much of it there
// may be, and what errors may say about it. Secret subtrees: the rest-api
// strategy's `auth` and `headers`, an MCP server's `auth`, `headers` and
// `env`, and, anywhere inside those two places, a key named like a secret;
// every scalar leaf in them is sealed and read back as `__redacted__`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_STORED_AGENT_CONFIG_BYTES } from '../../../contract/agents/schemas.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { type AgentsTestContext, minimalAgent, openedConfig, startAgentsTest, storedConfig } from './fixtures.js';

let { server, ws, client, apiKeyId } = {} as AgentsTestContext;
beforeAll(async () => ({ server, ws, client, apiKeyId } = await startAgentsTest()));
afterAll(() => server?.close());

const R = '__redacted__';
const update = (data: Record<string, unknown>) => client.agents.updateAgentVersion(data as never);
const withPlaces = (rest: Record<string, unknown>, servers: Record<string, unknown>[]) =>
  minimalAgent({
    contextGathering: { strategies: ['rest-api'], strategyOptions: { 'rest-api': rest } },
    execution: { executionStrategy: 'mcp-tools', mcpServers: servers },
  });

describe('secret fields', () => {
  const SECRETS = ['api-key-K-0001', 'token-T-0002', 'client-secret-0003', 'auth-header-0004', 'Bearer mcp-X-0005', 'env-Y-0006', 'access-Z-0007', 'cookie-0008', 'pw-0009'];
  const rest = {
    url: 'https://api.example.com',
    apiKey: SECRETS[0],
    token: SECRETS[1],
    request: { query: { page: 1 }, oauth: { client_secret: SECRETS[2] }, extra: [{ Authorization: SECRETS[3] }] },
  };
  const servers = [
    {
      name: 's',
      url: 'https://mcp.example.com',
      headers: { Authorization: SECRETS[4] },
      env: { API_KEY: SECRETS[5] },
      options: { accessToken: SECRETS[6], 'Set-Cookie': SECRETS[7], retries: 3, db: { PASSWORD: SECRETS[8] } },
    },
  ];

  it('cover the common secret fields: headers and env of MCP servers, secret-named keys at any depth', async () => {
    const { agentId, agent } = (await client.agents.createAgent(withPlaces(rest, servers))).data;
    expect(agent.contextGathering.strategyOptions!['rest-api']).toEqual({
      url: 'https://api.example.com',
      apiKey: R,
      token: R,
      request: { query: { page: 1 }, oauth: { client_secret: R }, extra: [{ Authorization: R }] },
    });
    expect(agent.execution.mcpServers).toEqual([
      { name: 's', url: 'https://mcp.example.com', headers: { Authorization: R }, env: { API_KEY: R }, options: { accessToken: R, 'Set-Cookie': R, retries: 3, db: { PASSWORD: R } } },
    ]);
    const body = JSON.stringify((await server.post('/v2/agents/get', { data: { agentId } }, { 'x-service-api-key': ws.apiKey, 'x-service-auth-token': ws.authToken })).body);
    const { text } = await storedConfig(server, apiKeyId, agentId, 1);
    for (const secret of SECRETS) {
      expect(body).not.toContain(secret);
      expect(text).not.toContain(secret);
    }
    // Sent back as read, every one is kept.
    await update({ agentId, contextGathering: agent.contextGathering, execution: agent.execution });
    const v2 = await openedConfig(server, apiKeyId, agentId, 2);
    expect(v2.contextGathering.strategyOptions['rest-api']).toEqual(rest);
    expect(v2.execution.mcpServers).toEqual(servers);
  });

  it('are sealed whatever their type: numbers and booleans read __redacted__ and come back with their type; null stays null', async () => {
    const auth = { port: 8443, on: true, ratio: 0.5, none: null, list: [1, false, 'x'] };
    const { agentId, agent } = (await client.agents.createAgent(withPlaces({ url: 'https://api.example.com', auth }, [{ name: 's', env: { DEBUG: false, WORKERS: 12345 } }]))).data;
    expect(agent.contextGathering.strategyOptions!['rest-api']).toEqual({ url: 'https://api.example.com', auth: { port: R, on: R, ratio: R, none: null, list: [R, R, R] } });
    expect(agent.execution.mcpServers).toEqual([{ name: 's', env: { DEBUG: R, WORKERS: R } }]);
    const { text, config } = await storedConfig(server, apiKeyId, agentId, 1);
    expect(text).not.toContain('8443');
    expect(text).not.toContain('12345');
    expect(config.contextGathering.strategyOptions['rest-api'].auth.none).toBeNull();
    expect(typeof config.contextGathering.strategyOptions['rest-api'].auth.on).toBe('string');
    await update({ agentId, contextGathering: agent.contextGathering, execution: agent.execution });
    const v2 = await openedConfig(server, apiKeyId, agentId, 2);
    expect(v2.contextGathering.strategyOptions['rest-api'].auth).toEqual(auth);
    expect(v2.execution.mcpServers[0].env).toEqual({ DEBUG: false, WORKERS: 12345 });
  });

  it('stored in clear before they counted as secrets read __redacted__, are kept when sent back, and are then sealed', async () => {
    const { agentId, agent } = (await client.agents.createAgent(withPlaces({ url: 'https://api.example.com' }, [{ name: 's' }]))).data;
    const row = await storedConfig(server, apiKeyId, agentId, 1);
    row.config.contextGathering.strategyOptions['rest-api'].apiKey = 'legacy-key-0012';
    row.config.execution.mcpServers[0].headers = { 'X-Port': 8443 };
    await server.running.database.db.agentVersion.update({ where: { apiKeyId_agentId_version: { apiKeyId, agentId, version: 1 } }, data: { config: JSON.stringify(row.config) } });
    const read = ((await client.agents.getAgents({ agentId })).data as { agent: typeof agent }).agent;
    expect(read.contextGathering.strategyOptions!['rest-api']).toEqual({ url: 'https://api.example.com', apiKey: R });
    expect(read.execution.mcpServers).toEqual([{ name: 's', headers: { 'X-Port': R } }]);
    await update({ agentId, contextGathering: read.contextGathering, execution: read.execution });
    const { text } = await storedConfig(server, apiKeyId, agentId, 2);
    expect(text).not.toContain('legacy-key-0012');
    expect(text).not.toContain('8443');
    const v2 = await openedConfig(server, apiKeyId, agentId, 2);
    expect(v2.contextGathering.strategyOptions['rest-api'].apiKey).toBe('legacy-key-0012');
    expect(v2.execution.mcpServers[0].headers).toEqual({ 'X-Port': 8443 });
  });

  it('refuse URLs with credentials in them, in the rest-api options and in MCP servers, without echoing them', async () => {
    const cases: [Record<string, unknown>, Record<string, unknown>[], RegExp][] = [
      [{ url: 'https://u:pw-secret-1@api.example.com' }, [{ name: 's' }], /data\.contextGathering\.strategyOptions\.rest-api\.url: .*put credentials in auth/],
      [{ url: 'https://api.example.com', fallback: { base: 'http://user@backup.example.com/x' } }, [{ name: 's' }], /rest-api\.fallback\.base: .*put credentials in auth/],
      [{ url: 'https://api.example.com' }, [{ name: 's', url: 'https://u:pw-secret-1@mcp.example.com' }], /data\.execution\.mcpServers\[0\]\.url: .*put credentials in auth/],
      [{ url: 'https://api.example.com' }, [{ name: 's', args: ['--upstream', 'wss://a:pw-secret-1@x.example.com'] }], /mcpServers\[0\]\.args\[1\]: .*put credentials in auth/],
    ];
    for (const [restOptions, mcpServers, message] of cases) {
      const error = await expectCollabError(client.agents.createAgent(withPlaces(restOptions, mcpServers)), 'INVALID_ARGUMENT', message);
      expect(error.message).not.toContain('pw-secret-1');
    }
    // Inside a secret subtree a URL is a secret like any other, sealed.
    const { agentId } = (await client.agents.createAgent(withPlaces({ url: 'https://api.example.com' }, [{ name: 's', env: { DATABASE_URL: 'postgres://u:pw@db/x' } }]))).data;
    await expectCollabError(update({ agentId, execution: { mcpServers: [{ name: 's', url: 'https://u:pw-secret-1@mcp.example.com' }] } }), 'INVALID_ARGUMENT', /put credentials in auth/);
    // An `@` in a path or query is no credential.
    await client.agents.createAgent(withPlaces({ url: 'https://api.example.com/users/@me?by=a@b.c' }, [{ name: 's' }]));
  });

  it('are at most 100 per configuration, and each at most 8192 bytes', async () => {
    await expectCollabError(
      client.agents.createAgent(withPlaces({ url: 'https://a.example.com' }, [{ name: 'a', auth: Array(60_000).fill('') }])),
      'INVALID_ARGUMENT',
      /at most 100 secrets/,
    );
    await expectCollabError(
      client.agents.createAgent(withPlaces({ url: 'https://a.example.com', headers: { a: 'x' } }, [{ name: 'a', auth: Array(100).fill('x') }])),
      'INVALID_ARGUMENT',
      /at most 100 secrets/,
    );
    const { agentId } = (await client.agents.createAgent(withPlaces({ url: 'https://a.example.com' }, [{ name: 'a', auth: Array(100).fill('x') }]))).data;
    // A secret more through an update counts the kept ones too.
    await expectCollabError(
      update({ agentId, contextGathering: { strategies: ['rest-api'], strategyOptions: { 'rest-api': { url: 'https://a.example.com', token: 't' } } } }),
      'INVALID_ARGUMENT',
      /at most 100 secrets/,
    );
    await expectCollabError(
      client.agents.createAgent(withPlaces({ url: 'https://a.example.com', token: 'é'.repeat(4097) }, [{ name: 'a' }])),
      'INVALID_ARGUMENT',
      /data\.contextGathering\.strategyOptions\.rest-api\.token: a secret is at most 8192 bytes/,
    );
    await client.agents.createAgent(withPlaces({ url: 'https://a.example.com', token: 'é'.repeat(4096) }, [{ name: 'a' }]));
  });

  it('keep the stored version bounded: the largest configuration stores at most 1,357,344 bytes', async () => {
    // 100 secrets of 8192 bytes each (counted as "__redacted__" against the 256 KiB) and the rest of the 256 KiB filled.
    const servers = (secret: string) => Array.from({ length: 20 }, (_, i) => ({ name: `s${i}`, auth: Array(5).fill(secret) }));
    const { name: _n, description: _d, enabled: _e, ...measured } = withPlaces({ url: 'https://a.example.com' }, servers(R));
    const fill = 262_144 - Buffer.byteLength(JSON.stringify({ ...measured, metadata: { fill: '' } }));
    const largest = withPlaces({ url: 'https://a.example.com' }, servers('x'.repeat(8192)));
    const { agentId } = (await client.agents.createAgent({ ...largest, metadata: { fill: 'y'.repeat(fill) } })).data;
    await expectCollabError(client.agents.createAgent({ ...largest, metadata: { fill: 'y'.repeat(fill + 1) } }), 'INVALID_ARGUMENT', /at most 262144 bytes/);
    const { text } = await storedConfig(server, apiKeyId, agentId, 1);
    // The bound is reached: 256 KiB with each of 100 secrets of 8192 bytes sealed in place of its marker.
    expect(MAX_STORED_AGENT_CONFIG_BYTES).toBe(1_357_344);
    expect(Buffer.byteLength(text)).toBe(MAX_STORED_AGENT_CONFIG_BYTES);
  });

  it('count as "__redacted__" in the size of a configuration, so a size error says nothing of a stored secret', async () => {
    const sizeError = async (secret: string) => {
      const { agentId } = (await client.agents.createAgent(withPlaces({ url: 'https://a.example.com', auth: secret }, [{ name: 's' }]))).data;
      const error = await expectCollabError(update({ agentId, metadata: { pad: 'p'.repeat(262_000) } }), 'INVALID_ARGUMENT', /at most 262144 bytes as JSON/);
      return error.message;
    };
    expect(await sizeError('s'.repeat(10))).toBe(await sizeError('s'.repeat(5000)));
  });
});
