// Agent runs end to end: Run Agent answers at once, the agent-run job (run
// here by the test) fetches pages from a local HTTP server, asks a fake
// provider (msw), and leaves findings as suggestion threads in the document;
// the reads, counts, cancel, limits and another application's view.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';
import { ENDPOINTS, openAiAnswer, provider, PROVIDER_ENV, startFakeProviders, type Seen } from '../ai/fake-providers.js';
import { minimalAgent } from './fixtures.js';

const ORG = 'runs-org';
let server: TestServer;
let pages: Server;
let site: string;
let a: WorkspaceCredentials;
let b: WorkspaceCredentials;
let client: Client;
let clientB: Client;
let msw: ReturnType<typeof startFakeProviders>;

const ARTICLE = `<!doctype html><html><head><title>Launch</title></head><body>
<h1>Our launch</h1><p>Teh quick brown fox jumps over the lazy dog.</p>
<p><a href="/ok">Pricing</a> and <a href="/missing">Old docs</a></p></body></html>`;

function startPages(): Promise<Server> {
  const s = createServer((req, res) => {
    if (req.url === '/article' || req.url === '/second') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(ARTICLE);
    } else if (req.url === '/hang') {
      // Never answers: the page's own deadline must end it.
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html><body>');
    } else if (req.url === '/ok') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>ok</body></html>');
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve(s)));
}

const runJobs = () => server.running.services.jobs.runDue();
const findings = (list: unknown[]) => openAiAnswer(JSON.stringify({ findings: list }));
const TYPO = { title: 'Typo', description: 'A misspelt word.', severity: 'low', targetText: 'Teh', occurrence: 1, suggestion: 'The', issueType: 'spelling', confidence: 90 };

async function addDocument(c: Client, documentId: string) {
  await server.post('/v2/organizations/documents/add', { data: { organizationId: ORG, documentId } }, appHeaders(c === client ? a : b));
}

beforeAll(async () => {
  pages = await startPages();
  site = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
  msw = startFakeProviders();
  server = await startTestServer({ ...PROVIDER_ENV, WEBHOOK_ALLOW_PRIVATE_URLS: 'true', AGENT_MAX_CONCURRENT_RUNS: '3', AGENT_PAGE_TIMEOUT_MS: '1500' });
  a = await server.workspace();
  b = await server.workspace();
  client = server.client(a);
  clientB = server.client(b);
  await server.cli('ai-key', 'set', '--api-key', a.apiKey, '--provider', 'openai', '--key', 'sk-test-runs-0123456789');
  for (const ws of [a, b]) await server.post('/v2/organizations/add', { data: { organizationId: ORG } }, appHeaders(ws));
  for (const id of ['doc-links', 'doc-ai', 'doc-bad', 'doc-cancel', 'doc-x1', 'doc-x2', 'doc-x3', 'doc-x4']) await addDocument(client, id);
  await addDocument(clientB, 'doc-b');
});
afterEach(() => msw.resetHandlers());
afterAll(async () => {
  msw?.close();
  await server?.close();
  pages?.closeAllConnections();
  await new Promise((resolve) => pages?.close(resolve));
});

describe('Run Agent with a built-in service, read back by Get Agent Execution', () => {
  it('finds the broken link, ends failed, and leaves a suggestion thread in the document', async () => {
    const { data } = await client.agentRuns.runAgent({ agentId: 'broken-links', url: `${site}/article`, organizationId: ORG, documentId: 'doc-links' });
    expect(data.executionId).toMatch(/^aex_/);
    const running = (await client.agentRuns.getAgentExecution({ executionId: data.executionId })).data.execution;
    expect(running).toMatchObject({ status: 'running', agentId: 'broken-links', agentName: 'Broken Links', agentVersion: null, completedAt: null, trigger: 'standalone' });

    await runJobs();
    const { execution, results } = (await client.agentRuns.getAgentExecution({ executionId: data.executionId, includeResults: true })).data;
    expect(execution.status).toBe('failed');
    expect(execution.resultsSummary).toMatchObject({ totalFindings: 1, urlsProcessed: 1, urlsWithFindings: 1, urlsErrored: 0, totalAnnotationsCreated: 1 });
    expect(execution.resultsSummary.severityCounts.high).toBe(1);
    const [finding] = execution.resultsSummary.findings;
    expect(finding).toMatchObject({ issueType: 'broken-link', targetText: 'Old docs', sourceUrl: `${site}/article`, source: 'service:broken-links' });
    expect(finding!.commentId).toEqual(expect.any(String));
    expect(execution.durationMs).toBeGreaterThanOrEqual(0);
    expect(results).toHaveLength(1);
    expect(results![0]).toMatchObject({ url: `${site}/article`, findingCount: 1, agentResult: { status: 'failed' } });

    const threads = (await client.comments.getCommentAnnotations({ organizationId: ORG, documentId: 'doc-links' })).data;
    expect(threads).toHaveLength(1);
    expect(threads[0]).toMatchObject({ annotationId: finding!.commentId, type: 'suggestion', sourceType: 'agent', agent: { agentId: 'broken-links', executionId: data.executionId } });

    const listed = (await client.agents.getAgents({ filter: 'defaultOnly' })).data;
    const row = 'agents' in listed ? listed.agents.find((agent) => agent.id === 'broken-links') : undefined;
    expect(row).toMatchObject({ executionCount: 1, lastExecutedAt: execution.startedAt });
  });
});

