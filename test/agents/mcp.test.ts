// The mcp-tools execution on its own: a real MCP server on port 0, the AI
// domain's tool chat against a fake provider (msw), and the loop between them.
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { HttpResponse } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { createAiService } from '../../server/domains/ai/service.js';
import { runMcpTools, type McpRequest } from '../../server/domains/agents/run/mcp-execution.js';
import { mcpServersOf, type McpServerPlan } from '../../server/domains/agents/run/plan.js';
import { Sealer } from '../../server/lib/crypto.js';
import { guardedFetch, OutboundError } from '../../server/lib/outbound-http.js';
import { closedPort } from '../helpers/closed-port.js';
import { anthropicAnswer, ENDPOINTS, openAiCompletion, provider, PROVIDER_ENV, startFakeProviders, type Seen } from '../http/ai/fake-providers.js';
import { RULES, startSseStyleGuideServer, startStyleGuideServer, type StyleGuideServer } from './mcp-server.js';

const TOKEN = 'mcp-secret-token-4f9a2c';
const sealer = new Sealer(randomBytes(32));
const ai = createAiService({
  sealedKeyOf: async () => sealer.seal('sk-unit-mcp-0123456789'),
  sealer,
  options: loadConfig(PROVIDER_ENV).ai,
  log: pino({ level: 'silent' }),
});
const log = pino({ level: 'silent' });

let styleGuide: StyleGuideServer;
let msw: ReturnType<typeof startFakeProviders>;
beforeAll(async () => {
  styleGuide = await startStyleGuideServer();
  msw = startFakeProviders();
});
afterEach(() => {
  msw.resetHandlers();
  styleGuide.calls.length = 0;
  styleGuide.headers.length = 0;
});
afterAll(async () => {
  msw.close();
  await styleGuide.close();
});

const TYPO = { title: 'Typo', description: 'Style guide rule 12.', severity: 'low', targetText: 'Teh', occurrence: 1, suggestion: 'The', issueType: 'spelling', confidence: 90 };
const toolCall = (id: string, args: string) =>
  HttpResponse.json({
    ...openAiCompletion(null, { tool_calls: [{ id, type: 'function', function: { name: 'style-guide__lookup_term', arguments: args } }] }),
  });
const final = (findings: unknown[]) => HttpResponse.json(openAiCompletion(JSON.stringify({ findings })));

function servers(entries: unknown[]): McpServerPlan[] {
  const plan = mcpServersOf(entries);
  if ('problem' in plan) throw new Error(plan.problem);
  return plan.servers;
}

function request(overrides: Partial<McpRequest> = {}): McpRequest {
  return {
    model: 'gpt-4o-mini',
    instructions: 'Check the page against the style guide.',
    userContext: {},
    page: { url: 'https://example.com/launch', context: { 'web-page-text': 'Teh quick brown fox.' } },
    servers: servers([{ name: 'style-guide', url: styleGuide.url, auth: { type: 'bearer', token: TOKEN } }]),
    maxToolTurns: 8,
    ...overrides,
  };
}

const run = (req: McpRequest, model = 'gpt-4o-mini', signal = new AbortController().signal) =>
  runMcpTools({ ...req, model }, (input) => ai.chatWithTools({ apiKeyId: 'k' }, input, { signal }), { allowPrivate: true, maxResponseBytes: 1_000_000, signal, log });

