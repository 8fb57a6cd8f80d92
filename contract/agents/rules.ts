import { redactSecrets, secretPlaces, serverIdentity, visitSecrets } from './secret-places.js';

/**
 * The rules of an agent's configuration that span fields, written once:
 * Create Agent checks them on the request, Update Agent Version on the
 * configuration merged from the latest version and the request.
 */

export interface ConfigIssue {
  path: (string | number)[];
  message: string;
}

/** The behavioral fields of one agent as JSON, each secret counted as `"__redacted__"`, in bytes. */
export const MAX_AGENT_CONFIG_BYTES = 262_144;
/**
 * Secrets (sealed leaves) in one configuration, and the UTF-8 bytes of each.
 * The size above counts each secret as the marker and sealing inflates a
 * leaf (`v1.<iv>.<base64url(plaintext + tag)>`: an 8192-byte secret takes
 * 10,964 characters, an empty one 44), so these two bound a stored version:
 * at most 262,144 + 100 × (10,966 − 14) = 1,357,344 bytes.
 */
export const MAX_STORED_AGENT_CONFIG_BYTES = 1_357_344;
export const MAX_AGENT_SECRETS = 100;
export const MAX_SECRET_BYTES = 8192;
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
  // Secrets count as the marker: what the caller reads, so a size error never tells the length of a stored secret.
  const bytes = new TextEncoder().encode(JSON.stringify(redactSecrets(config))).length;
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
  return [...issues, ...serverIdentityIssues(config), ...secretIssues(config)];
}

/** Two MCP servers with one identity would make "the stored secret of this server" ambiguous. */
function serverIdentityIssues(config: Record<string, unknown>): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const first = new Map<string, number>();
  for (const place of secretPlaces(config)) {
    if (place.kind !== 'mcp-server') continue;
    const identity = serverIdentity(place.value);
    if (identity === undefined) continue;
    const key = `${identity.by}:${identity.value}`;
    const earlier = first.get(key);
    const index = place.path[place.path.length - 1] as number;
    if (earlier === undefined) first.set(key, index);
    else {
      issues.push({
        path: [...place.path, identity.by],
        message: `has the same ${identity.by} as mcpServers[${earlier}]: each server needs its own name (a server without a name is known by its url)`,
      });
    }
  }
  return issues;
}

/** scheme://user[:password]@host: credentials in a URL, which would be stored and returned in clear. */
const URL_WITH_CREDENTIALS = /[a-z][a-z0-9+.-]*:\/\/[^\s/?#@]+@/i;
/** Issues of one kind past this many are left out: the first ones say what is wrong. */
const ISSUES_PER_KIND = 5;

/** The number and size of the secrets, and credentials outside them (never echoed: the message names the field only). */
function secretIssues(config: Record<string, unknown>): ConfigIssue[] {
  const credentials: ConfigIssue[] = [];
  const oversized: ConfigIssue[] = [];
  let count = 0;
  visitSecrets(config, {
    secret(leaf, { path }) {
      count += 1;
      if (typeof leaf === 'string' && oversized.length < ISSUES_PER_KIND && new TextEncoder().encode(leaf).length > MAX_SECRET_BYTES) {
        oversized.push({ path, message: `a secret is at most ${MAX_SECRET_BYTES} bytes (UTF-8)` });
      }
    },
    plainString(text, path) {
      if (credentials.length < ISSUES_PER_KIND && URL_WITH_CREDENTIALS.test(text)) {
        credentials.push({ path, message: 'is a URL with credentials in it (user:password@), which would be stored in clear: put credentials in auth (or headers), where they are sealed' });
      }
    },
  });
  const tooMany: ConfigIssue[] = count > MAX_AGENT_SECRETS ? [{ path: [], message: `an agent configuration holds at most ${MAX_AGENT_SECRETS} secrets (got ${count})` }] : [];
  return [...credentials, ...tooMany, ...oversized];
}