describe('Run Agent with an ai agent', () => {
  let agentId: string;
  beforeAll(async () => {
    agentId = (await client.agents.createAgent(minimalAgent({ name: 'Proofreader', instructions: 'Find spelling mistakes.' }))).data.agentId;
  });

  it('sends the page text to the model and turns its findings into suggestions; a second run replaces the open ones', async () => {
    const seen: Seen[] = [];
    msw.use(provider(ENDPOINTS.openai, seen, () => findings([TYPO])));
    const first = (await client.agentRuns.runAgent({ agentId, url: `${site}/article`, organizationId: ORG, documentId: 'doc-ai', ranBy: { userId: 'editor-1', name: 'Ed' } })).data.executionId;
    await runJobs();
    const one = (await client.agentRuns.getAgentExecution({ executionId: first })).data.execution;
    expect(one).toMatchObject({ status: 'failed', agentVersion: 1, llmModel: 'gpt-4o-mini', tokenUsage: { inputTokens: 10, outputTokens: 3, totalTokens: 13 }, ranBy: { userId: 'editor-1', name: 'Ed' } });
    expect(one.resultsSummary.findings[0]).toMatchObject({ title: 'Typo', targetText: 'Teh', suggestion: 'The', source: 'ai', severity: 'low' });
    // The prompt: the instructions and the answer format; the page's text in the user message, never the key.
    const body = seen[0]!.body as { messages: Array<{ role: string; content: string }> };
    expect(body.messages[0]!.content).toContain('Find spelling mistakes.');
    expect(body.messages[1]!.content).toContain('Teh quick brown fox');
    expect(JSON.stringify(body)).not.toContain('sk-test-runs');

    const second = (await client.agentRuns.runAgent({ agentId, url: `${site}/article`, organizationId: ORG, documentId: 'doc-ai' })).data.executionId;
    await runJobs();
    const two = (await client.agentRuns.getAgentExecution({ executionId: second })).data.execution;
    expect(two.previousExecutionId).toBe(first);
    const threads = (await client.comments.getCommentAnnotations({ organizationId: ORG, documentId: 'doc-ai' })).data;
    expect(threads.map((thread) => (thread as { agent?: { executionId: string } }).agent?.executionId)).toEqual([second]);

    const agent = (await client.agents.getAgents({ filter: 'customOnly' })).data;
    expect('agents' in agent && agent.agents.find((row) => row.id === agentId)).toMatchObject({ executionCount: 2, lastExecutedAt: two.startedAt });
  });

  it('asks again once after a malformed answer, and ends LLM_ERROR after two', async () => {
    const answers = [openAiAnswer('not json at all'), findings([])];
    msw.use(provider(ENDPOINTS.openai, [], () => answers.shift() ?? openAiAnswer('still not json')));
    const retried = (await client.agentRuns.runAgent({ agentId, url: `${site}/article`, organizationId: ORG, documentId: 'doc-bad' })).data.executionId;
    await runJobs();
    expect((await client.agentRuns.getAgentExecution({ executionId: retried })).data.execution).toMatchObject({ status: 'passed', tokenUsage: { inputTokens: 20, outputTokens: 6 } });

    msw.use(provider(ENDPOINTS.openai, [], () => openAiAnswer('{"findings": "none"}')));
    const broken = (await client.agentRuns.runAgent({ agentId, url: `${site}/article`, organizationId: ORG, documentId: 'doc-bad' })).data.executionId;
    await runJobs();
    const execution = (await client.agentRuns.getAgentExecution({ executionId: broken })).data.execution;
    expect(execution.status).toBe('error');
    expect(execution.error).toMatchObject({ code: 'LLM_ERROR', retryable: true });
  });

  it('ends error with the page\'s code when the page cannot be fetched', async () => {
    const id = (await client.agentRuns.runAgent({ agentId, url: `${site}/gone`, organizationId: ORG, documentId: 'doc-bad' })).data.executionId;
    await runJobs();
    const execution = (await client.agentRuns.getAgentExecution({ executionId: id })).data.execution;
    expect(execution).toMatchObject({ status: 'error', resultsSummary: { urlsErrored: 1, erroredUrls: [`${site}/gone`] } });
    expect(execution.error?.code).toBe('CRAWLER_ERROR');
  });
});

