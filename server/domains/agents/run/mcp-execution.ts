import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { TExecutionError } from '../../../../contract/agents/executions.js';
import { AppError } from '../../../lib/app-error.js';
import { assertAllowedUrl, guardedFetch } from '../../../lib/outbound-http.js';
import type { ChatMessage, ToolCall, ToolChat, ToolSpec, Usage } from '../../ai/providers.js';
import type { ToolChatOutcome } from '../../ai/service.js';
import { ANSWER_FORMAT, parseAnswer, promptText, providerError, type AiOutcome, type AiRequest } from './ai-execution.js';
import type { McpServerPlan } from './plan.js';

/**
 * The `mcp-tools` execution strategy: the agent's MCP servers are connected
 * (Streamable HTTP, else the older HTTP+SSE transport, as the SDK's docs
 * recommend for servers of either kind), their tools are offered to the
 * model, and each call the model makes runs on its server until the model
 * answers with findings (the `ai` strategy's format, one retry on a
 * malformed answer) or runs out of tool turns.
 */

/** Tools taken from one server at most: every tool's schema goes into every prompt of the page. */
export const MAX_TOOLS_PER_SERVER = 64;
/** A tool result given back to the model at most (characters); the rest is cut. */
export const MAX_TOOL_RESULT = 20_000;
/** Longest tool description passed on. */
const MAX_TOOL_DESCRIPTION = 1024;
/** The providers' limit on a tool name (OpenAI, Anthropic and Gemini alike). */
const MAX_TOOL_NAME = 64;

export interface McpRequest extends AiRequest {
  servers: McpServerPlan[];
  maxToolTurns: number;
}

export interface McpOptions {
  /** WEBHOOK_ALLOW_PRIVATE_URLS. */
  allowPrivate: boolean;
  /** One response body of a server at most (AGENT_MAX_PAGE_BYTES). */
  maxResponseBytes: number;
  /** The run's: a cancel, the deadline or a lost lease closes every connection. */
  signal: AbortSignal;
  log: Logger;
}

/** The AI domain's tool chat, under the run's application key and signal. */
export type ChatCall = (input: ToolChat) => Promise<ToolChatOutcome>;

class McpFailure extends Error {
  constructor(readonly error: TExecutionError) {
    super(error.message);
  }
}

interface Connected {
  server: McpServerPlan;
  client: Client;
}

interface OfferedTool {
  spec: ToolSpec;
  connected: Connected;
  /** The tool's name on its server. */
  name: string;
}

const CLIENT_INFO = { name: 'collab-backend-agent', version: '1.0.0' };

/** What an error was, for the log: its class and, for an MCP or HTTP error, its code. Never its message (it may quote a request). */
const errorKind = (error: unknown) => ({ error: error instanceof Error ? error.constructor.name : typeof error, code: (error as { code?: unknown } | null)?.code });

/**
 * Connects to one server. The URL passes the outbound guard first; the
 * connections themselves are made by the SDK's transports, which take a
 * custom `fetch`: they get guardedFetch, so every request (the POSTs, the
 * SSE stream, a redirect the SDK follows) is checked again at connect time,
 * and a host that rebinds to an internal address after the check is refused.
 */
async function connect(server: McpServerPlan, options: McpOptions): Promise<Connected> {
  try {
    await assertAllowedUrl(server.url, { allowPrivate: options.allowPrivate, log: options.log });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const blocked = error.message.includes('not publicly routable');
    throw new McpFailure({ code: blocked ? 'BLOCKED_URL' : 'MCP_ERROR', message: `MCP server ${server.name}: ${error.message}`, retryable: !blocked });
  }
  const fetch = guardedFetch({ allowPrivate: options.allowPrivate, maxResponseBytes: options.maxResponseBytes });
  const requestInit: RequestInit = { headers: server.headers };
  const request = { signal: options.signal, timeout: server.timeoutMs };
  const streamable = new Client(CLIENT_INFO);
  try {
    await streamable.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit, fetch }), request);
    return { server, client: streamable };
  } catch (first) {
    await streamable.close().catch(() => undefined);
    if (options.signal.aborted) throw first;
    const sse = new Client(CLIENT_INFO);
    try {
      await sse.connect(new SSEClientTransport(new URL(server.url), { requestInit, fetch }), request);
      return { server, client: sse };
    } catch (second) {
      await sse.close().catch(() => undefined);
      if (options.signal.aborted) throw second;
      options.log.warn({ server: server.name, streamableHttp: errorKind(first), sse: errorKind(second) }, 'agent run: MCP server could not be connected');
      throw new McpFailure({ code: 'MCP_ERROR', message: `MCP server ${server.name} could not be reached (neither Streamable HTTP nor SSE)`, retryable: true });
    }
  }
}

