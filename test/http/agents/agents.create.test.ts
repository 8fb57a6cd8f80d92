// Create Agent: every row of the specification's Create Agent tables, the
// conditional requirements, forwarding of unknown behavioral fields (and their
// refusal inside postProcess), and the service's own bounds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError, expectCredentialChecks } from '../../helpers/credentials.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';
import { applicationIdOf, DEFAULT_POST_PROCESS, minimalAgent } from './fixtures.js';

let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;

beforeAll(async () => {
  server = await startTestServer();
  ws = await server.workspace();
  client = server.client(ws);
});
afterAll(() => server?.close());

const create = (data: Record<string, unknown>) => client.agents.createAgent(data as never);
const refused = (data: Record<string, unknown>, field: RegExp) => expectCollabError(create(data), 'INVALID_ARGUMENT', field);

describe('Create Agent', () => {
  it('creates a custom agent and its version 1, answering {agentId, agent} as Get Agent(s) reads it', async () => {
    const { data } = await client.agents.createAgent(minimalAgent());
    expect(data.agentId).toMatch(/^agt_/);
    expect(data.agent).toEqual({
      id: data.agentId,
      name: 'Link checker',
      description: 'Checks the links of a page.',
      enabled: true,
      managedBy: 'customer',
      version: 1,
      instructions: 'Report every broken link.',
      contextGathering: { strategies: ['web-page-text'] },
      execution: { executionStrategy: 'ai' },
      postProcess: DEFAULT_POST_PROCESS,
    });
    expect(data.agent).not.toHaveProperty('system');
    expect(data.agent).not.toHaveProperty('executionCount');
    expect((await client.agents.getAgents({ agentId: data.agentId })).data).toEqual({ agent: data.agent });
    const versions = await client.agents.getAgentVersions({ agentId: data.agentId });
    expect(versions.data.map((v) => v.version)).toEqual([1]);
  });

  it('stores every field of the tables and returns it as given, metadata and setup included', async () => {
    const full = minimalAgent({
      enabled: false,
      rawInstructions: 'find the broken links pls',
      instructions: 'Find every broken link.',
      metadata: { team: 'web', nested: { level: [1, 2, { deep: true }] }, score: 0.75 },
      contextGathering: { strategies: ['web-page-links', 'sitemap-data'], strategyOptions: { 'sitemap-data': { maxUrls: 50 } }, aiConfig: { model: 'x', temperature: 0.2 } },
      execution: {
        executionStrategy: 'service+ai',
        serviceId: 'broken-links',
        aiConfig: { maxTokens: 1000 },
        responseDescriptions: { finding: 'A broken link' },
        strategyOptions: { retries: 2 },
        knowledge: { sources: ['kb-1'] },
      },
      response: { useAiFormatting: true, formattingPrompt: 'As a table.', responseAdapter: 'broken-links-response' },
      postProcess: {
        guardrails: { enabled: false },
        deletePreviousSuggestions: { enabled: true },
        annotations: { enabled: true, strategy: 'word-level' },
        analytics: {},
        customProcessors: ['dedupe-by-host'],
      },
      input: {
        variableKeys: ['url'],
        userContextFields: [
          { id: 'url', title: 'URL', type: 'string', required: true, example: 'https://example.com', defaultValue: 'https://example.com' },
          { id: 'depth', title: 'Depth', type: 'number', defaultValue: 2.5 },
          { id: 'strict', title: 'Strict', type: 'boolean', defaultValue: false },
        ],
        inputRequirements: { requires: ['url'], requiresOneOf: ['url', 'sitemap'] },
        supportedVariables: ['{{url}}'],
      },
      scope: {
        pageScope: ['https://example.com/**'],
        pageScopeExclude: ['https://example.com/private/**'],
        contentTypes: ['text/html'],
        crossPage: { enabled: true, targetProperty: 'title', pageDiscovery: 'sitemap', pages: [{ url: 'https://example.com/a' }], sourceOfTruthKnowledgeSourceId: 'ks-1' },
      },
      setup: { setupSamples: [{ input: 'x', output: 'y' }], checklistOrigin: 'template-7' },
    });
    const { data } = await client.agents.createAgent(full);
    const { name, description, enabled, postProcess, execution, ...behavior } = full as Record<string, unknown>;
    expect(data.agent).toEqual({
      id: data.agentId,
      name,
      description,
      enabled,
      managedBy: 'customer',
      version: 1,
      ...behavior,
      execution,
      // Stages default to enabled: `analytics: {}` reads enabled.
      postProcess: { ...(postProcess as object), analytics: { enabled: true } },
    });
  });

  it('forwards behavioral fields it does not know (top level and inside the open objects), but refuses unknown keys inside postProcess', async () => {
    const { data } = await create({
      ...minimalAgent(),
      futureField: { anything: [1, 'two'] },
      contextGathering: { strategies: ['web-page-text'], extra: true },
      execution: { executionStrategy: 'ai', retryPolicy: 'none' },
      response: { useAiFormatting: false, tone: 'friendly' },
      input: { userContextFields: [{ id: 'a', title: 'A', type: 'string', hint: 'free' }], other: 1 },
      scope: { pageScope: ['*'], region: 'eu' },
    });
    expect(data.agent).toMatchObject({
      futureField: { anything: [1, 'two'] },
      contextGathering: { strategies: ['web-page-text'], extra: true },
      execution: { executionStrategy: 'ai', retryPolicy: 'none' },
      response: { useAiFormatting: false, tone: 'friendly' },
      input: { userContextFields: [{ id: 'a', title: 'A', type: 'string', hint: 'free' }], other: 1 },
      scope: { pageScope: ['*'], region: 'eu' },
    });
    expect((await client.agents.getAgents({ agentId: data.agentId })).data).toEqual({ agent: data.agent });

    await refused({ ...minimalAgent(), postProcess: { guardrails: { enabled: true }, somethingElse: {} } }, /unknown field\(s\) data\.postProcess\.somethingElse/);
    await refused({ ...minimalAgent(), postProcess: { guardrails: { enabled: true, mode: 'x' } } }, /data\.postProcess\.guardrails\.mode/);
    await refused({ ...minimalAgent(), postProcess: { annotations: { strategy: 'findings', color: 'red' } } }, /data\.postProcess\.annotations\.color/);
    await refused({ ...minimalAgent(), postProcess: { matchAndMerge: { enabled: true, threshold: 1 } } }, /data\.postProcess\.matchAndMerge\.threshold/);
  });

  it('reads every postProcess stage as enabled unless enabled is false; accepts matchAndMerge and ignores it', async () => {
    const off = await client.agents.createAgent(
      minimalAgent({
        postProcess: { guardrails: { enabled: false }, deletePreviousSuggestions: { enabled: false }, annotations: { enabled: false }, analytics: { enabled: false }, matchAndMerge: { enabled: true } },
      }),
    );
    expect(off.data.agent.postProcess).toEqual({
      guardrails: { enabled: false },
      deletePreviousSuggestions: { enabled: false },
      annotations: { enabled: false, strategy: 'findings' },
      analytics: { enabled: false },
    });
    const empty = await client.agents.createAgent(minimalAgent({ postProcess: { guardrails: {}, matchAndMerge: { enabled: false } } }));
    expect(empty.data.agent.postProcess).toEqual(DEFAULT_POST_PROCESS);
    const stored = await server.running.database.db.agentVersion.findFirstOrThrow({ where: { agentId: empty.data.agentId } });
    expect(stored.config).not.toContain('matchAndMerge');
  });

  it('requires name, description (min 1 character each), enabled, contextGathering and execution', async () => {
    const { name: _n, ...noName } = minimalAgent();
    await refused(noName, /data\.name is required/);
    await refused(minimalAgent({ name: '' }), /data\.name/);
    await refused(minimalAgent({ description: '' }), /data\.description/);
    const { description: _d, ...noDescription } = minimalAgent();
    await refused(noDescription, /data\.description is required/);
    const { enabled: _e, ...noEnabled } = minimalAgent();
    await refused(noEnabled, /data\.enabled is required/);
    await refused(minimalAgent({ enabled: 'yes' }), /data\.enabled must be boolean/);
    const { contextGathering: _c, ...noGathering } = minimalAgent();
    await refused(noGathering, /data\.contextGathering is required/);
    const { execution: _x, ...noExecution } = minimalAgent();
    await refused(noExecution, /data\.execution is required/);
    await refused(minimalAgent({ name: 'x'.repeat(201) }), /data\.name/);
    await refused(minimalAgent({ description: 'x'.repeat(2001) }), /data\.description/);
    expect((await client.agents.createAgent(minimalAgent({ name: 'n', description: 'd' }))).data.agent).toMatchObject({ name: 'n', description: 'd' });
  });

  it('requires instructions for ai (the default), service+ai, browser-agent and mcp-tools; only pure service agents may omit them', async () => {
    const { instructions: _i, ...withoutInstructions } = minimalAgent();
    const server1 = { mcpServers: [{ name: 'docs', url: 'https://mcp.example.com' }] };
    for (const execution of [{}, { executionStrategy: 'ai' }, { executionStrategy: 'service+ai', serviceId: 'crawler' }, { executionStrategy: 'browser-agent' }, { executionStrategy: 'mcp-tools', ...server1 }]) {
      await refused({ ...withoutInstructions, execution }, /data\.instructions: is required/);
      await create({ ...minimalAgent(), execution });
    }
    const service = await create({ ...withoutInstructions, execution: { executionStrategy: 'service', serviceId: 'screenshot' } });
    expect(service.data.agent).not.toHaveProperty('instructions');
    await refused({ ...minimalAgent(), instructions: '' }, /data\.instructions/);
  });

  it('requires serviceId for service and service+ai, one of the five service IDs', async () => {
    await refused(minimalAgent({ execution: { executionStrategy: 'service' } }), /data\.execution\.serviceId: is required for executionStrategy service/);
    await refused(minimalAgent({ execution: { executionStrategy: 'service+ai' } }), /data\.execution\.serviceId: is required for executionStrategy service\+ai/);
    for (const serviceId of ['broken-links', 'crawler', 'screenshot', 'accessibility-checker', 'og-image-checker']) {
      const { data } = await create(minimalAgent({ execution: { executionStrategy: 'service', serviceId } }));
      expect(data.agent.execution).toEqual({ executionStrategy: 'service', serviceId });
    }
    await refused(minimalAgent({ execution: { executionStrategy: 'service', serviceId: 'link-checker' } }), /data\.execution\.serviceId/);
  });

  it('takes exactly the five execution strategies, ai by default', async () => {
    for (const executionStrategy of ['ai', 'service', 'service+ai', 'browser-agent', 'mcp-tools']) {
      const { data } = await create(minimalAgent({ execution: { executionStrategy, serviceId: 'crawler', mcpServers: [{ name: 's' }] } }));
      expect(data.agent.execution.executionStrategy).toBe(executionStrategy);
    }
    await refused(minimalAgent({ execution: { executionStrategy: 'Service' } }), /data\.execution\.executionStrategy/);
    await refused(minimalAgent({ execution: { executionStrategy: 'ai+service' } }), /data\.execution\.executionStrategy/);
  });

  it('needs at least one mcpServers entry for mcp-tools', async () => {
    await refused(minimalAgent({ execution: { executionStrategy: 'mcp-tools' } }), /data\.execution\.mcpServers: needs at least 1 server/);
    await refused(minimalAgent({ execution: { executionStrategy: 'mcp-tools', mcpServers: [] } }), /data\.execution\.mcpServers: needs at least 1 server/);
    await refused(minimalAgent({ execution: { executionStrategy: 'mcp-tools', mcpServers: ['https://mcp.example.com'] } }), /data\.execution\.mcpServers\[0\]/);
    const { data } = await create(minimalAgent({ execution: { executionStrategy: 'mcp-tools', mcpServers: [{ url: 'https://mcp.example.com', tools: ['search'] }] } }));
    expect(data.agent.execution.mcpServers).toEqual([{ url: 'https://mcp.example.com', tools: ['search'] }]);
    // Other strategies may carry servers too; they are stored.
    expect((await create(minimalAgent({ execution: { mcpServers: [] } }))).data.agent.execution.mcpServers).toEqual([]);
  });

  it('needs at least one context gathering strategy, and strategyOptions.rest-api when rest-api is one', async () => {
    await refused(minimalAgent({ contextGathering: { strategies: [] } }), /data\.contextGathering\.strategies/);
    await refused(minimalAgent({ contextGathering: {} }), /data\.contextGathering\.strategies is required/);
    await refused(minimalAgent({ contextGathering: { strategies: ['web-page-text', 'web-page-text'] } }), /data\.contextGathering\.strategies: must not name a strategy twice/);
    await refused(minimalAgent({ contextGathering: { strategies: [''] } }), /data\.contextGathering\.strategies\[0\]/);
    const all = ['web-page-text', 'web-page-screenshot', 'web-page-html', 'web-page-css', 'web-page-links', 'web-page-accessibility', 'computed-styles', 'robots-txt', 'sitemap-data', 'a-later-strategy'];
    expect((await create(minimalAgent({ contextGathering: { strategies: all } }))).data.agent.contextGathering.strategies).toEqual(all);
    await refused(minimalAgent({ contextGathering: { strategies: ['rest-api'] } }), /data\.contextGathering\.strategyOptions\.rest-api: is required when/);
    await refused(minimalAgent({ contextGathering: { strategies: ['rest-api'], strategyOptions: { 'web-page-text': {} } } }), /strategyOptions\.rest-api: is required/);
    await refused(minimalAgent({ contextGathering: { strategies: ['rest-api'], strategyOptions: { 'rest-api': 'https://api.example.com' } } }), /strategyOptions\.rest-api/);
    const rest = await create(minimalAgent({ contextGathering: { strategies: ['rest-api'], strategyOptions: { 'rest-api': { url: 'https://api.example.com', method: 'GET' } } } }));
    expect(rest.data.agent.contextGathering.strategyOptions).toEqual({ 'rest-api': { url: 'https://api.example.com', method: 'GET' } });
    // rest-api options without the strategy: stored, not required.
    await create(minimalAgent({ contextGathering: { strategies: ['web-page-text'], strategyOptions: { 'rest-api': { url: 'https://api.example.com' } } } }));
  });

  it('takes exactly the five response adapters, and boolean/string response fields', async () => {
    for (const responseAdapter of ['broken-links-response', 'crawler-response', 'screenshot-response', 'accessibility-checker-response', 'og-image-checker-response']) {
      expect((await create(minimalAgent({ response: { responseAdapter } }))).data.agent.response).toEqual({ responseAdapter });
    }
    await refused(minimalAgent({ response: { responseAdapter: 'broken-links' } }), /data\.response\.responseAdapter/);
    await refused(minimalAgent({ response: { useAiFormatting: 'yes' } }), /data\.response\.useAiFormatting must be boolean/);
    await refused(minimalAgent({ response: { formattingPrompt: 7 } }), /data\.response\.formattingPrompt must be string/);
  });

  it('takes exactly the four annotation strategies, findings by default', async () => {
    for (const strategy of ['findings', 'word-level', 'page-level', 'none']) {
      expect((await create(minimalAgent({ postProcess: { annotations: { strategy } } }))).data.agent.postProcess.annotations).toEqual({ enabled: true, strategy });
    }
    await refused(minimalAgent({ postProcess: { annotations: { strategy: 'sentence-level' } } }), /data\.postProcess\.annotations\.strategy/);
    await refused(minimalAgent({ postProcess: { analytics: { enabled: 'no' } } }), /data\.postProcess\.analytics\.enabled must be boolean/);
    await refused(minimalAgent({ postProcess: { customProcessors: 'dedupe' } }), /data\.postProcess\.customProcessors/);
  });

  it('checks user context fields: id and title of at least 1 character, type string, number or boolean', async () => {
    const field = (overrides: Record<string, unknown>) => minimalAgent({ input: { userContextFields: [{ id: 'f', title: 'F', type: 'string', ...overrides }] } });
    for (const type of ['string', 'number', 'boolean']) await create(field({ type }));
    await refused(field({ type: 'date' }), /data\.input\.userContextFields\[0\]\.type/);
    await refused(field({ id: '' }), /data\.input\.userContextFields\[0\]\.id/);
    await refused(field({ title: '' }), /data\.input\.userContextFields\[0\]\.title/);
    const { id: _id, ...noId } = { id: 'f', title: 'F', type: 'string' };
    await refused(minimalAgent({ input: { userContextFields: [noId] } }), /data\.input\.userContextFields\[0\]\.id is required/);
    await refused(field({ required: 'true' }), /\.required must be boolean/);
    await refused(field({ example: 3 }), /\.example must be string/);
    await refused(field({ defaultValue: { a: 1 } }), /\.defaultValue/);
    await refused(field({ defaultValue: [1] }), /\.defaultValue/);
    for (const defaultValue of ['x', 0, -3.25, true]) {
      expect((await create(field({ defaultValue }))).data.agent.input?.userContextFields?.[0]?.defaultValue).toBe(defaultValue);
    }
    await refused(minimalAgent({ input: { variableKeys: 'url' } }), /data\.input\.variableKeys/);
    await refused(minimalAgent({ input: { inputRequirements: { requires: 'url' } } }), /data\.input\.inputRequirements\.requires/);
    await refused(minimalAgent({ input: { supportedVariables: [1] } }), /data\.input\.supportedVariables\[0\]/);
  });

  it('checks the scope lists and keeps crossPage as given', async () => {
    await refused(minimalAgent({ scope: { pageScope: 'https://example.com/**' } }), /data\.scope\.pageScope/);
    await refused(minimalAgent({ scope: { pageScopeExclude: [1] } }), /data\.scope\.pageScopeExclude\[0\]/);
    await refused(minimalAgent({ scope: { contentTypes: [''] } }), /data\.scope\.contentTypes\[0\]/);
    await refused(minimalAgent({ scope: { crossPage: true } }), /data\.scope\.crossPage/);
    const crossPage = { enabled: false, anything: { else: ['kept'] } };
    expect((await create(minimalAgent({ scope: { crossPage } }))).data.agent.scope).toEqual({ crossPage });
  });

  it('refuses non-objects where the tables name objects', async () => {
    for (const [field, value] of [
      ['metadata', 'x'],
      ['setup', []],
      ['contextGathering', ['web-page-text']],
      ['execution', null],
      ['response', 'plain'],
      ['postProcess', true],
      ['input', 1],
      ['scope', 'all'],
    ] as const) {
      await refused(minimalAgent({ [field]: value }), new RegExp(`data\\.${field}`));
    }
    await refused(minimalAgent({ execution: { aiConfig: 'gpt' } }), /data\.execution\.aiConfig/);
    await refused(minimalAgent({ execution: { knowledge: [] } }), /data\.execution\.knowledge/);
    await refused(minimalAgent({ contextGathering: { strategies: ['web-page-text'], aiConfig: 1 } }), /data\.contextGathering\.aiConfig/);
  });

  it('bounds the configuration: instructions, lists, the whole of it (256 KiB as JSON) and its depth', async () => {
    await refused(minimalAgent({ instructions: 'x'.repeat(100_001) }), /data\.instructions/);
    await create(minimalAgent({ instructions: 'x'.repeat(100_000) }));
    await refused(minimalAgent({ contextGathering: { strategies: Array.from({ length: 21 }, (_, i) => `s${i}`) } }), /data\.contextGathering\.strategies/);
    await refused(minimalAgent({ execution: { mcpServers: Array.from({ length: 21 }, () => ({})) } }), /data\.execution\.mcpServers/);
    await refused(minimalAgent({ input: { variableKeys: Array.from({ length: 101 }, (_, i) => `v${i}`) } }), /data\.input\.variableKeys/);
    await refused(minimalAgent({ metadata: { blob: 'x'.repeat(262_144) } }), /at most 262144 bytes as JSON/);
    await create(minimalAgent({ metadata: { blob: 'x'.repeat(200_000) } }));
    let deep: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 40; i++) deep = { deeper: deep };
    await refused(minimalAgent({ metadata: deep }), /at most 32 levels deep/);
  });

  it('refuses the keys the reads use, so a configuration cannot pose as identity or counters', async () => {
    for (const key of ['agentId', 'id', 'version', 'managedBy', 'system', 'executionCount', 'lastExecutedAt']) {
      await refused({ ...minimalAgent(), [key]: 'x' }, new RegExp(`data\\.${key}: is set by the service`));
    }
  });

  it('is FAILED_PRECONDITION past 1000 custom agents in an application', async () => {
    const other = await server.workspace();
    const apiKeyId = await applicationIdOf(server, other);
    await server.running.database.db.agent.createMany({
      data: Array.from({ length: 999 }, (_, i) => ({ apiKeyId, id: `agt_seed${i}`, name: 'seed', description: 'seed', enabled: true, latestVersion: 1, createdAt: 1n, updatedAt: 1n })),
    });
    const otherClient = server.client(other);
    await otherClient.agents.createAgent(minimalAgent());
    await expectCollabError(otherClient.agents.createAgent(minimalAgent()), 'FAILED_PRECONDITION', /at most 1000 custom agents/);
    // Another application is not affected.
    await client.agents.createAgent(minimalAgent());
  });

  it('checks credentials', async () => {
    await expectCredentialChecks(server, ws, '/v2/agents/create', minimalAgent());
  });
});