describe('mcp-tools', () => {
  it('offers the server\'s tools, runs the call the model makes, and returns its findings', async () => {
    const seen: Seen[] = [];
    const answers = [toolCall('call_1', '{"term":"Teh"}'), final([TYPO])];
    msw.use(provider(ENDPOINTS.openai, seen, () => answers.shift()!));
    const outcome = await run(request());

    expect(outcome).toEqual({ findings: [expect.objectContaining({ title: 'Typo', targetText: 'Teh', source: 'mcp-tools', sourceUrl: 'https://example.com/launch' })], usage: { inputTokens: 20, outputTokens: 6 } });
    // The tool ran with the model's arguments; the server got the agent's token as a bearer token.
    expect(styleGuide.calls).toEqual([{ term: 'Teh' }]);
    expect(styleGuide.headers.every((headers) => headers.authorization === `Bearer ${TOKEN}`)).toBe(true);

    const first = seen[0]!.body as { tools: Array<{ function: { name: string; description: string } }>; messages: Array<{ role: string; content: string }> };
    expect(first.tools.map((tool) => tool.function.name)).toEqual(['style-guide__lookup_term']);
    expect(first.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining('Check the page against the style guide.') });
    expect(first.messages[1]!.content).toContain('Teh quick brown fox.');
    const second = seen[1]!.body as { messages: Array<{ role: string; content: unknown; tool_call_id?: string; tool_calls?: unknown[] }> };
    expect(second.messages.at(-2)).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'call_1', function: { name: 'style-guide__lookup_term', arguments: '{"term":"Teh"}' } }] });
    expect(second.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_1', content: RULES.Teh });
    // The server's secret goes to the server only.
    expect(JSON.stringify([seen, outcome])).not.toContain(TOKEN);
  });

  it('names tools in the providers\' charset, offers only an entry\'s listed tools, and leaves $schema out', async () => {
    const seen: Seen[] = [];
    msw.use(provider(ENDPOINTS.openai, seen, () => final([])));
    await run(request({ servers: servers([{ name: '2nd style guide (v2)', url: styleGuide.url }]) }));
    const tools = (seen[0]!.body as { tools: Array<{ function: { name: string; parameters: Record<string, unknown> } }> }).tools;
    expect(tools.map((tool) => tool.function.name)).toEqual(['_2nd_style_guide__v2___lookup_term']);
    expect(tools[0]!.function.parameters).toEqual({ type: 'object', properties: { term: { type: 'string' } }, required: ['term'], additionalProperties: false });
    seen.length = 0;
    await run(request({ servers: servers([{ name: 'style-guide', url: styleGuide.url, tools: ['other_tool'] }]) }));
    expect((seen[0]!.body as { tools?: unknown[] }).tools).toBeUndefined();
  });

  it('speaks Anthropic\'s tool_use and tool_result', async () => {
    const seen: Seen[] = [];
    const answers = [
      anthropicAnswer([{ type: 'text', text: 'Let me check.' }, { type: 'tool_use', id: 'toolu_1', name: 'style-guide__lookup_term', input: { term: 'Teh' } }]),
      anthropicAnswer([{ type: 'text', text: JSON.stringify({ findings: [TYPO] }) }]),
    ];
    msw.use(provider(ENDPOINTS.anthropic, seen, () => answers.shift()!));
    const outcome = await run(request(), 'claude-haiku-4-5');
    expect(outcome).toMatchObject({ findings: [{ title: 'Typo' }], usage: { inputTokens: 20, outputTokens: 6 } });
    expect(styleGuide.calls).toEqual([{ term: 'Teh' }]);
    const body = seen[1]!.body as { tools: Array<{ name: string; input_schema: { type: string } }>; messages: Array<{ role: string; content: unknown }> };
    expect(body.tools[0]).toMatchObject({ name: 'style-guide__lookup_term', input_schema: { type: 'object' } });
    expect(body.messages.slice(1)).toEqual([
      { role: 'assistant', content: [{ type: 'text', text: 'Let me check.' }, { type: 'tool_use', id: 'toolu_1', name: 'style-guide__lookup_term', input: { term: 'Teh' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: RULES.Teh, is_error: false }] },
    ]);
  });

  it('stops running tools after maxToolTurns, asks for the answer once, and ends LLM_ERROR when the model keeps calling', async () => {
    const seen: Seen[] = [];
    let n = 0;
    msw.use(provider(ENDPOINTS.openai, seen, () => toolCall(`call_${++n}`, '{"term":"Teh"}')));
    const outcome = await run(request({ maxToolTurns: 2 }));
    expect(outcome).toMatchObject({ error: { code: 'LLM_ERROR', message: 'the model kept calling tools after its 2 tool turns (maxToolTurns)' }, usage: { inputTokens: 40, outputTokens: 12 } });
    expect(styleGuide.calls).toHaveLength(2);
    expect(seen).toHaveLength(4);
    const last = seen[3]!.body as { messages: Array<{ role: string; content: string }> };
    expect(last.messages.at(-1)).toMatchObject({ role: 'user', content: expect.stringContaining('You have used all 2 tool turns') });
  });

  it('takes the answer the model gives once its tool turns are spent', async () => {
    const answers = [toolCall('call_1', '{"term":"Teh"}'), toolCall('call_2', '{"term":"Teh"}'), final([TYPO])];
    msw.use(provider(ENDPOINTS.openai, [], () => answers.shift()!));
    const outcome = await run(request({ maxToolTurns: 1 }));
    expect(outcome).toMatchObject({ findings: [{ title: 'Typo' }] });
    expect(styleGuide.calls).toHaveLength(1);
  });

  it('gives arguments that are not JSON back to the model as an error, and asks once more after a malformed answer', async () => {
    const seen: Seen[] = [];
    const answers = [toolCall('call_1', '{"term": Teh'), HttpResponse.json(openAiCompletion('not json')), final([])];
    msw.use(provider(ENDPOINTS.openai, seen, () => answers.shift()!));
    const outcome = await run(request());
    expect(outcome).toEqual({ findings: [], usage: { inputTokens: 30, outputTokens: 9 } });
    expect(styleGuide.calls).toEqual([]);
    const second = seen[1]!.body as { messages: Array<{ role: string; content: string }> };
    expect(second.messages.at(-1)).toMatchObject({ role: 'tool', content: 'Error: the arguments must be a JSON object' });
  });

  it('falls back to the HTTP+SSE transport when Streamable HTTP is refused', async () => {
    const sse = await startSseStyleGuideServer();
    try {
      const answers = [toolCall('call_1', '{"term":"Teh"}'), final([TYPO])];
      msw.use(provider(ENDPOINTS.openai, [], () => answers.shift()!));
      const outcome = await run(request({ servers: servers([{ name: 'style-guide', url: sse.url, auth: TOKEN }]) }));
      expect(outcome).toMatchObject({ findings: [{ title: 'Typo', source: 'mcp-tools' }] });
      expect(sse.calls).toEqual([{ term: 'Teh' }]);
      // The stream and the messages alike carried the token.
      expect(sse.headers.map((headers) => headers.authorization)).toEqual(sse.headers.map(() => `Bearer ${TOKEN}`));
      expect(sse.headers.some((headers) => headers.accept === 'text/event-stream')).toBe(true);
    } finally {
      await sse.close();
    }
  });

  it('a server that is down ends MCP_ERROR naming the server, never its secret', async () => {
    msw.use(provider(ENDPOINTS.openai, [], () => final([])));
    const down = servers([{ name: 'glossary', url: `http://127.0.0.1:${await closedPort()}/mcp`, headers: { 'X-Api-Key': TOKEN } }]);
    const outcome = await run(request({ servers: down }));
    expect(outcome).toMatchObject({ error: { code: 'MCP_ERROR', message: 'MCP server glossary could not be reached (neither Streamable HTTP nor SSE)' } });
    expect(JSON.stringify(outcome)).not.toContain(TOKEN);
  });

  it('refuses a private address unless allowed (BLOCKED_URL), before connecting', async () => {
    const outcome = await runMcpTools(request(), () => Promise.reject(new Error('the model must not be asked')), { allowPrivate: false, maxResponseBytes: 1000, signal: new AbortController().signal, log });
    expect(outcome).toMatchObject({ error: { code: 'BLOCKED_URL', message: expect.stringMatching(/^MCP server style-guide: URL host 127\.0\.0\.1 is, or resolves to/) } });
    expect(styleGuide.headers).toEqual([]);
  });

  it('reads the configured servers: 1 to 5, a url, header values, bearer or basic auth', () => {
    expect(mcpServersOf([])).toEqual({ problem: 'execution.mcpServers has no server: mcp-tools needs at least one' });
    const six = Array.from({ length: 6 }, (_, i) => ({ name: `s${i}`, url: `https://mcp${i}.example.com/mcp` }));
    expect(mcpServersOf(six)).toEqual({ problem: 'execution.mcpServers has 6 servers; a run uses at most 5 (disable the others with enabled: false)' });
    expect(mcpServersOf([...six.slice(1), { ...six[0], enabled: false }])).toMatchObject({ servers: { length: 5 } });
    expect(mcpServersOf([{ name: 'x', command: 'npx some-server' }])).toEqual({ problem: 'execution.mcpServers[0]: url must be an http or https URL (stdio servers are not run by this server)' });
    expect(mcpServersOf([{ url: 'https://mcp.example.com/mcp', auth: TOKEN, headers: { 'X-Team': 7 }, timeoutMs: 5000 }])).toEqual({
      servers: [{ name: 'mcp.example.com', url: 'https://mcp.example.com/mcp', headers: { 'x-team': '7', authorization: `Bearer ${TOKEN}` }, timeoutMs: 5000 }],
    });
    expect(mcpServersOf([{ name: 'b', url: 'https://b.example.com', auth: { type: 'basic', username: 'u', password: 'p' } }])).toMatchObject({ servers: [{ headers: { authorization: 'Basic dTpw' }, timeoutMs: 30_000 }] });
    expect(mcpServersOf([{ name: 'o', url: 'https://o.example.com', auth: { type: 'oauth2' } }])).toEqual({
      problem: 'MCP server o: auth must be a bearer token (a string, or {token}) or {type: "basic", username, password}',
    });
  });

  it('a cancelled run stops before running the tool', async () => {
    const controller = new AbortController();
    msw.use(
      provider(ENDPOINTS.openai, [], () => {
        controller.abort();
        return toolCall('call_1', '{"term":"Teh"}');
      }),
    );
    const outcome = await run(request(), 'gpt-4o-mini', controller.signal);
    expect(outcome).toMatchObject({ error: { code: 'CANCELLED' } });
    expect(styleGuide.calls).toEqual([]);
  });
});

describe('guardedFetch (the MCP transports\' fetch)', () => {
  it('refuses loopback by IP literal and by name at connect time, unless private addresses are allowed', async () => {
    const strict = guardedFetch({ allowPrivate: false, maxResponseBytes: 1000 });
    await expect(strict(styleGuide.url, { method: 'POST', body: '{}' })).rejects.toMatchObject({ kind: 'blocked' });
    await expect(strict(styleGuide.url.replace('127.0.0.1', 'localhost'), { method: 'POST', body: '{}' })).rejects.toBeInstanceOf(OutboundError);
    expect(styleGuide.headers).toEqual([]);
    const open = guardedFetch({ allowPrivate: true, maxResponseBytes: 1000 });
    const res = await open(styleGuide.url, { method: 'GET' });
    expect(res.status).toBe(405);
    await res.body?.cancel();
  });

  it('breaks off a body past its cap', async () => {
    const small = guardedFetch({ allowPrivate: true, maxResponseBytes: 10 });
    const res = await small(styleGuide.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
    });
    await expect(res.text()).rejects.toMatchObject({ kind: 'too_large' });
  });
});
