import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { contract, type OperationMeta } from '../../contract/index.js';
import { ERROR_STATUS_HTTP, ZErrorEnvelope, ZErrorEnvelopeWithCode, type ErrorStatus } from '../../contract/common/errors.js';
import { recordSecretsIn } from '../helpers/log-capture.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';
import { checkConsistency } from './consistency.js';
import { stubNetwork, PROVIDER_ENV, type NetworkStub } from './network-stub.js';
import { arbitraryOf, deepNesting, jsonValue, PROTO_NAMES, toJsonText, type Pool } from './zod-arbitrary.js';

/**
 * The contract-generated fuzz suite (issue #13): for every operation, bodies
 * generated from its request schema (valid, at the boundaries, malformed) go
 * over real HTTP to a real server. Every answer must be the operation's
 * success envelope or the error envelope with the table's HTTP code, never a
 * 5xx; the server must still answer /healthz after each operation, and the
 * database must be consistent at the end.
 *
 * FUZZ_RUNS: cases per operation (the CI default keeps the run near a minute);
 * FUZZ_SEED: replay a failure with the seed fast-check printed.
 */

export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 16);
/**
 * One seed for the whole run, printed at the start; operation i of a shard
 * runs with seed + i. Replaying with FUZZ_SEED re-runs every earlier
 * operation too, so the database is in the same state when the failing one runs.
 */
const FUZZ_SEED = process.env.FUZZ_SEED === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.FUZZ_SEED);

interface Route {
  group: string;
  name: string;
  path: string;
  metadata: OperationMeta;
  body: z.ZodTypeAny;
  responses: Record<number, z.ZodTypeAny>;
}

export const ROUTES: Route[] = Object.entries(contract).flatMap(([group, routes]) =>
  Object.entries(routes as unknown as Record<string, Omit<Route, 'group' | 'name'>>).map(([name, route]) => ({ group, name, ...route })),
);

/** The operations with the `{data}` envelope; the raw-body ones (a third party's own JSON) are fuzzed on their own below. */
const ENVELOPED = ROUTES.filter((route) => route.metadata.rawBody !== true);
const RAW = ROUTES.filter((route) => route.metadata.rawBody === true);

/** A request as sent: the body text and its content type (`null`: no content-type header). */
interface Case {
  kind: string;
  body: string | Uint8Array;
  contentType: string | null;
  /** Set on bodies no operation can accept (not JSON, not `{data:{...}}`, not application/json): the answer must be INVALID_ARGUMENT. */
  invalid?: true;
}

const HARVEST_PER_KEY = 40;

/** Seeding and fuzzing change what later operations find: the ones that remove things are followed by a re-seed. */
const DESTRUCTIVE = /delete|remove|disable|move|migrate/i;
/** The examples that create the pool's records, re-run after destructive operations. */
const CREATES = /\/(add|create|set|update)$/;

/**
 * Defines the suite over one shard of the operations: each file has its own
 * server and database and stays under a minute or so; with more than one
 * vitest worker (more CPUs than here) the shards run in parallel.
 */
