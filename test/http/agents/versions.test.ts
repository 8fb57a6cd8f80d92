// Update Agent Version, Get Agent Versions and Get Agent Version: version N+1
// from the latest merged one level deep, the merged configuration checked as
// Create Agent checks it, and reads of every version.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { testClock } from '../../../server/lib/clock.js';
import { expectCollabError, expectCredentialChecks } from '../../helpers/credentials.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';
import { applicationIdOf, BUILTIN_IDS, DEFAULT_POST_PROCESS, minimalAgent } from './fixtures.js';

const clock = testClock(Date.UTC(2026, 7, 1));
let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;

beforeAll(async () => {
  server = await startTestServer({}, { overrides: { clock } });
  ws = await server.workspace();
  client = server.client(ws);
});
afterAll(() => server?.close());

const newAgent = async (overrides: Record<string, unknown> = {}) => (await client.agents.createAgent(minimalAgent(overrides))).data;
const update = (data: Record<string, unknown>) => client.agents.updateAgentVersion(data as never);
const latest = async (agentId: string) => ((await client.agents.getAgents({ agentId })).data as { agent: Record<string, any> }).agent;

describe('Update Agent Version', () => {
  it('creates version N+1 from the latest, merging each given object one level deep; reads return it and its version', async () => {
    const { agentId, agent: v1 } = await newAgent({
      metadata: { team: 'web', limits: { pages: 10, depth: 2 } },
      execution: { executionStrategy: 'service+ai', serviceId: 'crawler', aiConfig: { model: 'm1', options: { temperature: 0.1 } } },
      response: { useAiFormatting: true, formattingPrompt: 'Short.' },
    });
    clock.advance(1000);
    const { data } = await update({ agentId, metadata: { limits: { pages: 20 } }, execution: { aiConfig: { options: { topP: 0.9 } } } });
    expect(data.version).toBe(2);
    expect(data.agentId).toBe(agentId);
    expect(data.agent).toEqual({
      ...v1,
      version: 2,
      // One level deep: `limits` and `aiConfig` are replaced whole, their siblings kept.
      metadata: { team: 'web', limits: { pages: 20 } },
      execution: { executionStrategy: 'service+ai', serviceId: 'crawler', aiConfig: { options: { topP: 0.9 } } },
    });
    expect(await latest(agentId)).toEqual(data.agent);

    clock.advance(1000);
    const v3 = (await update({ agentId, instructions: 'Be thorough.', contextGathering: { strategies: ['web-page-html'] } })).data;
    expect(v3.version).toBe(3);
    expect(v3.agent).toMatchObject({ instructions: 'Be thorough.', contextGathering: { strategies: ['web-page-html'] }, metadata: { team: 'web', limits: { pages: 20 } } });
    // Earlier versions are unchanged.
    expect((await client.agents.getAgentVersion({ agentId, version: 1 })).data).toEqual({ agentId, version: 1, createdAt: Date.UTC(2026, 7, 1), agent: v1 });
    expect((await client.agents.getAgentVersion({ agentId, version: 2 })).data.agent).toEqual(data.agent);
    const list = (await client.agents.getAgents({ filter: 'customOnly' })).data as { agents: { id: string; version: number }[] };
    expect(list.agents.find((a) => a.id === agentId)?.version).toBe(3);
  });

  it('replaces non-object values, adds fields it does not know, and removes a field sent as null', async () => {
    const { agentId } = await newAgent({ response: { useAiFormatting: true }, scope: { pageScope: ['a/**'] }, customThing: { x: 1 } });
    const { data } = await update({
      agentId,
      scope: { pageScope: ['b/**'] },
      response: null,
      customThing: null,
      laterField: ['kept'],
      rawInstructions: 'raw',
    });
    expect(data.agent).not.toHaveProperty('response');
    expect(data.agent).not.toHaveProperty('customThing');
    expect(data.agent).toMatchObject({ scope: { pageScope: ['b/**'] }, laterField: ['kept'], rawInstructions: 'raw' });
    await expectCollabError(update({ agentId, contextGathering: null }), 'INVALID_ARGUMENT', /data\.contextGathering/);
    await expectCollabError(update({ agentId, execution: null }), 'INVALID_ARGUMENT', /data\.execution/);
  });

  it('takes contextGathering without strategies (the stored ones stay) and null for an inner key to remove it', async () => {
    const { agentId } = await newAgent({
      contextGathering: { strategies: ['web-page-text'], aiConfig: { model: 'm' } },
      execution: { executionStrategy: 'service+ai', serviceId: 'crawler', aiConfig: { model: 'm' } },
      response: { useAiFormatting: true, formattingPrompt: 'Short.' },
      metadata: { team: 'web', keep: null },
      postProcess: { guardrails: { enabled: false } },
    });
    const { data } = await update({
      agentId,
      contextGathering: { aiConfig: null, strategyOptions: { 'web-page-text': { maxChars: 1000 } } },
      execution: { executionStrategy: null, serviceId: null, aiConfig: null },
      response: { formattingPrompt: null },
      metadata: { team: null, added: 1 },
      postProcess: { guardrails: null },
    });
    expect(data.agent.contextGathering).toEqual({ strategies: ['web-page-text'], strategyOptions: { 'web-page-text': { maxChars: 1000 } } });
    expect(data.agent.execution).toEqual({ executionStrategy: 'ai' });
    expect(data.agent.response).toEqual({ useAiFormatting: true });
    // A null stored before stays: only the keys sent as null go.
    expect(data.agent.metadata).toEqual({ keep: null, added: 1 });
    expect(data.agent.postProcess).toEqual(DEFAULT_POST_PROCESS);
    // Removing what the merged configuration needs is refused by the rules of Create Agent.
    await expectCollabError(update({ agentId, contextGathering: { strategies: null } }), 'INVALID_ARGUMENT', /data\.contextGathering\.strategies is required/);
    await expectCollabError(update({ agentId, execution: { executionStrategy: 'service', serviceId: null } }), 'INVALID_ARGUMENT', /data\.execution\.serviceId: is required/);
    await expectCollabError(update({ agentId, contextGathering: { strategies: [] } }), 'INVALID_ARGUMENT', /data\.contextGathering\.strategies/);
    expect((await client.agents.getAgentVersions({ agentId })).data.map((v) => v.version)).toEqual([2, 1]);
    // Deeper down nothing merges: an inner object is replaced as given, nulls and all.
    const v3 = (await update({ agentId, execution: { aiConfig: { temperature: null } } })).data;
    expect(v3.agent.execution).toEqual({ executionStrategy: 'ai', aiConfig: { temperature: null } });
  });

  it('checks the merged configuration with the rules of Create Agent, and writes no version when it fails', async () => {
    const { agentId } = await newAgent();
    await expectCollabError(update({ agentId, execution: { executionStrategy: 'service' } }), 'INVALID_ARGUMENT', /data\.execution\.serviceId: is required for executionStrategy service/);
    await expectCollabError(update({ agentId, execution: { executionStrategy: 'mcp-tools' } }), 'INVALID_ARGUMENT', /data\.execution\.mcpServers: needs at least 1/);
    await expectCollabError(update({ agentId, instructions: null }), 'INVALID_ARGUMENT', /data\.instructions: is required for executionStrategy ai/);
    await expectCollabError(update({ agentId, contextGathering: { strategies: ['rest-api'] } }), 'INVALID_ARGUMENT', /data\.contextGathering\.strategyOptions\.rest-api: is required/);
    await expectCollabError(update({ agentId, contextGathering: { strategies: [] } }), 'INVALID_ARGUMENT', /data\.contextGathering\.strategies/);
    await expectCollabError(update({ agentId, execution: { serviceId: 'nope' } }), 'INVALID_ARGUMENT', /data\.execution\.serviceId/);
    await expectCollabError(update({ agentId, postProcess: { annotations: { strategy: 'all' } } }), 'INVALID_ARGUMENT', /data\.postProcess\.annotations\.strategy/);
    await expectCollabError(update({ agentId, postProcess: { extra: {} } }), 'INVALID_ARGUMENT', /unknown field\(s\) data\.postProcess\.extra/);
    await expectCollabError(update({ agentId, input: { userContextFields: [{ id: '', title: 't', type: 'string' }] } }), 'INVALID_ARGUMENT', /userContextFields\[0\]\.id/);
    expect((await client.agents.getAgentVersions({ agentId })).data.map((v) => v.version)).toEqual([1]);

    // Valid once merged: the service strategy with its serviceId and without instructions.
    const service = (await update({ agentId, execution: { executionStrategy: 'service', serviceId: 'screenshot' }, instructions: null })).data;
    expect(service.agent.execution).toEqual({ executionStrategy: 'service', serviceId: 'screenshot' });
    expect(service.agent).not.toHaveProperty('instructions');
    // The rest-api strategy once its options come along (the stored options object merges one level deep).
    const rest = (await update({ agentId, contextGathering: { strategies: ['rest-api'], strategyOptions: { 'rest-api': { url: 'https://api.example.com' } } } })).data;
    expect(rest.agent.contextGathering).toEqual({ strategies: ['rest-api'], strategyOptions: { 'rest-api': { url: 'https://api.example.com' } } });
  });

  it('bounds the merged configuration to 256 KiB as JSON', async () => {
    const { agentId } = await newAgent({ metadata: { blob: 'x'.repeat(150_000) } });
    await expectCollabError(update({ agentId, setup: { blob: 'y'.repeat(150_000) } }), 'INVALID_ARGUMENT', /at most 262144 bytes as JSON/);
    await update({ agentId, metadata: { blob: 'small' }, setup: { blob: 'y'.repeat(150_000) } });
  });

  it('accepts postProcess.matchAndMerge and ignores it; stages keep defaulting to enabled', async () => {
    const { agentId } = await newAgent({ postProcess: { guardrails: { enabled: false } } });
    const { data } = await update({ agentId, postProcess: { matchAndMerge: { enabled: false }, analytics: { enabled: false } } });
    expect(data.agent.postProcess).toEqual({ ...DEFAULT_POST_PROCESS, guardrails: { enabled: false }, analytics: { enabled: false } });
  });

  it('refuses identity fields, keys the reads use, and a request without behavioral fields', async () => {
    const { agentId } = await newAgent();
    for (const key of ['name', 'description', 'enabled']) {
      await expectCollabError(update({ agentId, [key]: key === 'enabled' ? false : 'x' }), 'INVALID_ARGUMENT', new RegExp(`data\\.${key}: is an identity field`));
    }
    for (const key of ['id', 'version', 'managedBy', 'system', 'executionCount', 'lastExecutedAt']) {
      await expectCollabError(update({ agentId, [key]: 1 }), 'INVALID_ARGUMENT', new RegExp(`data\\.${key}: is set by the service`));
    }
    await expectCollabError(update({ agentId }), 'INVALID_ARGUMENT', /give at least one behavioral field/);
    await expectCollabError(update({ instructions: 'x' }), 'INVALID_ARGUMENT', /data\.agentId is required/);
  });

  it('keeps identity apart: Update Agent between versions shows in the next version, without a version of its own', async () => {
    const { agentId } = await newAgent();
    await client.agents.updateAgent({ agentId, name: 'Renamed', enabled: false });
    const { data } = await update({ agentId, instructions: 'v2' });
    expect(data).toMatchObject({ version: 2, agent: { name: 'Renamed', enabled: false, instructions: 'v2' } });
    // A version read shows the current identity with that version's behavior.
    expect((await client.agents.getAgentVersion({ agentId, version: 1 })).data.agent).toMatchObject({ name: 'Renamed', enabled: false, version: 1, instructions: 'Report every broken link.' });
  });

  it('numbers concurrent updates one after the other, each merged onto the previous', async () => {
    const { agentId } = await newAgent({ metadata: {} });
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => update({ agentId, metadata: { [`k${i}`]: i } })));
    expect(results.map((r) => r.data.version).sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7]);
    // Each version adds its key to the one before: the latest has them all.
    expect((await latest(agentId)).metadata).toEqual({ k0: 0, k1: 1, k2: 2, k3: 3, k4: 4, k5: 5 });
    expect((await client.agents.getAgentVersions({ agentId })).data.map((v) => v.version)).toEqual([7, 6, 5, 4, 3, 2, 1]);
  });

  it('is FAILED_PRECONDITION for a built-in agent and NOT_FOUND for an unknown one', async () => {
    for (const agentId of BUILTIN_IDS) {
      await expectCollabError(update({ agentId, instructions: 'x' }), 'FAILED_PRECONDITION', /built-in agents are not versioned/);
    }
    await expectCollabError(update({ agentId: 'agt_nope', instructions: 'x' }), 'NOT_FOUND', /no agent agt_nope/);
  });

  it('checks credentials', async () => {
    await expectCredentialChecks(server, ws, '/v2/agents/version/update', { agentId: 'agt_x', instructions: 'x' });
  });
});

