// Which stored secret a re-sent `__redacted__` keeps. An MCP server is
// identified by its `name`, or by its `url` when it has no name; two servers
// of one configuration may not share an identity; a secret is kept only from
// the stored server with the same identity and the same url (and the rest-api
// strategy's secrets only while its url is unchanged), so a secret never
// moves to another server or another address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCollabError } from '../../helpers/credentials.js';
import { type AgentsTestContext, minimalAgent, openedConfig, startAgentsTest, storedConfig } from './fixtures.js';

let { server, ws, client, apiKeyId } = {} as AgentsTestContext;
beforeAll(async () => ({ server, ws, client, apiKeyId } = await startAgentsTest()));
afterAll(() => server?.close());

const R = '__redacted__';

const mcpAgent = (mcpServers: Record<string, unknown>[]) => minimalAgent({ execution: { executionStrategy: 'mcp-tools', mcpServers } });
const create = async (mcpServers: Record<string, unknown>[]) => (await client.agents.createAgent(mcpAgent(mcpServers))).data;
const update = (data: Record<string, unknown>) => client.agents.updateAgentVersion(data as never);
const opened = (agentId: string, version: number) => openedConfig(server, apiKeyId, agentId, version);
const versionsOf = async (agentId: string) => (await client.agents.getAgentVersions({ agentId })).data.map((v) => v.version);