describe('Run Agent on a page that never finishes', () => {
  it('ends the page TIMEOUT at its own deadline (AGENT_PAGE_TIMEOUT_MS), without asking the model', async () => {
    const agentId = (await client.agents.createAgent(minimalAgent({ name: 'Slow page reader' }))).data.agentId;
    const seen: Seen[] = [];
    msw.use(provider(ENDPOINTS.openai, seen, () => findings([])));
    await addDocument(client, 'doc-hang');
    const id = (await client.agentRuns.runAgent({ agentId, url: `${site}/hang`, organizationId: ORG, documentId: 'doc-hang' })).data.executionId;
    await runJobs();
    const { execution, results } = (await client.agentRuns.getAgentExecution({ executionId: id, includeResults: true })).data;
    expect(execution).toMatchObject({ status: 'error', error: { code: 'TIMEOUT', retryable: true } });
    expect(results![0]!.agentResult.error?.message).toMatch(/AGENT_PAGE_TIMEOUT_MS/);
    expect(seen).toHaveLength(0);
  });
});

describe('Run Agent refuses', () => {
  it('an unknown agent or document, a disabled agent, bad user context, and a non-http URL', async () => {
    const base = { url: `${site}/article`, organizationId: ORG, documentId: 'doc-x1' };
    await expectCollabError(client.agentRuns.runAgent({ ...base, agentId: 'agt_nope' }), 'NOT_FOUND');
    await expectCollabError(client.agentRuns.runAgent({ ...base, agentId: 'broken-links', documentId: 'no-such-doc' }), 'NOT_FOUND');
    await client.agents.updateAgent({ agentId: 'og-image-checker', enabled: false });
    await expectCollabError(client.agentRuns.runAgent({ ...base, agentId: 'og-image-checker' }), 'FAILED_PRECONDITION', /disabled/);
    await expectCollabError(client.agentRuns.runAgent({ ...base, agentId: 'broken-links', userContext: { colour: 'red' } }), 'INVALID_ARGUMENT', /colour/);
    const res = await server.post('/v2/agents/execution/run', { data: { ...base, agentId: 'broken-links', url: 'ftp://example.com/x' } }, appHeaders(a));
    expect(res.status).toBe(400);
    expect(res.body.error.status).toBe('INVALID_ARGUMENT');
    const bare = await server.post('/v2/agents/execution/run', { data: { ...base, agentId: 'broken-links' } }, { 'content-type': 'application/json' });
    expect(bare.status).toBe(401);
  });

  it('a second run of the agent on the same document while the first runs, and runs past the limit', async () => {
    const run = (documentId: string) => client.agentRuns.runAgent({ agentId: 'crawler', url: `${site}/article`, organizationId: ORG, documentId });
    await run('doc-x2');
    await expectCollabError(run('doc-x2'), 'ALREADY_EXISTS');
    await run('doc-x3');
    await run('doc-x4');
    await expectCollabError(run('doc-x1'), 'RESOURCE_EXHAUSTED', /AGENT_MAX_CONCURRENT_RUNS/);
    await runJobs();
    await run('doc-x2');
    await runJobs();
  });
});