describe('Get Agent Versions', () => {
  it('lists {version, createdAt} newest first, paged by an opaque token tied to the agent', async () => {
    const { agentId } = await newAgent();
    const start = clock.nowMs();
    for (let i = 0; i < 4; i++) {
      clock.advance(10);
      await update({ agentId, instructions: `v${i + 2}` });
    }
    const all = (await client.agents.getAgentVersions({ agentId })).data;
    expect(all).toEqual([5, 4, 3, 2, 1].map((version) => ({ version, createdAt: start + (version - 1) * 10 })));
    const seen: number[] = [];
    let pageToken: string | undefined;
    do {
      const page = await client.agents.getAgentVersions({ agentId, pageSize: 2, ...(pageToken ? { pageToken } : {}) });
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((v) => v.version));
      pageToken = page.pageToken ?? undefined;
    } while (pageToken);
    expect(seen).toEqual([5, 4, 3, 2, 1]);
    const first = await client.agents.getAgentVersions({ agentId, pageSize: 2 });
    const other = await newAgent();
    await expectCollabError(client.agents.getAgentVersions({ agentId: other.agentId, pageToken: first.pageToken! }), 'INVALID_ARGUMENT', /pageToken/);
    await expectCollabError(client.agents.getAgentVersions({ agentId, pageToken: 'forged.token' }), 'INVALID_ARGUMENT', /pageToken/);
    await expectCollabError(client.agents.getAgentVersions({ agentId, pageSize: 0 }), 'INVALID_ARGUMENT', /data\.pageSize/);
  });

  it('is FAILED_PRECONDITION for a built-in agent and NOT_FOUND for an unknown one', async () => {
    await expectCollabError(client.agents.getAgentVersions({ agentId: 'crawler' }), 'FAILED_PRECONDITION', /built-in agents have no versions/);
    await expectCollabError(client.agents.getAgentVersions({ agentId: 'agt_nope' }), 'NOT_FOUND');
  });

  it('checks credentials', async () => {
    await expectCredentialChecks(server, ws, '/v2/agents/versions/get', { agentId: 'agt_x' });
  });
});