export function defineFuzzSuite(shard: number, shards: number): void {
  const routes = ENVELOPED.filter((_, i) => i % shards === shard);
  let server: TestServer;
  let ws: WorkspaceCredentials;
  let network: NetworkStub;
  /** The seeded values (the examples' IDs and the workspace's own), always offered... */
  let pool: Map<string, string[]>;
  /** ...and the latest values the server returned. */
  const harvested = new Map<string, string[]>();
  const currentPool = (): Pool => new Map([...new Set([...pool.keys(), ...harvested.keys()])].map((key) => [key, [...(pool.get(key) ?? []), ...(harvested.get(key) ?? [])]]));
  const counts = { cases: 0, byKind: new Map<string, { sent: number; success: number }>(), success: 0, errors: new Map<string, number>() };

  beforeAll(async () => {
    network = stubNetwork();
    server = await startTestServer({
      ...PROVIDER_ENV,
      // The fuzz sends thousands of requests with one key: the limits are not what it tests.
      RATE_LIMIT_PER_MINUTE: '100000000',
      EMAIL_STATUS_LIMIT_PER_IP: '100000000',
      EMAIL_STATUS_LIMIT_PER_EMAIL: '100000000',
      AI_RATE_LIMIT_PER_MINUTE: '100000000',
      AUTH_FAILURE_LIMIT_PER_IP: '100000000',
      // Nothing delivers in the background: webhook and job attempts would run against the stub at random times.
      WEBHOOK_POLL_INTERVAL_MS: '0',
    });
    console.log(`fuzz shard ${shard + 1}/${shards}: FUZZ_SEED=${FUZZ_SEED} FUZZ_RUNS=${FUZZ_RUNS} (set both to generate the same cases again)`);
    ws = await server.workspace();
    pool = poolFromExamples();
    pool.set('apiKey', [ws.apiKey]);
    pool.set('workspaceId', [ws.workspaceId]);
    await seed(ENVELOPED);
    await seed(ENVELOPED);
  }, 120_000);

  afterAll(async () => {
    network?.close();
    const kinds = [...counts.byKind].map(([kind, n]) => `${kind} ${n.sent} (${n.success} success)`).join(', ');
    const statuses = [...counts.errors].map(([status, n]) => `${status} ${n}`).join(', ');
    console.log(
      `fuzz shard ${shard + 1}/${shards}: ${counts.cases} cases sent over ${routes.length} operations (FUZZ_RUNS=${FUZZ_RUNS}); ` +
        `success ${counts.success}, errors: ${statuses}; by kind: ${kinds}; ` +
        `outbound calls stubbed: ${network?.stubbedRequests ?? 0} HTTP, ${network?.stubbedLookups ?? 0} DNS`,
    );
    await server?.close();
  });

  function headers(auth: OperationMeta['auth']): Record<string, string> {
    if (auth === 'workspace') return { 'x-service-workspace-id': ws.workspaceId, 'x-service-workspace-auth-token': ws.workspaceAuthToken };
    if (auth === 'application') return { 'x-service-api-key': ws.apiKey, 'x-service-auth-token': ws.authToken };
    return {};
  }

  /** Sends one case and checks the answer; returns the answer's status (`success` or the error status). */
  async function send(route: Route, c: Case, target: { path?: string; headers?: Record<string, string> } = {}): Promise<string> {
    counts.cases++;
    const kind = counts.byKind.get(c.kind) ?? { sent: 0, success: 0 };
    counts.byKind.set(c.kind, kind);
    kind.sent++;
    const requestHeaders: Record<string, string> = { ...headers(route.metadata.auth), ...target.headers };
    if (c.contentType !== null) requestHeaders['content-type'] = c.contentType;
    let response: Response;
    try {
      // A hang is a finding too: the guard turns it into a failure naming the case instead of a test timeout.
      response = await fetch(`${server.url}${target.path ?? route.path}`, { method: 'POST', headers: requestHeaders, body: c.body, signal: AbortSignal.timeout(20_000) });
    } catch (err) {
      throw new Error(`${route.path}: no answer (${(err as Error).message})`);
    }
    const text = await response.text();
    recordSecretsIn(text);
    const outcome = checkAnswer(route, response.status, response.headers.get('content-type'), text);
    if (c.invalid && outcome !== 'INVALID_ARGUMENT') throw new Error(`${c.kind} answered ${outcome}, not INVALID_ARGUMENT: ${route.path} ${text.slice(0, 300)}`);
    if (outcome === 'success') {
      counts.success++;
      kind.success++;
      harvest(JSON.parse(text).result);
    }
    else counts.errors.set(outcome, (counts.errors.get(outcome) ?? 0) + 1);
    return outcome;
  }

  /**
   * The values the server made up (comment IDs, endpoint IDs, page tokens, ...) join the pool under
   * their field name, so later operations reach the records they name. Credentials stay out: sent in
   * another request they could only land where the log scan would rightly object.
   */
  function harvest(result: unknown) {
    const walk = (value: unknown, key: string | undefined, depth: number) => {
      if (depth > 6) return;
      if (typeof value === 'string' && key && value.length <= 1024 && (key === 'pageToken' || !/secret|token|key|password/i.test(key))) {
        const values = harvested.get(key) ?? [];
        if (!values.includes(value) && !pool.get(key)?.includes(value)) {
          values.push(value);
          // The newest few: records made long ago were likely deleted since.
          if (values.length > HARVEST_PER_KEY) values.shift();
          harvested.set(key, values);
        }
      } else if (Array.isArray(value)) value.forEach((item) => walk(item, key?.endsWith('Ids') ? key.slice(0, -1) : key, depth + 1));
      else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, k, depth + 1);
    };
    walk(result, undefined, 0);
  }

  /**
   * Every case is sent with the workspace's credentials: were an operation to revoke them, every later
   * case would be PERMISSION_DENIED, which the oracle accepts, and the run would prove nothing.
   */
  async function expectCredentialsStillWork(after: string) {
    for (const [auth, path, data] of [
      ['application', '/v2/organizations/get', {}],
      ['workspace', '/v2/workspace/authtokens/get', { apiKey: ws.apiKey }],
    ] as const) {
      const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': JSON_TYPE, ...headers(auth) }, body: JSON.stringify({ data }) });
      const text = await response.text();
      expect(response.status, `${auth} credentials after ${after}: ${text.slice(0, 300)}`).toBe(200);
    }
  }

  function poolFromExamples(): Map<string, string[]> {
    const found = new Map<string, Set<string>>();
    const walk = (value: unknown, key: string | undefined) => {
      if (typeof value === 'string' && key) found.set(key, (found.get(key) ?? new Set()).add(value));
      else if (Array.isArray(value)) value.forEach((item) => walk(item, key?.endsWith('Ids') ? key.slice(0, -1) : key));
      else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, k);
    };
    for (const route of ROUTES) walk(route.metadata.example.data, undefined);
    return new Map([...found].map(([key, values]) => [key, [...values]]));
  }

  /** Runs the examples that create records (organizations, folders, documents, users, ...), checking their answers like any case. */
  async function seed(of: Route[]) {
    for (const route of of) {
      if (!CREATES.test(route.path)) continue;
      await send(route, { kind: 'seed', body: JSON.stringify({ data: route.metadata.example.data }), contentType: 'application/json' });
    }
  }

  describe.each(routes.map((route, index) => ({ ...route, index })))('$name ($path)', (route) => {
    it(
      'answers every generated body with its success envelope or the error envelope, never 5xx',
      async () => {
        const dataSchema = (route.body as z.AnyZodObject).shape.data as z.ZodTypeAny;
        await fc.assert(
          fc.asyncProperty(caseArbitrary(dataSchema, currentPool()), async (c) => {
            await send(route, c);
          }),
          { numRuns: FUZZ_RUNS, seed: FUZZ_SEED + route.index, endOnFailure: process.env.FUZZ_SHRINK !== 'true' },
        );
        // The same or different valid bodies at once: a look-up-then-write race must still end in an envelope, not a 5xx.
        const valid = arbitraryOf(dataSchema, 'valid', currentPool()).map((data): Case => ({ kind: 'concurrent', body: toJsonText({ data }), contentType: JSON_TYPE }));
        const burst = fc.oneof(
          fc.tuple(valid, fc.integer({ min: 2, max: 4 })).map(([c, n]) => Array.from({ length: n }, () => c)),
          fc.array(valid, { minLength: 2, maxLength: 4 }),
        );
        await fc.assert(
          fc.asyncProperty(burst, async (cases) => {
            await Promise.all(cases.map((c) => send(route, c)));
          }),
          { numRuns: Math.max(1, Math.ceil(FUZZ_RUNS / 8)), seed: FUZZ_SEED + route.index, endOnFailure: process.env.FUZZ_SHRINK !== 'true' },
        );
        const health = await fetch(`${server.url}/healthz`);
        expect(health.status, `/healthz after ${route.path}`).toBe(200);
        await expectCredentialsStillWork(route.path);
        if (DESTRUCTIVE.test(route.path)) await seed(ENVELOPED);
      },
      // Scaled with the case count: FUZZ_RUNS=2000 sends 2000 cases per operation.
      60_000 + FUZZ_RUNS * 500,
    );
  });

  describe.each(shard === 0 ? RAW : [])('raw body: $name ($path)', (route) => {
    it(
      'answers any JSON, any path parameter and any signature with its success envelope or the error envelope, never 5xx',
      async () => {
        await seed(ENVELOPED);
        const definitionIds = fc.oneof(fc.constantFrom(...(currentPool().get('definitionId') ?? ['q3-plan-signoff'])), fc.stringMatching(/^[a-z0-9-]{1,70}$/));
        const signature = fc.option(fc.oneof(fc.stringMatching(/^[0-9a-f]{0,70}$/).map((hex) => `sha256=${hex}`), fc.string({ maxLength: 80 })), { nil: undefined });
        await fc.assert(
          fc.asyncProperty(fc.jsonValue({ maxDepth: 4 }), definitionIds, signature, async (body, definitionId, sig) => {
            const path = route.path.replace(':definitionId', encodeURIComponent(definitionId));
            const extra: Record<string, string> = { 'x-service-api-key': ws.apiKey, ...(sig === undefined ? {} : { 'x-workflow-signature': sig }) };
            await send(route, { kind: 'raw', body: JSON.stringify(body), contentType: JSON_TYPE }, { path, headers: extra });
          }),
          { numRuns: FUZZ_RUNS, seed: FUZZ_SEED, endOnFailure: process.env.FUZZ_SHRINK !== 'true' },
        );
        const health = await fetch(`${server.url}/healthz`);
        expect(health.status).toBe(200);
      },
      60_000 + FUZZ_RUNS * 500,
    );
  });

  it(
    'answers operations interleaved at random, several at once',
    async () => {
      // Valid bodies of different operations racing on the same seeded records (a delete beside an add
      // into what it deletes, ...): each answer must still be an envelope, and the end state consistent.
      await seed(ENVELOPED);
      const pool = currentPool();
      const anyOperation = fc.oneof(
        ...ENVELOPED.map((route) =>
          arbitraryOf((route.body as z.AnyZodObject).shape.data as z.ZodTypeAny, 'valid', pool).map((data) => ({ route, c: { kind: 'interleaved', body: toJsonText({ data }), contentType: JSON_TYPE } as Case })),
        ),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(anyOperation, { minLength: 2, maxLength: 8 }), async (requests) => {
          await Promise.all(requests.map(({ route, c }) => send(route, c)));
        }),
        { numRuns: Math.max(1, Math.ceil(FUZZ_RUNS / 2)), seed: FUZZ_SEED + routes.length, endOnFailure: process.env.FUZZ_SHRINK !== 'true' },
      );
      const health = await fetch(`${server.url}/healthz`);
      expect(health.status).toBe(200);
      await expectCredentialsStillWork('the interleaved operations');
    },
    60_000 + FUZZ_RUNS * 2_000,
  );

  it('leaves the database consistent', async () => {
    const problems = await checkConsistency(server.env.DATABASE_URL!);
    expect(problems).toEqual([]);
  });
}