/** A name in the providers' charset: `[A-Za-z0-9_-]`, starting with a letter or `_` (Gemini's rule, the strictest). */
function safeName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_-]/g, '_');
  return /^[A-Za-z_]/.test(cleaned) ? cleaned : `_${cleaned}`;
}

/** The tools of every server, each named `<server>__<tool>` (cut to 64 characters, a number added where two would clash). */
async function listTools(servers: Connected[], options: McpOptions): Promise<OfferedTool[]> {
  const offered: OfferedTool[] = [];
  const taken = new Set<string>();
  for (const connected of servers) {
    const tools: Array<{ name: string; description?: string | undefined; inputSchema: Record<string, unknown> }> = [];
    try {
      let cursor: string | undefined;
      do {
        const page = await connected.client.listTools(cursor === undefined ? undefined : { cursor }, { signal: options.signal, timeout: connected.server.timeoutMs });
        const allowed = connected.server.tools;
        tools.push(...page.tools.filter((tool) => allowed === undefined || allowed.includes(tool.name)));
        cursor = page.nextCursor;
      } while (cursor !== undefined && tools.length < MAX_TOOLS_PER_SERVER);
    } catch (error) {
      if (options.signal.aborted) throw error;
      options.log.warn({ server: connected.server.name, ...errorKind(error) }, 'agent run: MCP server did not list its tools');
      throw new McpFailure({ code: 'MCP_ERROR', message: `MCP server ${connected.server.name} did not list its tools`, retryable: true });
    }
    for (const tool of tools.slice(0, MAX_TOOLS_PER_SERVER)) {
      const base = `${safeName(connected.server.name)}__${safeName(tool.name).replace(/^_/, '')}`.slice(0, MAX_TOOL_NAME);
      let name = base;
      for (let n = 2; taken.has(name); n++) name = `${base.slice(0, MAX_TOOL_NAME - String(n).length - 1)}_${n}`;
      taken.add(name);
      // `$schema` names the draft the server wrote against; Gemini refuses the unknown key, the others ignore it.
      const { $schema: _draft, ...inputSchema } = tool.inputSchema;
      offered.push({
        spec: { name, description: `[${connected.server.name}] ${tool.description ?? tool.name}`.slice(0, MAX_TOOL_DESCRIPTION), inputSchema },
        connected,
        name: tool.name,
      });
    }
  }
  return offered;
}

/** A tool result as text: its text parts, else its structured content as JSON; other parts named, not sent. */
function resultText(result: Record<string, unknown>): string {
  const parts = Array.isArray(result.content) ? (result.content as Array<{ type?: unknown; text?: unknown }>) : [];
  const texts = parts.map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : `[${String(part.type)} content omitted]`));
  // `toolResult`: servers of the protocol's first version.
  const structured = result.structuredContent ?? result.toolResult;
  const text = texts.length > 0 ? texts.join('\n') : structured === undefined ? '' : JSON.stringify(structured);
  return text.length > MAX_TOOL_RESULT ? `${text.slice(0, MAX_TOOL_RESULT)}\n[cut at ${MAX_TOOL_RESULT} characters]` : text;
}

/**
 * One tool call on its server. What the model can act on comes back to it as
 * an error result (an unknown tool, arguments that are not an object, an
 * error the server answers with); a server that times out or drops the
 * connection ends the page MCP_ERROR.
 */
