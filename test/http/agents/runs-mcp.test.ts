// Agent runs with the mcp-tools strategy end to end: a custom agent whose
// MCP server (the SDK's, on port 0) holds the style guide, a fake provider
// (msw) that calls its tool and then answers with findings, and the run's
// suggestion thread in the document.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpResponse } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { closedPort } from '../../helpers/closed-port.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';
import { RULES, startStyleGuideServer, type StyleGuideServer } from '../../agents/mcp-server.js';
import { ENDPOINTS, openAiCompletion, provider, PROVIDER_ENV, startFakeProviders, type Seen } from '../ai/fake-providers.js';
import { minimalAgent } from './fixtures.js';

const ORG = 'mcp-org';
const TOKEN = 'mcp-e2e-token-7d1b3e';
let server: TestServer;
let pages: Server;
let site: string;
let styleGuide: StyleGuideServer;
let a: WorkspaceCredentials;
let client: Client;
let msw: ReturnType<typeof startFakeProviders>;

const ARTICLE = '<!doctype html><html><head><title>Launch</title></head><body><p>Teh quick brown fox jumps over the lazy dog.</p></body></html>';
const TYPO = { title: 'Typo', description: 'Style guide rule 12.', severity: 'low', targetText: 'Teh', occurrence: 1, suggestion: 'The', issueType: 'spelling', confidence: 90 };
const runJobs = () => server.running.services.jobs.runDue();

const mcpAgent = (name: string, mcpServers: unknown[]) =>
  minimalAgent({ name, instructions: 'Check the page against the style guide; look terms up.', execution: { executionStrategy: 'mcp-tools', aiConfig: { maxToolTurns: 3 }, mcpServers } });

beforeAll(async () => {
  pages = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(ARTICLE);
  });
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
  site = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
  styleGuide = await startStyleGuideServer();
  msw = startFakeProviders();
  server = await startTestServer({ ...PROVIDER_ENV, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  a = await server.workspace();
  client = server.client(a);
  await server.cli('ai-key', 'set', '--api-key', a.apiKey, '--provider', 'openai', '--key', 'sk-test-mcp-0123456789');
  await server.post('/v2/organizations/add', { data: { organizationId: ORG } }, appHeaders(a));
  for (const documentId of ['doc-mcp', 'doc-down', 'doc-many']) await server.post('/v2/organizations/documents/add', { data: { organizationId: ORG, documentId } }, appHeaders(a));
});
afterEach(() => msw.resetHandlers());
afterAll(async () => {
  msw?.close();
  await server?.close();
  await styleGuide?.close();
  await new Promise((resolve) => pages?.close(resolve));
});

describe('Run Agent with an mcp-tools agent', () => {
  it('calls the MCP server\'s tool for the model, ends failed with its finding, and leaves a suggestion thread', async () => {
    const agentId = (await client.agents.createAgent(mcpAgent('Style checker', [{ name: 'style-guide', url: styleGuide.url, auth: { token: TOKEN } }]))).data.agentId;
    const seen: Seen[] = [];
    const answers = [
      HttpResponse.json(openAiCompletion(null, { tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'style-guide__lookup_term', arguments: '{"term":"Teh"}' } }] })),
      HttpResponse.json(openAiCompletion(JSON.stringify({ findings: [TYPO] }))),
    ];
    msw.use(provider(ENDPOINTS.openai, seen, () => answers.shift()!));

    const { executionId } = (await client.agentRuns.runAgent({ agentId, url: `${site}/article`, organizationId: ORG, documentId: 'doc-mcp' })).data;
    await runJobs();
    const { execution, results } = (await client.agentRuns.getAgentExecution({ executionId, includeResults: true })).data;
    expect(execution).toMatchObject({ status: 'failed', llmModel: 'gpt-4o-mini', tokenUsage: { inputTokens: 20, outputTokens: 6, totalTokens: 26 } });
    const [finding] = execution.resultsSummary.findings;
    expect(finding).toMatchObject({ title: 'Typo', targetText: 'Teh', suggestion: 'The', source: 'mcp-tools', sourceUrl: `${site}/article` });

    // The tool ran with the model's arguments, its answer went back to the model, and the stored token reached the server.
    expect(styleGuide.calls).toEqual([{ term: 'Teh' }]);
    expect((seen[1]!.body as { messages: unknown[] }).messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_1', content: RULES.Teh });
    expect(styleGuide.headers.length).toBeGreaterThan(0);
    expect(styleGuide.headers.every((headers) => headers.authorization === `Bearer ${TOKEN}`)).toBe(true);

    const threads = (await client.comments.getCommentAnnotations({ organizationId: ORG, documentId: 'doc-mcp' })).data;
    expect(threads).toHaveLength(1);
    expect(threads[0]).toMatchObject({ annotationId: finding!.commentId, type: 'suggestion', sourceType: 'agent', agent: { agentId, executionId } });
    expect(JSON.stringify([execution, results, threads, seen])).not.toContain(TOKEN);
  });

  it('ends error MCP_ERROR, naming the server, when the server is down', async () => {
    const agentId = (await client.agents.createAgent(mcpAgent('Down checker', [{ name: 'glossary', url: `http://127.0.0.1:${await closedPort()}/mcp`, headers: { 'X-Api-Key': TOKEN } }]))).data.agentId;
    msw.use(provider(ENDPOINTS.openai, [], () => HttpResponse.json(openAiCompletion('{"findings": []}'))));
    const { executionId } = (await client.agentRuns.runAgent({ agentId, url: `${site}/article`, organizationId: ORG, documentId: 'doc-down' })).data;
    await runJobs();
    const { execution } = (await client.agentRuns.getAgentExecution({ executionId })).data;
    expect(execution).toMatchObject({ status: 'error', error: { code: 'MCP_ERROR', message: 'MCP server glossary could not be reached (neither Streamable HTTP nor SSE)', retryable: true } });
    expect(JSON.stringify(execution)).not.toContain(TOKEN);
  });

  it('is refused FAILED_PRECONDITION when the agent has more MCP servers than a run uses', async () => {
    const many = Array.from({ length: 6 }, (_, i) => ({ name: `server-${i}`, url: `https://mcp${i}.example.com/mcp` }));
    const agentId = (await client.agents.createAgent(mcpAgent('Many servers', many))).data.agentId;
    await expectCollabError(client.agentRuns.runAgent({ agentId, url: `${site}/article`, organizationId: ORG, documentId: 'doc-many' }), 'FAILED_PRECONDITION', /6 servers; a run uses at most 5/);
  });
});