const ENVELOPE_KEYS = new Set(['message', 'status', 'code', 'details']);
/** Internals that must never reach a client in an error message. */
const INTERNALS = /prisma|sqlite|postgres|\bat \S+ \(|node_modules|\.ts:\d+|TypeError|ReferenceError|Cannot read propert/i;

/** The answer is exactly the operation's success envelope or the error envelope with the table's HTTP code. */
export function checkAnswer(route: Route, http: number, contentType: string | null, text: string): string {
  const where = `${route.path} answered ${http} ${text.slice(0, 300)}`;
  if (http >= 500) throw new Error(`5xx: ${where}`);
  if (!/^application\/json/.test(contentType ?? '')) throw new Error(`not JSON (content-type ${contentType}): ${where}`);
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`unparsable JSON: ${where}`);
  }
  if (http === 200) {
    const parsed = route.responses[200]!.safeParse(body);
    if (!parsed.success) throw new Error(`200 is not the success envelope (${parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}): ${where}`);
    // zod drops unknown keys while parsing: what it kept must be all there was (no undeclared field leaks out).
    const declared = JSON.parse(JSON.stringify(parsed.data));
    if (!isDeepStrictEqual(declared, body)) throw new Error(`200 carries fields the contract does not declare: ${where}`);
    return 'success';
  }
  const envelope = (route.metadata.numericErrorCode ? ZErrorEnvelopeWithCode : ZErrorEnvelope).safeParse(body);
  if (!envelope.success || Object.keys(body).length !== 1) throw new Error(`not the error envelope: ${where}`);
  const extra = Object.keys(body.error).filter((key) => !ENVELOPE_KEYS.has(key));
  if (extra.length > 0) throw new Error(`error envelope with extra fields ${extra.join(', ')}: ${where}`);
  const status = body.error.status as ErrorStatus;
  if (ERROR_STATUS_HTTP[status] !== http) throw new Error(`${status} sent with HTTP ${http}, the table says ${ERROR_STATUS_HTTP[status]}: ${where}`);
  if (body.error.code !== undefined && body.error.code !== http) throw new Error(`code ${body.error.code} differs from HTTP ${http}: ${where}`);
  if (INTERNALS.test(body.error.message)) throw new Error(`error message shows internals: ${where}`);
  return status;
}