describe('Get Agent Version', () => {
  it('reads one version with the agent identity; NOT_FOUND for a version the agent does not have', async () => {
    const { agentId, agent } = await newAgent();
    expect((await client.agents.getAgentVersion({ agentId, version: 1 })).data).toEqual({ agentId, version: 1, createdAt: clock.nowMs(), agent });
    await expectCollabError(client.agents.getAgentVersion({ agentId, version: 2 }), 'NOT_FOUND', /has no version 2/);
    await expectCollabError(client.agents.getAgentVersion({ agentId, version: 0 }), 'INVALID_ARGUMENT', /data\.version/);
    await expectCollabError(client.agents.getAgentVersion({ agentId } as never), 'INVALID_ARGUMENT', /data\.version is required/);
  });

  it('is FAILED_PRECONDITION for a built-in agent and NOT_FOUND for an unknown one', async () => {
    await expectCollabError(client.agents.getAgentVersion({ agentId: 'screenshot', version: 1 }), 'FAILED_PRECONDITION');
    await expectCollabError(client.agents.getAgentVersion({ agentId: 'agt_nope', version: 1 }), 'NOT_FOUND');
  });

  it('checks credentials', async () => {
    await expectCredentialChecks(server, ws, '/v2/agents/version/get', { agentId: 'agt_x', version: 1 });
  });

  it('stores each version as its own row', async () => {
    const { agentId } = await newAgent();
    await update({ agentId, instructions: 'two' });
    const apiKeyId = await applicationIdOf(server, ws);
    const rows = await server.running.database.db.agentVersion.findMany({ where: { apiKeyId, agentId }, orderBy: { version: 'asc' } });
    expect(rows.map((r) => [r.version, JSON.parse(r.config).instructions])).toEqual([
      [1, 'Report every broken link.'],
      [2, 'two'],
    ]);
  });
});

