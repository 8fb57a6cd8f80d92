/**
 * The rules of an agent's configuration that span fields, written once:
 * Create Agent checks them on the request, Update Agent Version on the
 * configuration merged from the latest version and the request.
 */

export interface ConfigIssue {
  path: (string | number)[];
  message: string;
}

/** The behavioral fields of one agent as JSON (secrets in clear), in bytes. */
export const MAX_AGENT_CONFIG_BYTES = 262_144;
/** Nesting of the behavioral fields, counted from the configuration object itself. */
export const MAX_AGENT_CONFIG_DEPTH = 32;
const MAX_BYTES = MAX_AGENT_CONFIG_BYTES;
const MAX_DEPTH = MAX_AGENT_CONFIG_DEPTH;
const IDENTITY = ['name', 'description', 'enabled'];
const SERVICE_GENERATED = ['id', 'agentId', 'version', 'managedBy', 'system', 'executionCount', 'lastExecutedAt'];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let deepest = 0;
  for (const child of Object.values(value)) {
    deepest = Math.max(deepest, depthOf(child));
    if (deepest >= MAX_DEPTH) break;
  }
  return deepest + 1;
}

/** What is wrong with a whole configuration (the behavioral fields, secrets in clear); empty when nothing is. */
export function agentConfigIssues(config: Record<string, unknown>): ConfigIssue[] {
  return [...configShapeIssues(config), ...configRuleIssues(config)];
}

/** Keys the configuration may not have, its size and its depth: what a request alone can be checked for. */
export function configShapeIssues(config: Record<string, unknown>): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const key of Object.keys(config)) {
    if (IDENTITY.includes(key)) issues.push({ path: [key], message: 'is an identity field: change it with Update Agent, not with a new version' });
    else if (SERVICE_GENERATED.includes(key)) issues.push({ path: [key], message: 'is set by the service and cannot be part of an agent configuration' });
  }
  const bytes = new TextEncoder().encode(JSON.stringify(config)).length;
  if (bytes > MAX_BYTES) issues.push({ path: [], message: `the agent configuration must be at most ${MAX_BYTES} bytes as JSON (got ${bytes})` });
  if (depthOf(config) > MAX_DEPTH) issues.push({ path: [], message: `the agent configuration must be at most ${MAX_DEPTH} levels deep` });
  return issues;
}

/** The specification's conditional requirements, on a whole configuration. */
export function configRuleIssues(config: Record<string, unknown>): ConfigIssue[] {
  const issues: ConfigIssue[] = [];

  const execution = isObject(config.execution) ? config.execution : {};
  const strategy = typeof execution.executionStrategy === 'string' ? execution.executionStrategy : 'ai';
  if (strategy !== 'service' && config.instructions === undefined) {
    issues.push({ path: ['instructions'], message: `is required for executionStrategy ${strategy} (only pure service agents may omit it)` });
  }
  if ((strategy === 'service' || strategy === 'service+ai') && execution.serviceId === undefined) {
    issues.push({ path: ['execution', 'serviceId'], message: `is required for executionStrategy ${strategy}` });
  }
  if (strategy === 'mcp-tools' && (!Array.isArray(execution.mcpServers) || execution.mcpServers.length === 0)) {
    issues.push({ path: ['execution', 'mcpServers'], message: 'needs at least 1 server for executionStrategy mcp-tools' });
  }
  const gathering = isObject(config.contextGathering) ? config.contextGathering : {};
  const strategies = Array.isArray(gathering.strategies) ? gathering.strategies : [];
  const options = isObject(gathering.strategyOptions) ? gathering.strategyOptions : {};
  if (strategies.includes('rest-api') && !isObject(options['rest-api'])) {
    issues.push({ path: ['contextGathering', 'strategyOptions', 'rest-api'], message: 'is required when contextGathering.strategies includes rest-api' });
  }
  return issues;
}