const JSON_TYPE = 'application/json';

/** valid : boundary : malformed ≈ 2 : 2 : 1 */
function caseArbitrary(dataSchema: z.ZodTypeAny, pool: Pool): fc.Arbitrary<Case> {
  const valid = arbitraryOf(dataSchema, 'valid', pool);
  const boundary = arbitraryOf(dataSchema, 'boundary', pool);
  const asJson = (kind: string) => (data: unknown): Case => ({ kind, body: toJsonText({ data }), contentType: JSON_TYPE });
  return fc.oneof(
    { arbitrary: valid.map(asJson('valid')), weight: 4 },
    { arbitrary: boundary.map(asJson('boundary')), weight: 4 },
    { arbitrary: malformed(valid), weight: 2 },
  );
}

/** A value of a type other than `value`'s. */
function wrongTypeFor(value: unknown): fc.Arbitrary<unknown> {
  const candidates: fc.Arbitrary<unknown>[] = [];
  if (typeof value !== 'string') candidates.push(fc.string({ maxLength: 8 }), fc.constantFrom(...PROTO_NAMES));
  if (typeof value !== 'number') candidates.push(fc.constantFrom(0, -1, 1.5, 1e308));
  if (typeof value !== 'boolean') candidates.push(fc.boolean());
  if (value !== null) candidates.push(fc.constant(null));
  if (!Array.isArray(value)) candidates.push(fc.constant([]), fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }));
  if (typeof value !== 'object' || value === null || Array.isArray(value)) candidates.push(fc.constant({}), fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }));
  return fc.oneof(...candidates);
}

