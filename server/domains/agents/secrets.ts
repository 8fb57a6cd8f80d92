import { mapSecrets, REDACTED, sameUrl, secretPlaces, serverIdentity, type Config, type Path, type SecretLeaf, type SecretPlace } from '../../../contract/agents/secret-places.js';
import { invalidArgument } from '../../lib/app-error.js';
import type { Sealer } from '../../lib/crypto.js';

/**
 * The secrets of an agent configuration (where they are:
 * contract/agents/secret-places.ts), leaf by leaf: stored sealed, read back
 * as `__redacted__`, and kept from the stored version when sent back as
 * `__redacted__` by Update Agent Version.
 */

export { redactSecrets, type Config } from '../../../contract/agents/secret-places.js';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isLeaf = (value: unknown): value is SecretLeaf => typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
const at = (value: unknown, path: Path): unknown =>
  path.reduce<unknown>((node, key) => (typeof node === 'object' && node !== null && Object.hasOwn(node, key) ? (node as Record<string, unknown>)[key] : undefined), value);

const formatPath = (path: Path) => path.reduce<string>((out, part) => (typeof part === 'number' ? `${out}[${part}]` : `${out}.${part}`), 'data');

/** The stored place whose secrets a place sent may keep, or why there is none. */
function counterpartOf(place: SecretPlace, stored: readonly SecretPlace[]): { place: SecretPlace } | { none: string } {
  const NOT_HERE = 'none is stored here';
  const OTHER_URL = 'the stored one belongs to another url: send the secret again with a new url';
  if (place.kind === 'rest-api') {
    const match = stored.find((candidate) => candidate.kind === 'rest-api');
    if (match === undefined) return { none: NOT_HERE };
    return sameUrl(match.value, place.value) ? { place: match } : { none: OTHER_URL };
  }
  const identity = serverIdentity(place.value);
  if (identity === undefined) return { none: 'a server with neither name nor url has no stored counterpart' };
  // Matched by identity, never by position: positions shift when servers are added, removed or reordered.
  const matches = stored.filter((candidate) => {
    if (candidate.kind !== 'mcp-server') return false;
    const other = serverIdentity(candidate.value);
    return other?.by === identity.by && other.value === identity.value;
  });
  if (matches.length === 0) return { none: `no stored server has this ${identity.by}` };
  // Only configurations stored before identities had to be unique can hold two.
  if (matches.length > 1) return { none: `several stored servers have this ${identity.by}` };
  return sameUrl(matches[0]!.value, place.value) ? { place: matches[0]! } : { none: OTHER_URL };
}

/**
 * `given` with every `__redacted__` secret replaced by the stored secret at
 * the same place of the counterpart in `stored` (in clear); INVALID_ARGUMENT
 * naming the path where there is none, so the literal is never stored as a
 * secret and a secret never moves to another server or address.
 */
export function keepRedactedSecrets(given: Config, stored: Config): Config {
  const storedPlaces = secretPlaces(stored);
  return mapSecrets(given, {
    secret(leaf, { path, rel, place }) {
      if (leaf !== REDACTED) return leaf;
      const counterpart = counterpartOf(place, storedPlaces);
      const kept = 'place' in counterpart ? at(counterpart.place.value, rel) : undefined;
      if (!isLeaf(kept)) {
        const why = 'none' in counterpart ? counterpart.none : 'none is stored here';
        throw invalidArgument(`${formatPath(path)}: "${REDACTED}" keeps a stored secret, and ${why}: send the secret itself`);
      }
      return kept;
    },
  });
}

/**
 * A sealed leaf: `v1.…` for a string, `number:v1.…` or `boolean:v1.…` for
 * the other scalars, so each opens to its own JSON type. Anything else in a
 * secret place was stored in clear before it counted as a secret.
 */
const SEALED_LEAF = /^(?:(number|boolean):)?(v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/;
const leafKey = (leaf: SecretLeaf) => `${typeof leaf}:${String(leaf)}`;

export function createAgentSecrets(sealer: Sealer) {
  function openLeaf(stored: SecretLeaf): SecretLeaf {
    const match = typeof stored === 'string' ? SEALED_LEAF.exec(stored) : null;
    if (match === null) return stored;
    const text = sealer.open(match[2]!);
    if (match[1] === 'number') return Number(text);
    if (match[1] === 'boolean') return text === 'true';
    return text;
  }

  function sealLeaf(leaf: SecretLeaf): string {
    const sealed = sealer.seal(String(leaf));
    return typeof leaf === 'string' ? sealed : `${typeof leaf}:${sealed}`;
  }

  return {
    /** The configuration with its secrets in clear, and each secret's sealed form (so an unchanged secret keeps its ciphertext). */
    open(stored: Config): { plain: Config; sealedOf: Map<string, string> } {
      const sealedOf = new Map<string, string>();
      const plain = mapSecrets(stored, {
        secret(sealed) {
          const secret = openLeaf(sealed);
          if (typeof sealed === 'string' && SEALED_LEAF.test(sealed)) sealedOf.set(leafKey(secret), sealed);
          return secret;
        },
      });
      return { plain, sealedOf };
    },

    /** The configuration as stored: each secret sealed, or its stored ciphertext when it is unchanged. */
    seal(plain: Config, sealedOf: ReadonlyMap<string, string> = new Map()): Config {
      return mapSecrets(plain, {
        secret(secret) {
          const stored = sealedOf.get(leafKey(secret));
          // Kept under the sealing key: a rotation may be under way.
          return stored === undefined ? sealLeaf(secret) : resealStoredLeaf(stored, (sealed) => sealer.current(sealed));
        },
      });
    },
  };
}

export type AgentSecrets = ReturnType<typeof createAgentSecrets>;

/** A stored leaf with its sealed value passed through `reseal`, its type prefix kept; a leaf in clear as it is. */
function resealStoredLeaf(leaf: string, reseal: (sealed: string) => string): string {
  const match = SEALED_LEAF.exec(leaf);
  if (match === null) return leaf;
  const next = reseal(match[2]!);
  return match[1] === undefined ? next : `${match[1]}:${next}`;
}

/** A stored configuration (JSON text) with each sealed leaf passed through `reseal`; the same text when none changes. */
export function resealStoredConfig(stored: string, reseal: (sealed: string) => string): string {
  let changed = false;
  const config = mapSecrets(JSON.parse(stored) as Config, {
    secret(leaf) {
      const next = typeof leaf === 'string' ? resealStoredLeaf(leaf, reseal) : leaf;
      changed ||= next !== leaf;
      return next;
    },
  });
  return changed ? JSON.stringify(config) : stored;
}