describe('Cancel Agent Execution', () => {
  it('ends a running run cancelled; its job then does nothing; a second cancel is FAILED_PRECONDITION', async () => {
    const id = (await client.agentRuns.runAgent({ agentId: 'broken-links', url: `${site}/article`, organizationId: ORG, documentId: 'doc-cancel' })).data.executionId;
    const { execution } = (await client.agentRuns.cancelAgentExecution({ executionId: id })).data;
    expect(execution).toMatchObject({ status: 'cancelled', error: { code: 'CANCELLED' } });
    await runJobs();
    expect((await client.agentRuns.getAgentExecution({ executionId: id, includeResults: true })).data).toMatchObject({ execution: { status: 'cancelled' }, results: [] });
    await expectCollabError(client.agentRuns.cancelAgentExecution({ executionId: id }), 'FAILED_PRECONDITION');
    await expectCollabError(client.agentRuns.cancelAgentExecution({ executionId: 'aex_missing' }), 'NOT_FOUND');
  });
});

describe('List Agent Executions and Count Agent Executions', () => {
  it('lists newest first by agent or by document, pages, and refuses other combinations', async () => {
    const byAgent = (await client.agentRuns.listAgentExecutions({ agentId: 'crawler', pageSize: 2 })).data;
    expect(byAgent).toHaveLength(2);
    const all = [];
    for await (const item of client.agentRuns.listAgentExecutions.iterate({ agentId: 'crawler', pageSize: 2 })) all.push(item);
    expect(all.map((e) => e.startedAt)).toEqual([...all.map((e) => e.startedAt)].sort((x, y) => y - x));
    expect(all).toHaveLength(4);
    const byDoc = (await client.agentRuns.listAgentExecutions({ organizationId: ORG, documentId: 'doc-x2' })).data;
    expect(byDoc.every((e) => e.metadata.documentId === 'doc-x2')).toBe(true);
    await expectCollabError(client.agentRuns.listAgentExecutions({ organizationId: ORG }), 'INVALID_ARGUMENT');
    await expectCollabError(client.agentRuns.listAgentExecutions({}), 'INVALID_ARGUMENT');
  });

  it('counts per agent (0 for none, __proto__ as data) or in total, by status', async () => {
    const { data } = await client.agentRuns.countAgentExecutions({ agentIds: ['crawler', 'broken-links', 'never-ran'], status: 'cancelled' });
    expect(data).toEqual({ counts: { crawler: 0, 'broken-links': 1, 'never-ran': 0 } });
    const total = (await client.agentRuns.countAgentExecutions({})).data;
    expect('total' in total && total.total).toBeGreaterThan(5);
    const proto = await server.post('/v2/agents/execution/count', { data: { agentIds: ['__proto__'] } }, appHeaders(a));
    expect(proto.status).toBe(400);
  });
});

describe("another application's runs", () => {
  it('are NOT_FOUND, never listed nor counted, and its documents are not ours to run on', async () => {
    const mine = (await client.agentRuns.listAgentExecutions({ agentId: 'broken-links' })).data[0]!;
    await expectCollabError(clientB.agentRuns.getAgentExecution({ executionId: mine.id }), 'NOT_FOUND');
    await expectCollabError(clientB.agentRuns.cancelAgentExecution({ executionId: mine.id }), 'NOT_FOUND');
    expect((await clientB.agentRuns.listAgentExecutions({ agentId: 'broken-links' })).data).toEqual([]);
    expect((await clientB.agentRuns.countAgentExecutions({})).data).toEqual({ total: 0 });
    await expectCollabError(client.agentRuns.runAgent({ agentId: 'broken-links', url: `${site}/article`, organizationId: ORG, documentId: 'doc-b' }), 'NOT_FOUND');
  });
});

describe('a run resumed after its worker stopped', () => {
  it('skips the pages it had already written', async () => {
    await addDocument(client, 'doc-resume');
    const id = (await client.agentRuns.runAgent({ agentId: 'broken-links', url: `${site}/article`, organizationId: ORG, documentId: 'doc-resume' })).data.executionId;
    // As a first attempt that wrote the page and then died would have left it: no finding (the page has a broken link).
    const apiKeyId = (await server.cli<{ apiKey: { id: string } }>('workspace', 'get', '--api-key', a.apiKey)).apiKey.id;
    await server.running.database.db.agentExecutionResult.create({
      data: { apiKeyId, executionId: id, id: 'apr_resumed', url: `${site}/article`, status: 'passed', findings: '[]', error: null, findingCount: 0, processedAt: BigInt(Date.now()) },
    });
    await runJobs();
    const { execution, results } = (await client.agentRuns.getAgentExecution({ executionId: id, includeResults: true })).data;
    expect(execution).toMatchObject({ status: 'passed', resultsSummary: { urlsProcessed: 1, totalFindings: 0 } });
    expect(results!.map((r) => r.id)).toEqual(['apr_resumed']);
  });
});

