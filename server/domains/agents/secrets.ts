import { REDACTED } from '../../../contract/agents/schemas.js';
import { invalidArgument } from '../../lib/app-error.js';
import type { Sealer } from '../../lib/crypto.js';

/**
 * The secrets of an agent configuration, leaf by leaf: every string under
 * `contextGathering.strategyOptions['rest-api'].auth` and `.headers`, and
 * under `execution.mcpServers[i].auth`, whatever shape those take (the
 * specification leaves them open). Stored sealed, read back as
 * `__redacted__`; other leaves (numbers, booleans) are not secret.
 */

export type Config = Record<string, unknown>;
type Path = (string | number)[];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const own = (value: unknown, key: string | number): unknown =>
  typeof value === 'object' && value !== null && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;

/** A subtree whose string leaves are secrets, and how to find the same subtree in another configuration. */
interface SecretRoot {
  path: Path;
  counterpartIn(other: Config): unknown;
}

function secretRoots(config: Config): SecretRoot[] {
  const roots: SecretRoot[] = [];
  const restApi = own(own(config.contextGathering, 'strategyOptions'), 'rest-api');
  for (const field of ['auth', 'headers']) {
    if (!isObject(restApi) || !Object.hasOwn(restApi, field)) continue;
    roots.push({
      path: ['contextGathering', 'strategyOptions', 'rest-api', field],
      counterpartIn: (other) => own(own(own(other.contextGathering, 'strategyOptions'), 'rest-api'), field),
    });
  }
  const servers = own(config.execution, 'mcpServers');
  if (Array.isArray(servers)) {
    servers.forEach((server, index) => {
      if (!isObject(server) || !Object.hasOwn(server, 'auth')) return;
      const name = typeof server.name === 'string' ? server.name : undefined;
      roots.push({
        path: ['execution', 'mcpServers', index, 'auth'],
        counterpartIn: (other) => {
          const stored = own(other.execution, 'mcpServers');
          if (!Array.isArray(stored)) return undefined;
          // Servers with a name are matched by it, so a client may reorder them; others by position.
          const match = name === undefined ? stored[index] : stored.find((candidate) => isObject(candidate) && candidate.name === name);
          return own(match, 'auth');
        },
      });
    });
  }
  return roots;
}

const at = (value: unknown, path: Path): unknown => path.reduce<unknown>((node, key) => own(node, key), value);

/**
 * A copy of `config` whose secret leaves are `replace(leaf, ...)`. `rel` is
 * the leaf's path inside its root, `root` the root it belongs to.
 */
function mapSecretLeaves(config: Config, replace: (leaf: string, where: { path: Path; rel: Path; root: SecretRoot }) => string): Config {
  const copy = structuredClone(config);
  for (const root of secretRoots(copy)) {
    const parent = at(copy, root.path.slice(0, -1)) as Record<string | number, unknown>;
    const key = root.path[root.path.length - 1]!;
    const walk = (holder: Record<string | number, unknown>, slot: string | number, rel: Path): void => {
      const value = holder[slot];
      if (typeof value === 'string') holder[slot] = replace(value, { path: [...root.path, ...rel], rel, root });
      else if (typeof value === 'object' && value !== null) {
        for (const child of Object.keys(value)) {
          const next = Array.isArray(value) ? Number(child) : child;
          walk(value as Record<string | number, unknown>, next, [...rel, next]);
        }
      }
    };
    walk(parent, key, []);
  }
  return copy;
}

const formatPath = (path: Path) => path.reduce<string>((out, part) => (typeof part === 'number' ? `${out}[${part}]` : `${out}.${part}`), 'data');

/** How a configuration reads: every secret as `__redacted__`. */
export function redactSecrets(config: Config): Config {
  return mapSecretLeaves(config, () => REDACTED);
}

/**
 * `given` with every `__redacted__` secret replaced by the stored secret at
 * the same place of `stored` (in clear); INVALID_ARGUMENT where `stored` has
 * none, so the literal is never stored as a secret.
 */
export function keepRedactedSecrets(given: Config, stored: Config): Config {
  return mapSecretLeaves(given, (leaf, { path, rel, root }) => {
    if (leaf !== REDACTED) return leaf;
    const kept = at(root.counterpartIn(stored), rel);
    if (typeof kept !== 'string') throw invalidArgument(`${formatPath(path)}: "${REDACTED}" keeps a stored secret, and none is stored here: send the secret itself`);
    return kept;
  });
}

export function createAgentSecrets(sealer: Sealer) {
  return {
    /** The configuration with its secrets in clear, and each secret's sealed form (so an unchanged secret keeps its ciphertext). */
    open(stored: Config): { plain: Config; sealedOf: Map<string, string> } {
      const sealedOf = new Map<string, string>();
      const plain = mapSecretLeaves(stored, (sealed) => {
        const secret = sealer.open(sealed);
        sealedOf.set(secret, sealed);
        return secret;
      });
      return { plain, sealedOf };
    },

    /** The configuration as stored: each secret sealed, or its stored ciphertext when it is unchanged. */
    seal(plain: Config, sealedOf: ReadonlyMap<string, string> = new Map()): Config {
      return mapSecretLeaves(plain, (secret) => sealedOf.get(secret) ?? sealer.seal(secret));
    },
  };
}

export type AgentSecrets = ReturnType<typeof createAgentSecrets>;
