import { DEFAULT_TOOL_TURNS, MAX_TOOL_TURNS, type TExecutionError } from '../../../../contract/agents/executions.js';
import { providerOf } from '../../ai/providers.js';
import type { Config } from '../secrets.js';

/**
 * What a run does, read from its agent's configuration (the version pinned
 * when it started, secrets opened in memory) and the run's own options.
 */
export interface RunPlan {
  instructions: string;
  strategies: string[];
  strategyOptions: Record<string, unknown> | undefined;
  execution: { strategy: string; serviceId: string };
  /** The model for `ai`, `service+ai` and `mcp-tools`; null otherwise. */
  model: string | null;
  /** `mcp-tools`: the servers (secrets opened) and the tool turns the model gets. */
  mcp?: { servers: McpServerPlan[]; maxToolTurns: number };
  userContext: Record<string, string | number | boolean>;
  guardrails: boolean;
  deletePrevious: boolean;
  annotate: boolean;
  inScope(url: string): boolean;
  /** Why this run cannot run at all (a strategy this server does not run): it ends `error` at once. */
  refused?: TExecutionError;
  unsupported?: TExecutionError;
  /** A configuration no run of it can use (e.g. too many MCP servers): Run Agent answers FAILED_PRECONDITION with this. */
  invalid?: string;
}

/** An MCP server as a run connects to it: `headers` hold the opened secrets (in memory only). */
export interface McpServerPlan {
  /** The server's `name`, else its URL's host: what errors and tool names call it. */
  name: string;
  url: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** The entry's `tools`: the only tools offered from this server; undefined offers all. */
  tools?: string[];
}

/**
 * MCP servers one run connects to at most. Each is a connection held for the
 * whole page and up to 64 tools in the model's prompt; five keep that prompt
 * and the run's open connections bounded.
 */
export const MAX_RUN_MCP_SERVERS = 5;
/** Each request to an MCP server (connect, list tools, one tool call) unless the entry's `timeoutMs` says otherwise. */
export const DEFAULT_MCP_TIMEOUT_MS = 30_000;
const MAX_MCP_TIMEOUT_MS = 120_000;

/** The model when neither the run nor the agent names one, per provider (docs/agents.md). */
export const DEFAULT_MODELS = { openai: 'gpt-4o-mini', anthropic: 'claude-3-5-haiku-latest', gemini: 'gemini-2.0-flash' } as const;

/** What each built-in service gathers: a built-in agent is its service on the page. */
export const SERVICE_STRATEGIES: Record<string, string[]> = {
  'broken-links': ['web-page-links'],
  crawler: ['web-page-links'],
  screenshot: ['web-page-screenshot'],
  'accessibility-checker': ['web-page-accessibility'],
  'og-image-checker': ['web-page-html'],
};

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

export interface RunOptions {
  aiConfig?: { provider?: 'openai' | 'anthropic' | 'gemini'; model?: string; maxToolTurns?: number } | undefined;
  userContext: Record<string, string | number | boolean>;
}

/** The model of a run: the run's, else the agent's (`execution.aiConfig`, then `contextGathering.aiConfig`), else the provider's default. */
export function modelOf(config: Config, run: RunOptions['aiConfig']): string {
  const execution = record(record(config.execution)?.aiConfig);
  const gathering = record(record(config.contextGathering)?.aiConfig);
  const named = text(run?.model) ?? text(execution?.model) ?? text(gathering?.model);
  if (named !== undefined) return named;
  const provider = run?.provider ?? (text(execution?.provider) as keyof typeof DEFAULT_MODELS | undefined) ?? 'openai';
  return DEFAULT_MODELS[provider] ?? DEFAULT_MODELS.openai;
}

export function builtinPlan(serviceId: string, run: RunOptions): RunPlan {
  return {
    instructions: '',
    strategies: SERVICE_STRATEGIES[serviceId] ?? [],
    strategyOptions: undefined,
    execution: { strategy: 'service', serviceId },
    model: null,
    userContext: run.userContext,
    guardrails: true,
    deletePrevious: true,
    annotate: true,
    inScope: () => true,
  };
}

export function customPlan(config: Config, run: RunOptions): RunPlan {
  const execution = record(config.execution) ?? {};
  const strategy = text(execution.executionStrategy) ?? 'ai';
  const serviceId = text(execution.serviceId) ?? '';
  const gathering = record(config.contextGathering) ?? {};
  const post = record(config.postProcess) ?? {};
  const on = (stage: string) => record(post[stage])?.enabled !== false;
  const annotations = record(post.annotations);
  const scope = record(config.scope) ?? {};
  const include = patterns(scope.pageScope);
  const exclude = patterns(scope.pageScopeExclude);
  const model = strategy === 'ai' || strategy === 'service+ai' || strategy === 'mcp-tools' ? modelOf(config, run.aiConfig) : null;
  const plan: RunPlan = {
    instructions: text(config.instructions) ?? '',
    strategies: Array.isArray(gathering.strategies) ? gathering.strategies.filter((s): s is string => typeof s === 'string') : [],
    strategyOptions: record(gathering.strategyOptions),
    execution: { strategy, serviceId },
    model,
    userContext: run.userContext,
    guardrails: on('guardrails'),
    deletePrevious: on('deletePreviousSuggestions'),
    annotate: annotations?.enabled !== false && annotations?.strategy !== 'none',
    inScope: (url) => (include.length === 0 || include.some((re) => re.test(url))) && !exclude.some((re) => re.test(url)),
  };
  if (strategy === 'mcp-tools') {
    const servers = mcpServersOf(execution.mcpServers);
    if ('problem' in servers) {
      plan.invalid = servers.problem;
      plan.refused = { code: 'MCP_ERROR', message: servers.problem, retryable: false };
    } else {
      const turns = run.aiConfig?.maxToolTurns ?? record(execution.aiConfig)?.maxToolTurns;
      const maxToolTurns = typeof turns === 'number' && Number.isInteger(turns) ? Math.min(Math.max(turns, 1), MAX_TOOL_TURNS) : DEFAULT_TOOL_TURNS;
      plan.mcp = { servers: servers.servers, maxToolTurns };
    }
  }
  if (model !== null && providerOf(model) === undefined) {
    plan.refused = { code: 'LLM_NOT_CONFIGURED', message: `model ${model.slice(0, 100)} has no known provider prefix`, retryable: false };
  }
  return plan;
}