describe('a run after a restart', () => {
  it('is resumed by the job queue and ends', async () => {
    const id = (await client.agentRuns.runAgent({ agentId: 'broken-links', url: `${site}/second`, organizationId: ORG, documentId: 'doc-x1' })).data.executionId;
    await server.restart();
    client = server.client(a);
    clientB = server.client(b);
    await runJobs();
    expect((await client.agentRuns.getAgentExecution({ executionId: id })).data.execution.status).toBe('failed');
  });
});


describe('runs as owned data', () => {
  it('go with their document, and forget the user who started them when that user is erased', async () => {
    await addDocument(client, 'doc-owned');
    await addDocument(client, 'doc-kept');
    const gone = (await client.agentRuns.runAgent({ agentId: 'crawler', url: `${site}/article`, organizationId: ORG, documentId: 'doc-owned' })).data.executionId;
    const kept = (await client.agentRuns.runAgent({ agentId: 'crawler', url: `${site}/article`, organizationId: ORG, documentId: 'doc-kept', ranBy: { userId: 'erased-user', name: 'Era' } })).data.executionId;
    await runJobs();
    await server.post('/v2/organizations/documents/delete', { data: { organizationId: ORG, documentId: 'doc-owned' } }, appHeaders(a));
    await expectCollabError(client.agentRuns.getAgentExecution({ executionId: gone }), 'NOT_FOUND');

    await client.userData.deleteAllUserData({ userId: 'erased-user' });
    await runJobs();
    const after = (await client.agentRuns.getAgentExecution({ executionId: kept })).data.execution;
    expect(after.ranBy).toBeNull();
    expect(after.status).toBe('passed');
  });
});

describe('Agent Analytics', () => {
  it('adds up the runs and their tokens by year, month, model and status, under its filters', async () => {
    const custom = (await client.agents.getAgents({ filter: 'customOnly' })).data as { agents: Array<{ id: string }> };
    const runs = (await client.agentRuns.listAgentExecutions({ agentId: custom.agents[0]!.id, pageSize: 100 })).data;
    const agentId = runs[0]!.agentId;
    const input = runs.reduce((sum, run) => sum + run.tokenUsage.inputTokens, 0);
    const output = runs.reduce((sum, run) => sum + run.tokenUsage.outputTokens, 0);
    expect(input).toBeGreaterThan(0);
    const { data } = await client.agentRuns.getAgentAnalytics({ agentId });
    expect(data.allTime).toEqual({ executions: runs.length, inputTokens: input, outputTokens: output, totalTokens: input + output });
    const started = new Date(runs[0]!.startedAt);
    expect(data.byMonth).toEqual([{ year: started.getUTCFullYear(), month: started.getUTCMonth() + 1, ...data.allTime }]);
    expect(data.byYear).toEqual([{ year: started.getUTCFullYear(), ...data.allTime }]);
    expect(data.byModel).toEqual([{ model: 'gpt-4o-mini', ...data.allTime }]);
    expect(data.executions.total).toBe(runs.length);
    expect(data.executions.byStatus.failed).toBe(runs.filter((run) => run.status === 'failed').length);

    // Built-in services use no model; another year has nothing.
    const builtin = (await client.agentRuns.getAgentAnalytics({ agentId: 'broken-links' })).data;
    expect(builtin.byModel.map((row) => row.model)).toEqual(['none']);
    expect((await client.agentRuns.getAgentAnalytics({ agentId, year: started.getUTCFullYear() - 1 })).data.allTime.executions).toBe(0);
    expect((await client.agentRuns.getAgentAnalytics({ agentId, model: 'claude-3-5-haiku-latest' })).data.allTime.executions).toBe(0);
    await expectCollabError(client.agentRuns.getAgentAnalytics({ month: 3 }), 'INVALID_ARGUMENT', /year/);
    expect((await clientB.agentRuns.getAgentAnalytics({})).data.allTime.executions).toBe(0);
    const bare = await server.post('/v2/agents/analytics/get', { data: {} }, { 'content-type': 'application/json' });
    expect(bare.status).toBe(401);
  });
});
