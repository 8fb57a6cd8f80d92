/**
 * Where an agent configuration holds secrets, written once for the rules
 * (size, limits), the service (sealing, redaction, keeping) and the docs.
 *
 * Two places hold them: the rest-api strategy's options
 * (`contextGathering.strategyOptions['rest-api']`) and each MCP server
 * (`execution.mcpServers[i]`). Inside a place, a secret subtree is the value
 * of the place's own `auth` or `headers` key (and a server's `env`), or of a
 * key at any depth whose name looks like a secret's (`isSecretName`). Every
 * scalar leaf of a secret subtree (string, number, boolean) is one secret;
 * `null` is none. The specification leaves the shapes of both places open,
 * so the rule is about names, not a schema.
 */

/** How every secret reads back; sent back on Update Agent Version, it keeps the stored secret. */
export const REDACTED = '__redacted__';

/** The parts of a key name that make its value a secret, compared case-insensitively with `-`, `_`, `.` and spaces removed. */
export const SECRET_NAME_PARTS = ['secret', 'token', 'password', 'passwd', 'apikey', 'authorization', 'credential', 'privatekey', 'bearer', 'cookie'] as const;
/** Keys of the place itself whose whole value is secret. */
export const REST_API_SECRET_KEYS = ['auth', 'headers'] as const;
export const MCP_SERVER_SECRET_KEYS = ['auth', 'headers', 'env'] as const;

export type Path = (string | number)[];
export type SecretLeaf = string | number | boolean;
export type Config = Record<string, unknown>;

export interface SecretPlace {
  kind: 'rest-api' | 'mcp-server';
  /** Where the place is in the configuration. */
  path: Path;
  value: Record<string, unknown>;
}

export interface SecretVisit {
  /** The leaf's path in the configuration. */
  path: Path;
  /** The leaf's path inside its place. */
  rel: Path;
  place: SecretPlace;
}

export interface PlaceVisitor {
  /** Each secret leaf; what it returns replaces the leaf in the copy. */
  secret?(leaf: SecretLeaf, at: SecretVisit): unknown;
  /** Each string of a place outside its secret subtrees. */
  plainString?(text: string, path: Path): void;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const own = (value: unknown, key: string): unknown => (isObject(value) && Object.hasOwn(value, key) ? value[key] : undefined);

export function isSecretName(key: string): boolean {
  const folded = key.toLowerCase().replace(/[-_. ]/g, '');
  return SECRET_NAME_PARTS.some((part) => folded.includes(part));
}

/** The places of a configuration that may hold secrets. */
export function secretPlaces(config: Config): SecretPlace[] {
  const places: SecretPlace[] = [];
  const restApi = own(own(config.contextGathering, 'strategyOptions'), 'rest-api');
  if (isObject(restApi)) places.push({ kind: 'rest-api', path: ['contextGathering', 'strategyOptions', 'rest-api'], value: restApi });
  const servers = own(config.execution, 'mcpServers');
  if (Array.isArray(servers)) {
    servers.forEach((server, index) => {
      if (isObject(server)) places.push({ kind: 'mcp-server', path: ['execution', 'mcpServers', index], value: server });
    });
  }
  return places;
}

const placeKeys = (kind: SecretPlace['kind']): readonly string[] => (kind === 'rest-api' ? REST_API_SECRET_KEYS : MCP_SERVER_SECRET_KEYS);

function walk(value: unknown, path: Path, rel: Path, inSecret: boolean, place: SecretPlace, visitor: PlaceVisitor): unknown {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    if (inSecret) return visitor.secret ? visitor.secret(value, { path, rel, place }) : value;
    if (typeof value === 'string') visitor.plainString?.(value, path);
    return value;
  }
  if (Array.isArray(value)) return value.map((item, index) => walk(item, [...path, index], [...rel, index], inSecret, place, visitor));
  if (isObject(value)) {
    // Rebuilt with fromEntries, so a key named `__proto__` stays a key (an assignment would set the prototype instead).
    return Object.fromEntries(
      Object.entries(value).map(([key, child]) => {
        const secret = inSecret || isSecretName(key) || (rel.length === 0 && placeKeys(place.kind).includes(key));
        return [key, walk(child, [...path, key], [...rel, key], secret, place, visitor)];
      }),
    );
  }
  return value;
}

function setAt(node: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...tail] = path as [string | number, ...Path];
  if (Array.isArray(node)) return node.map((item, index) => (index === head ? setAt(item, tail, value) : item));
  const object = node as Record<string, unknown>;
  return { ...object, [head]: setAt(object[head as string], tail, value) };
}

/** A copy of `config` in which every secret leaf is what `visitor.secret` returns for it (unchanged without one). */
export function mapSecrets(config: Config, visitor: PlaceVisitor): Config {
  let copy: unknown = config;
  for (const place of secretPlaces(config)) copy = setAt(copy, place.path, walk(place.value, place.path, [], false, place, visitor));
  return copy as Config;
}

/** Visits every secret leaf and every plain string of the places, without copying. */
export function visitSecrets(config: Config, visitor: PlaceVisitor): void {
  for (const place of secretPlaces(config)) walk(place.value, place.path, [], false, place, visitor);
}

/** How a configuration reads, and how its size is measured: every secret as `__redacted__`. */
export function redactSecrets(config: Config): Config {
  return mapSecrets(config, { secret: () => REDACTED });
}

/**
 * What an MCP server is known by across versions: its `name`, else its `url`;
 * none when it has neither (such a server cannot keep a secret by
 * `__redacted__`: its position would be the only clue, and positions shift).
 */
export function serverIdentity(server: Record<string, unknown>): { by: 'name' | 'url'; value: string } | undefined {
  if (typeof server.name === 'string') return { by: 'name', value: server.name };
  if (typeof server.url === 'string') return { by: 'url', value: server.url };
  return undefined;
}

/** Whether two places point at the same address: their `url`s are equal JSON (both absent counts as equal). */
export function sameUrl(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return JSON.stringify(own(a, 'url')) === JSON.stringify(own(b, 'url'));
}