async function callTool(call: ToolCall, tools: Map<string, OfferedTool>, options: McpOptions): Promise<{ callId: string; text: string; isError: boolean }> {
  const tool = tools.get(call.name);
  if (tool === undefined) return { callId: call.id, text: `there is no tool ${call.name}`, isError: true };
  if (call.arguments === null) return { callId: call.id, text: 'the arguments must be a JSON object', isError: true };
  const { server, client } = tool.connected;
  try {
    const result = await client.callTool({ name: tool.name, arguments: call.arguments }, undefined, { signal: options.signal, timeout: server.timeoutMs });
    return { callId: call.id, text: resultText(result), isError: result.isError === true };
  } catch (error) {
    if (options.signal.aborted) throw error;
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      throw new McpFailure({ code: 'MCP_ERROR', message: `MCP server ${server.name}: tool ${tool.name} did not answer within ${server.timeoutMs} ms`, retryable: true });
    }
    if (error instanceof McpError && error.code !== ErrorCode.ConnectionClosed) {
      return { callId: call.id, text: `the server answered with an error: ${error.message.slice(0, 1000)}`, isError: true };
    }
    options.log.warn({ server: server.name, tool: tool.name, ...errorKind(error) }, 'agent run: MCP tool call failed');
    throw new McpFailure({ code: 'MCP_ERROR', message: `MCP server ${server.name} failed during a call of tool ${tool.name}`, retryable: true });
  }
}

/** Runs the model with the servers' tools on one page. `chat` is the AI domain's tool chat (the application's key). */
export async function runMcpTools(request: McpRequest, chat: ChatCall, options: McpOptions): Promise<AiOutcome> {
  const usage: Usage = { inputTokens: 0, outputTokens: 0 };
  const connected: Connected[] = [];
  // Closing a client ends its requests at once: a cancelled run does not wait for a slow server.
  const closeAll = () => Promise.allSettled(connected.map((entry) => entry.client.close()));
  const onAbort = () => void closeAll();
  options.signal.addEventListener('abort', onAbort, { once: true });
  try {
    for (const server of request.servers) connected.push(await connect(server, options));
    const offered = await listTools(connected, options);
    const tools = new Map(offered.map((tool) => [tool.spec.name, tool]));
    const system = `${request.instructions}\n\nYou may call the tools given to you to check the page (each tool's description names its server). When you are done, answer without calling a tool.\n\n${ANSWER_FORMAT}`;
    const messages: ChatMessage[] = [{ role: 'user', text: promptText(request) }];
    let turns = 0;
    let retried = false;
    let toldToAnswer = false;
    for (;;) {
      const outcome = await chat({ model: request.model, system, messages, tools: offered.map((tool) => tool.spec) });
      if (!outcome.success) return { error: providerError(outcome), usage };
      usage.inputTokens += outcome.usage.inputTokens;
      usage.outputTokens += outcome.usage.outputTokens;
      if (outcome.toolCalls.length > 0) {
        // The turns are spent: the calls are not run, and the model is told to answer with what it has.
        // One that calls tools even so has not answered: LLM_ERROR.
        if (turns >= request.maxToolTurns) {
          if (toldToAnswer) return { error: { code: 'LLM_ERROR', message: `the model kept calling tools after its ${request.maxToolTurns} tool turns (maxToolTurns)`, retryable: false }, usage };
          toldToAnswer = true;
          messages.push({ role: 'assistant', text: outcome.text, toolCalls: outcome.toolCalls });
          messages.push({ role: 'tool', results: outcome.toolCalls.map((call) => ({ callId: call.id, text: 'not run: no tool turns are left', isError: true })) });
          messages.push({ role: 'user', text: `You have used all ${request.maxToolTurns} tool turns. Answer now, without calling a tool. ${ANSWER_FORMAT}` });
          continue;
        }
        turns += 1;
        const results = [];
        for (const call of outcome.toolCalls) results.push(await callTool(call, tools, options));
        messages.push({ role: 'assistant', text: outcome.text, toolCalls: outcome.toolCalls });
        messages.push({ role: 'tool', results });
        continue;
      }
      const answer = parseAnswer(outcome.text, request.page.url);
      if ('findings' in answer) return { findings: answer.findings.map((finding) => ({ ...finding, source: 'mcp-tools' })), usage };
      if (retried) return { error: { code: 'LLM_ERROR', message: `the model's answer was malformed twice (${answer.problem})`, retryable: true }, usage };
      retried = true;
      messages.push({ role: 'assistant', text: outcome.text, toolCalls: [] });
      messages.push({ role: 'user', text: `Your previous answer was not usable: ${answer.problem}. ${ANSWER_FORMAT}` });
    }
  } catch (error) {
    if (error instanceof McpFailure) return { error: error.error, usage };
    if (options.signal.aborted) return { error: { code: 'CANCELLED', message: 'the run was stopped', retryable: true }, usage };
    throw error;
  } finally {
    options.signal.removeEventListener('abort', onAbort);
    await closeAll();
  }
}