describe('Restore Agent Version', () => {
  it('writes version N+1 equal to the old one, secrets as they were stored, and runs use it', async () => {
    const server1 = { name: 'guide', url: 'https://mcp.example.com/guide', headers: { Authorization: 'Bearer restore-secret-1' } };
    const { agentId } = await newAgent({ instructions: 'first', execution: { executionStrategy: 'mcp-tools', mcpServers: [server1] } });
    await update({ agentId, instructions: 'second', execution: { mcpServers: [{ ...server1, headers: { Authorization: 'Bearer restore-secret-2' } }] } });
    const { data } = await client.agents.restoreAgentVersion({ agentId, version: 1 });
    expect(data).toMatchObject({ agentId, version: 3, restoredFrom: 1 });
    expect(data.agent).toMatchObject({ version: 3, instructions: 'first' });
    expect(await latest(agentId)).toMatchObject({ version: 3, instructions: 'first' });
    const apiKeyId = await applicationIdOf(server, ws);
    const rows = await server.running.database.db.agentVersion.findMany({ where: { apiKeyId, agentId }, orderBy: { version: 'asc' } });
    // The sealed secret of version 1, byte for byte (not version 2's, and never in clear).
    expect(rows[2]!.config).toBe(rows[0]!.config);
    expect(rows[2]!.config).not.toContain('restore-secret');
    expect((await client.agents.getAgentVersions({ agentId })).data.map((v) => v.version)).toEqual([3, 2, 1]);
  });

  it('is FAILED_PRECONDITION for a built-in agent, NOT_FOUND for an unknown agent or version, INVALID_ARGUMENT for version 0', async () => {
    const { agentId } = await newAgent();
    await expectCollabError(client.agents.restoreAgentVersion({ agentId: 'crawler', version: 1 }), 'FAILED_PRECONDITION');
    await expectCollabError(client.agents.restoreAgentVersion({ agentId: 'agt_nope', version: 1 }), 'NOT_FOUND');
    await expectCollabError(client.agents.restoreAgentVersion({ agentId, version: 9 }), 'NOT_FOUND');
    await expectCollabError(client.agents.restoreAgentVersion({ agentId, version: 0 }), 'INVALID_ARGUMENT');
    // Nothing was written by the refused calls.
    expect((await latest(agentId)).version).toBe(1);
  });

  it("checks credentials, and another application's agent is NOT_FOUND", async () => {
    await expectCredentialChecks(server, ws, '/v2/agents/versions/restore', { agentId: 'agt_x', version: 1 });
    const { agentId } = await newAgent();
    const other = server.client(await server.workspace());
    await expectCollabError(other.agents.restoreAgentVersion({ agentId, version: 1 }), 'NOT_FOUND');
  });
});