/** Every path to a node inside `data`, parents before children. */
function pathsOf(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  const paths = [path];
  if (Array.isArray(value)) value.forEach((item, i) => paths.push(...pathsOf(item, [...path, i])));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) paths.push(...pathsOf(v, [...path, k]));
  return paths;
}

function replaceAt(value: unknown, path: (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  copy[head!] = replaceAt(copy[head!], rest, replacement);
  return copy;
}

function getAt(value: unknown, path: (string | number)[]): unknown {
  return path.reduce<any>((node, key) => node?.[key], value);
}

const WRONG_CONTENT_TYPES = [
  null,
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=fuzz',
  'application/xml',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/merge-patch+json',
  'application/octet-stream',
  '*/*',
  'application/json, text/plain',
];

// A leading BOM is left out: RFC 8259 §8.1 lets a parser ignore it, and the server does.
const BAD_JSON_TEXTS = ['', ' ', '{', '{"data":', '{"data":{}', "{'data':{}}", '{data:{}}', '{"data":{},}', '{"data":NaN}', '{"data":Infinity}', '{"data":-Infinity}', '{"data":1e999}', '{"data":{}}}', '\u0000', 'null null', '{"data":{}} {"data":{}}', '{"data":undefined}', '{"data":0x10}', '{"data":"\\x41"}'];

function malformed(valid: fc.Arbitrary<unknown>): fc.Arbitrary<Case> {
  const json = (kind: string) => (body: unknown): Case => ({ kind, body: toJsonText(body), contentType: JSON_TYPE });
  const refused = (kind: string) => (body: unknown): Case => ({ kind, body: toJsonText(body), contentType: JSON_TYPE, invalid: true });
  const wrongType = valid.chain((data) => {
    const paths = pathsOf(data);
    return fc.integer({ min: 0, max: paths.length - 1 }).chain((i) => {
      const path = paths[i]!;
      return wrongTypeFor(getAt(data, path)).map((wrong) => ({ data: replaceAt(data, path, wrong) }));
    });
  });
  const extraField = fc.tuple(valid, fc.constantFrom('notAField', ...PROTO_NAMES), jsonValue(2)).map(([data, key, value]) => {
    const out = typeof data === 'object' && data !== null && !Array.isArray(data) ? { ...data } : {};
    Object.defineProperty(out, key, { value, enumerable: true, configurable: true, writable: true });
    return { data: out };
  });
  const extraTopLevel = fc.tuple(valid, fc.constantFrom('extra', 'result', 'error', ...PROTO_NAMES)).map(([data, key]) => {
    const out: Record<string, unknown> = { data };
    Object.defineProperty(out, key, { value: 1, enumerable: true, configurable: true, writable: true });
    return out;
  });
  const missingData = fc.oneof(fc.constant({}), valid.map((data) => ({ dat: data })), valid.map((data) => data));
  const nonObject = fc.oneof(fc.constantFrom<unknown>(null, 0, -1, 1e308, true, false, '', 'data', [], [{}], [{ data: {} }]), fc.jsonValue({ maxDepth: 2 }).filter((v) => typeof v !== 'object' || v === null || Array.isArray(v)));
  const dataNotObject = fc.oneof(fc.constantFrom<unknown>(null, 0, '', [], true, 'x'), deepNesting()).map((data) => ({ data }));
  const truncated = valid.chain((data) => {
    const text = toJsonText({ data });
    return fc.integer({ min: 0, max: text.length - 1 }).map((cut): Case => ({ kind: 'truncated JSON', body: text.slice(0, cut), contentType: JSON_TYPE, invalid: true }));
  });
  const badText = fc.oneof(fc.constantFrom(...BAD_JSON_TEXTS), fc.string({ maxLength: 30 })).map((body): Case => ({ kind: 'invalid JSON', body, contentType: JSON_TYPE, invalid: true }));
  const wrongContentType = fc.tuple(valid, fc.constantFrom(...WRONG_CONTENT_TYPES)).map(([data, contentType]): Case => {
    const text = toJsonText({ data });
    // fetch would add text/plain to a string body; bytes go without a content type.
    return { kind: 'wrong content type', body: contentType === null ? new TextEncoder().encode(text) : text, contentType, invalid: true };
  });
  return fc.oneof(
    wrongType.map(json('wrong type')),
    extraField.map(json('extra field')),
    extraTopLevel.map(refused('extra top-level field')),
    missingData.map(refused('missing data')),
    nonObject.map(refused('non-object JSON')),
    dataNotObject.map(refused('data not an object')),
    truncated,
    badText,
    wrongContentType,
  );
}