/**
 * The MCP servers of `execution.mcpServers` as a run uses them. An entry is
 * `{name?, url, headers?, auth?, timeoutMs?, enabled?}`: `headers` a map of
 * header values; `auth` a bearer token (a string, or `{token}` /
 * `{bearerToken}`, with `type: 'bearer'` or none) or `{type: 'basic',
 * username, password}`, sent as Authorization. `env` is for servers run as
 * local processes, which this server does not start: it is ignored. An entry
 * with `enabled: false` is left out; `tools`, a list of tool names, offers
 * only those of the server.
 */
export function mcpServersOf(value: unknown): { servers: McpServerPlan[] } | { problem: string } {
  const entries = (Array.isArray(value) ? value : []).filter((entry) => record(entry)?.enabled !== false);
  if (entries.length === 0) return { problem: 'execution.mcpServers has no server: mcp-tools needs at least one' };
  if (entries.length > MAX_RUN_MCP_SERVERS) {
    return { problem: `execution.mcpServers has ${entries.length} servers; a run uses at most ${MAX_RUN_MCP_SERVERS} (disable the others with enabled: false)` };
  }
  const servers: McpServerPlan[] = [];
  for (const [index, entry] of entries.entries()) {
    const server = record(entry) ?? {};
    const where = `execution.mcpServers[${index}]`;
    const url = text(server.url);
    let parsed: URL | undefined;
    try {
      parsed = url === undefined ? undefined : new URL(url);
    } catch {
      parsed = undefined;
    }
    if (url === undefined || parsed === undefined || !/^https?:$/.test(parsed.protocol)) return { problem: `${where}: url must be an http or https URL (stdio servers are not run by this server)` };
    const name = text(server.name) ?? parsed.host;
    const headers: Record<string, string> = {};
    const given = server.headers === undefined || server.headers === null ? {} : record(server.headers);
    if (given === undefined) return { problem: `MCP server ${name}: headers must be an object of header values` };
    for (const [key, headerValue] of Object.entries(given)) {
      if (typeof headerValue !== 'string' && typeof headerValue !== 'number' && typeof headerValue !== 'boolean') return { problem: `MCP server ${name}: header ${key} must be a string` };
      headers[key.toLowerCase()] = String(headerValue);
    }
    const authorization = authorizationOf(server.auth);
    if (authorization === null) return { problem: `MCP server ${name}: auth must be a bearer token (a string, or {token}) or {type: "basic", username, password}` };
    if (authorization !== undefined) headers.authorization = authorization;
    const timeout = server.timeoutMs;
    const timeoutMs = typeof timeout === 'number' && Number.isFinite(timeout) && timeout > 0 ? Math.min(Math.round(timeout), MAX_MCP_TIMEOUT_MS) : DEFAULT_MCP_TIMEOUT_MS;
    const tools = Array.isArray(server.tools) ? server.tools.filter((tool): tool is string => typeof tool === 'string') : undefined;
    servers.push({ name, url, headers, timeoutMs, ...(tools === undefined ? {} : { tools }) });
  }
  return { servers };
}

/** The Authorization header of an entry's `auth`: undefined without one, null for a shape we do not know. */
function authorizationOf(auth: unknown): string | undefined | null {
  if (auth === undefined || auth === null) return undefined;
  if (typeof auth === 'string') return auth === '' ? undefined : `Bearer ${auth}`;
  const given = record(auth);
  if (given === undefined) return null;
  const type = typeof given.type === 'string' ? given.type.toLowerCase() : 'bearer';
  if (type === 'bearer') {
    const token = given.token ?? given.bearerToken ?? given.accessToken;
    return typeof token === 'string' && token !== '' ? `Bearer ${token}` : null;
  }
  if (type === 'basic' && typeof given.username === 'string' && typeof given.password === 'string') {
    return `Basic ${Buffer.from(`${given.username}:${given.password}`).toString('base64')}`;
  }
  if (type === 'none') return undefined;
  return null;
}

/** URL globs of `scope.pageScope`: `**` any characters, `*` any but `/`, `?` one character. */
function patterns(value: unknown): RegExp[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((p): p is string => typeof p === 'string')
    .map((glob) => {
      let source = '';
      for (let i = 0; i < glob.length; i++) {
        const c = glob[i]!;
        if (c === '*' && glob[i + 1] === '*') {
          source += '.*';
          i++;
        } else if (c === '*') source += '[^/]*';
        else if (c === '?') source += '.';
        else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
      }
      return new RegExp(`^${source}$`);
    });
}