describe('MCP server identity', () => {
  it('refuses two servers with the same name on Create Agent, so a read sent back cannot swap their secrets', async () => {
    const servers = [
      { name: 'x', url: 'https://one.example.com', auth: { token: 'SECRET-ONE' } },
      { name: 'x', url: 'https://two.example.com', auth: { token: 'SECRET-TWO' } },
    ];
    await expectCollabError(client.agents.createAgent(mcpAgent(servers)), 'INVALID_ARGUMENT', /data\.execution\.mcpServers\[1\]\.name: .*same name as mcpServers\[0\]/);
  });

  it('refuses two unnamed servers with the same url; a named server may share an unnamed one\'s url', async () => {
    await expectCollabError(
      client.agents.createAgent(mcpAgent([{ url: 'https://a.example.com', auth: 'A' }, { url: 'https://a.example.com', auth: 'B' }])),
      'INVALID_ARGUMENT',
      /data\.execution\.mcpServers\[1\]\.url: .*same url as mcpServers\[0\]/,
    );
    await create([{ name: 'prod', url: 'https://a.example.com', auth: 'A' }, { url: 'https://a.example.com', auth: 'B' }]);
    // Servers with neither name nor url have no identity to collide on.
    await create([{ command: 'one' }, { command: 'two' }]);
  });

  it('refuses a merged configuration with two servers of one identity, and writes no version', async () => {
    const { agentId } = await create([{ name: 'x', url: 'https://one.example.com', auth: { token: 'SECRET-ONE' } }]);
    const servers = [
      { name: 'x', url: 'https://one.example.com', auth: { token: R } },
      { name: 'x', url: 'https://two.example.com', auth: { token: 'SECRET-TWO' } },
    ];
    await expectCollabError(update({ agentId, execution: { mcpServers: servers } }), 'INVALID_ARGUMENT', /mcpServers\[1\]\.name: .*same name/);
    expect(await versionsOf(agentId)).toEqual([1]);
  });

  it('keeps an unnamed server\'s secret by its url: removing the server before it does not hand it that server\'s secret', async () => {
    const { agentId } = await create([
      { url: 'https://a.example.com', auth: 'SECRET-A' },
      { url: 'https://b.example.com', auth: 'SECRET-B' },
    ]);
    await update({ agentId, execution: { mcpServers: [{ url: 'https://b.example.com', auth: R }] } });
    expect((await opened(agentId, 2)).execution.mcpServers).toEqual([{ url: 'https://b.example.com', auth: 'SECRET-B' }]);
  });

  it('keeps secrets of reordered servers, named and unnamed, each from its own stored server', async () => {
    const { agentId, agent } = await create([
      { name: 'docs', url: 'https://docs.example.com', auth: { token: 'SECRET-DOCS' } },
      { url: 'https://a.example.com', auth: 'SECRET-A' },
      { name: 'list', url: 'https://list.example.com', headers: { 'X-Key': 'SECRET-LIST' } },
      { url: 'https://b.example.com', auth: 'SECRET-B' },
    ]);
    const v1 = (await storedConfig(server, apiKeyId, agentId, 1)).config.execution.mcpServers;
    const read = agent.execution.mcpServers!;
    await update({ agentId, execution: { mcpServers: [read[3], read[2], read[1], read[0]] } });
    const v2 = (await storedConfig(server, apiKeyId, agentId, 2)).config.execution.mcpServers;
    expect(v2).toEqual([v1[3], v1[2], v1[1], v1[0]]);
    expect((await opened(agentId, 2)).execution.mcpServers.map((s: any) => s.auth ?? s.headers)).toEqual([
      'SECRET-B',
      { 'X-Key': 'SECRET-LIST' },
      'SECRET-A',
      { token: 'SECRET-DOCS' },
    ]);
  });

  it('does not let an unnamed server take a named server\'s secret', async () => {
    const { agentId } = await create([{ name: 'prod', url: 'https://prod.example.com', auth: 'S' }]);
    await expectCollabError(
      update({ agentId, execution: { mcpServers: [{ url: 'https://evil.example.com', auth: R }] } }),
      'INVALID_ARGUMENT',
      /data\.execution\.mcpServers\[0\]\.auth: "__redacted__" keeps a stored secret.*no stored server has this url/,
    );
    // Nor one with the same url: the stored server is identified by its name.
    await expectCollabError(update({ agentId, execution: { mcpServers: [{ url: 'https://prod.example.com', auth: R }] } }), 'INVALID_ARGUMENT', /mcpServers\[0\]\.auth/);
    expect(await versionsOf(agentId)).toEqual([1]);
  });

  it('does not let a secret follow a server to another url: a new url needs the secret sent again', async () => {
    const { agentId } = await create([{ name: 'docs', url: 'https://docs.example.com', auth: { token: 'SECRET-DOCS' } }]);
    await expectCollabError(
      update({ agentId, execution: { mcpServers: [{ name: 'docs', url: 'https://evil.example.com', auth: { token: R } }] } }),
      'INVALID_ARGUMENT',
      /data\.execution\.mcpServers\[0\]\.auth\.token: "__redacted__" keeps a stored secret.*url.*send the secret again/,
    );
    // Removing the url is a change of url too.
    await expectCollabError(update({ agentId, execution: { mcpServers: [{ name: 'docs', auth: { token: R } }] } }), 'INVALID_ARGUMENT', /mcpServers\[0\]\.auth\.token/);
    expect(await versionsOf(agentId)).toEqual([1]);
    await update({ agentId, execution: { mcpServers: [{ name: 'docs', url: 'https://docs2.example.com', auth: { token: 'SECRET-DOCS-2' } }] } });
    expect((await opened(agentId, 2)).execution.mcpServers[0].auth).toEqual({ token: 'SECRET-DOCS-2' });
  });

  it('keeps a named server\'s secret when it has no url on either side', async () => {
    const { agentId } = await create([{ name: 'local', command: 'npx', env: { TOKEN: 'SECRET-LOCAL' } }]);
    await update({ agentId, execution: { mcpServers: [{ name: 'local', command: 'npx', args: ['-y'], env: { TOKEN: R } }] } });
    expect((await opened(agentId, 2)).execution.mcpServers[0].env).toEqual({ TOKEN: 'SECRET-LOCAL' });
  });

  it('refuses __redacted__ in a server with neither name nor url: it has no identity to keep a secret by', async () => {
    const { agentId } = await create([{ command: 'npx', auth: 'SECRET-BARE' }]);
    await expectCollabError(
      update({ agentId, execution: { mcpServers: [{ command: 'npx', auth: R }] } }),
      'INVALID_ARGUMENT',
      /data\.execution\.mcpServers\[0\]\.auth: "__redacted__" keeps a stored secret.*neither name nor url/,
    );
    await update({ agentId, execution: { mcpServers: [{ command: 'npx', auth: 'SECRET-BARE-2' }] } });
    expect((await opened(agentId, 2)).execution.mcpServers[0].auth).toBe('SECRET-BARE-2');
  });

  it('refuses to keep a secret from stored servers that share an identity (stored before the rule)', async () => {
    const { agentId, agent } = await create([
      { name: 'x', url: 'https://one.example.com', auth: { token: 'SECRET-ONE' } },
      { name: 'y', url: 'https://two.example.com', auth: { token: 'SECRET-TWO' } },
    ]);
    const row = await storedConfig(server, apiKeyId, agentId, 1);
    row.config.execution.mcpServers[1].name = 'x';
    await server.running.database.db.agentVersion.update({
      where: { apiKeyId_agentId_version: { apiKeyId, agentId, version: 1 } },
      data: { config: JSON.stringify(row.config) },
    });
    const read = structuredClone(agent.execution.mcpServers!) as any[];
    read[1].name = 'x';
    await expectCollabError(update({ agentId, execution: { mcpServers: [read[1]] } }), 'INVALID_ARGUMENT', /mcpServers\[0\]\.auth\.token: "__redacted__" keeps a stored secret/);
    expect(await versionsOf(agentId)).toEqual([1]);
  });
});

describe('rest-api secrets', () => {
  const restAgent = (options: Record<string, unknown>) => minimalAgent({ contextGathering: { strategies: ['rest-api'], strategyOptions: { 'rest-api': options } } });

  it('are kept while the url stays, and must be sent again with a new url', async () => {
    const { agentId } = (await client.agents.createAgent(restAgent({ url: 'https://api.example.com', auth: { token: 'REST-SECRET' } }))).data;
    const gathering = (url: string, token: string) => ({ strategies: ['rest-api'], strategyOptions: { 'rest-api': { url, auth: { token } } } });
    await expectCollabError(
      update({ agentId, contextGathering: gathering('https://evil.example.com', R) }),
      'INVALID_ARGUMENT',
      /data\.contextGathering\.strategyOptions\.rest-api\.auth\.token: "__redacted__" keeps a stored secret.*url.*send the secret again/,
    );
    await update({ agentId, contextGathering: gathering('https://api.example.com', R) });
    expect((await opened(agentId, 2)).contextGathering.strategyOptions['rest-api'].auth).toEqual({ token: 'REST-SECRET' });
  });
});
