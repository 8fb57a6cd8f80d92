import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeReceivers } from '../helpers/receiver.js';
import { memoryLogger, recordSecret, type SecretKind } from '../helpers/log-capture.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { headersOf, mark, newSecret, newTenant, OPERATIONS, SECRET_KEY, startThirdParties, substitute, adjust, type Operation, type Tenant } from './operations.js';
import { call, readsOf, seed, SEED, type Answer, type Seeded } from './replay.js';

/**
 * Every secret the service is given or issues, looked for in every answer
 * of every operation and in every line the server logs. A secret may appear
 * in an answer only where returning it is the operation's purpose; the
 * one table of those places is RETURNED_BY.
 */
type Kind = Exclude<SecretKind, 'metrics token'>;

/**
 * Where each kind of secret may appear in an answer, and why. The contract's
 * examples say the same (checked below): an operation whose example result
 * shows the example's secret returns it.
 */
const RETURNED_BY: Record<Kind, { operations: string[]; why: string }> = {
  'API key': {
    operations: [
      'getAuthTokens',
      'getFolders',
      'addFolder',
      'updateFolder',
      'updateFolderAccess',
      'getNotifications',
      'getNotificationConfig',
      'getNotificationConfigV2',
      'getActivityLogs',
      'addActivities',
      'updateActivity',
      'getRecordings',
      'addRecording',
      'getAllUserData',
      'getAllUserDataV2',
      'getWebhookMessages',
    ],
    why: "the caller's own API key (sent in its header on every call): the specification's objects carry it (metadata.apiKey), and Get Auth Tokens names the application",
  },
  'auth token': { operations: ['getAuthTokens'], why: "lists an application's auth tokens to the workspace (workspace credentials)" },
  'workspace auth token': { operations: [], why: 'issued by the operator CLI only' },
  'provider key': { operations: [], why: 'an AI provider key is set with the CLI and only sent to the provider' },
  'user JWT': { operations: ['generateToken'], why: 'Generate Token issues it' },
  'webhook signing secret': {
    operations: ['getWebhookEndpointSecret', 'rotateWebhookEndpointSecret'],
    why: 'a receiver needs the secret to verify deliveries: these two hand it to the application',
  },
  'permission provider token': {
    operations: ['getPermissionProviderConfig', 'updatePermissionProviderConfig'],
    why: "the specification returns the permission provider configuration as set, token included, to the application that set it",
  },
  'email provider key': { operations: [], why: 'shown masked (**** and its last four characters)' },
  'agent secret': { operations: [], why: 'an agent configuration reads back its secrets as __redacted__' },
};

/** How each kind looks in the contract's examples (the placeholders the examples use). */
const EXAMPLE_SHAPES: Partial<Record<Kind, RegExp>> = {
  'API key': /ak_EXAMPLE/,
  'auth token': /at_EXAMPLE/,
  'user JWT': /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/,
  'webhook signing secret': /whsec_/,
  'permission provider token': /EXAMPLE-provider-token/,
  'email provider key': /SG\.EXAMPLE/,
  'agent secret': /your-style-guide-token/,
};

const JWT = /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g;
const WEBHOOK_SECRET = /whsec_[A-Za-z0-9+/]+=*/g;

let server: TestServer;
let lines: string[];
let thirdParties: Awaited<ReturnType<typeof startThirdParties>>;
let a: Tenant;
let seeded: Seeded;
/** Every answer the service gave, by operation. */
const answers = new Map<string, Answer[]>();
const secrets = new Map<string, Kind>();
const refusals: Answer[] = [];

function keep(op: Operation, answer: Answer): Answer {
  answers.set(op.name, [...(answers.get(op.name) ?? []), answer]);
  for (const token of answer.text.match(JWT) ?? []) addSecret('user JWT', token);
  for (const secret of answer.text.match(WEBHOOK_SECRET) ?? []) addSecret('webhook signing secret', secret);
  return answer;
}

function addSecret(kind: Kind, value: string) {
  secrets.set(value, kind);
  recordSecret(kind, value);
}

/** The answer's violations: secrets it holds that its operation has no business returning. */
function misplaced(op: Operation, text: string): string[] {
  return [...secrets].filter(([value, kind]) => text.includes(value) && !RETURNED_BY[kind].operations.includes(op.name)).map(([, kind]) => kind);
}

const requestOf = (op: Operation) => mark(op, substitute(adjust(op, op.example.data, a, thirdParties.receiver.url), seeded.ids), seeded.marker);

beforeAll(async () => {
  thirdParties = await startThirdParties();
  const memory = memoryLogger();
  lines = memory.lines;
  server = await startTestServer(thirdParties.env, { logger: memory.logger });
  a = await newTenant(server);
  addSecret('API key', a.credentials.apiKey);
  addSecret('auth token', a.credentials.authToken);
  addSecret('workspace auth token', a.credentials.workspaceAuthToken);
  addSecret('provider key', a.secrets.aiProviderKey);
  addSecret('email provider key', a.secrets.emailProviderKey);
  addSecret('permission provider token', a.secrets.permissionProviderToken);
  addSecret('agent secret', a.secrets.mcpHeader.replace(/^Bearer /, ''));
  seeded = await seed(server, a, thirdParties.receiver.url);
  for (const text of seeded.answers) keep({ name: 'seed' } as Operation, { status: 200, body: undefined, text });
  answers.delete('seed');
  // Third parties that refuse, repeating the credential: Ask AI, and the notification emails the replay queued.
  thirdParties.state.refuse = true;
  const askAi = OPERATIONS.find((op) => op.name === 'askAi')!;
  refusals.push(keep(askAi, await call(server, askAi, a, requestOf(askAi))));
  while ((await server.running.services.jobs.runDue()) > 0);
  thirdParties.state.refuse = false;
  // Every operation once more, in an order that reaches each: reads, writes, deletions, reads.
  const reads = readsOf(requestOf);
  const writes = OPERATIONS.filter((op) => op.kind === 'write').sort((x, y) => SEED.indexOf(x) - SEED.indexOf(y));
  for (const { op, data } of reads) keep(op, await call(server, op, a, data));
  for (const op of [...writes, ...OPERATIONS.filter((o) => o.kind === 'delete')]) keep(op, await call(server, op, a, requestOf(op)));
  for (const { op, data } of reads) keep(op, await call(server, op, a, data));
  // The jobs (emails through the provider, the erasure, the migration) log too.
  while ((await server.running.services.jobs.runDue()) > 0);
}, 120_000);
afterAll(async () => {
  await server?.close();
  await closeReceivers();
});

describe('the table of operations that return a secret', () => {
  it('matches the contract: an operation whose example result shows a kind of secret returns that kind', () => {
    const shown: Record<string, string[]> = {};
    for (const [kind, shape] of Object.entries(EXAMPLE_SHAPES)) {
      shown[kind] = OPERATIONS.filter((op) => shape.test(JSON.stringify(op.example.result))).map((op) => op.name).sort();
    }
    expect(shown).toEqual(Object.fromEntries(Object.keys(EXAMPLE_SHAPES).map((kind) => [kind, [...RETURNED_BY[kind as Kind].operations].sort()])));
  });
});

describe('secrets in answers', () => {
  it('were all created: one or more of every kind', () => {
    const kinds = new Set(secrets.values());
    expect([...kinds].sort()).toEqual(Object.keys(RETURNED_BY).sort());
    expect(answers.size).toBe(OPERATIONS.length);
  });

  it.each(OPERATIONS.map((op) => [op.name, op] as const))('%s returns no secret but those it exists to return', (_name, op) => {
    for (const answer of answers.get(op.name) ?? []) expect(misplaced(op, answer.text)).toEqual([]);
  });

  it('the operations that exist to return a secret did return it (so the checks above can fail)', () => {
    const returned = (name: string, value: string) => (answers.get(name) ?? []).some((r) => r.text.includes(value));
    expect(returned('getAuthTokens', a.credentials.authToken)).toBe(true);
    expect(returned('getPermissionProviderConfig', a.secrets.permissionProviderToken)).toBe(true);
    expect([...secrets].filter(([, kind]) => kind === 'webhook signing secret').length).toBeGreaterThanOrEqual(2);
    expect(answers.get('generateToken')?.[0]?.text).toMatch(JWT);
  });
});

describe('secrets sent in a request are not echoed', () => {
  const guarded = OPERATIONS.filter((op) => op.auth !== 'public');

  it.each(guarded.map((op) => [op.name, op] as const))('%s: a wrong credential is not repeated in the refusal', async (_name, op) => {
    const [idHeader, tokenHeader] = Object.keys(headersOf(op.auth, a.credentials)) as [string, string];
    const right = headersOf(op.auth, a.credentials);
    // A signedBody operation's one credential header is the API key (its signature is checked, and never echoed, in test/http/workflows/triggers.test.ts).
    const variants = tokenHeader === undefined ? [{ ...right, [idHeader]: newSecret('ak') }] : [{ ...right, [tokenHeader]: newSecret('at') }, { ...right, [idHeader]: newSecret('ak') }];
    for (const wrong of variants) {
      for (const value of Object.values(wrong)) addSecret('auth token', value);
      const res = await server.post(op.path, { data: requestOf(op) }, wrong);
      expect(res.body.error?.status).toBe('PERMISSION_DENIED');
      const text = JSON.stringify(res.body);
      expect(Object.values(wrong).filter((value) => text.includes(value))).toEqual([]);
    }
  });

  /** Every place in an example's request whose key names a secret (an auth token, an API key, a header). */
  const secretFields = OPERATIONS.flatMap((op) => pathsOf(op.example.data).filter(([, key]) => SECRET_KEY.test(key)).map(([path]) => [`${op.name} ${path.join('.')}`, op, path] as const));

  it('finds the request fields that carry secrets', () => {
    expect(secretFields.map(([name]) => name)).toEqual(
      expect.arrayContaining(['getAuthTokens apiKey', 'updatePermissionProviderConfig permissionProviderConfig.authToken', 'updateEmailConfig emailServiceConfig.apiKey']),
    );
  });

  it.each(secretFields)('%s: not echoed by INVALID_ARGUMENT, nor by the answer unless returning it is the purpose', async (_name, op, path) => {
    const value = newSecret('sent');
    addSecret('auth token', value);
    const data = setAt(requestOf(op), path, value);
    // Refused before validation: an unknown key beside `data` holding the secret.
    const invalid = await server.post(op.path, { data, notAField: value }, headersOf(op.auth, a.credentials));
    expect(invalid.body.error?.status).toBe('INVALID_ARGUMENT');
    expect(JSON.stringify(invalid.body)).not.toContain(value);
    // The secret where a string belongs: refused by validation, or (open shapes, such as an MCP server's headers) stored.
    const misshapen = await server.post(op.path, { data: setAt(data, path, [value]) }, headersOf(op.auth, a.credentials));
    expect(JSON.stringify(misshapen.body)).not.toContain(value);
    const valid = await server.post(op.path, { data }, headersOf(op.auth, a.credentials));
    const purpose = Object.values(RETURNED_BY).some((r) => r.operations.includes(op.name) && op.name !== 'getAuthTokens');
    if (!purpose) expect(JSON.stringify(valid.body)).not.toContain(value);
  });
});

describe('a refusal of invalid input never repeats the value it refuses', () => {
  /** Every string of every example request, replaced by a secret: a key pasted into the wrong field. */
  const fields = OPERATIONS.flatMap((op) => pathsOf(op.example.data, [], true).map(([path]) => [`${op.name} ${path.join('.')}`, op, path] as const));

  it.each(fields)('%s', async (_name, op, path) => {
    const value = newSecret('sk');
    addSecret('auth token', value);
    const res = await server.post(op.path, { data: setAt(requestOf(op), path, value) }, headersOf(op.auth, a.credentials));
    // INVALID_ARGUMENT, or Ask AI's handled failure (`{success: false, error}`); NOT_FOUND may name the ID it did not find.
    if (res.body.error?.status === 'INVALID_ARGUMENT') expect(res.body.error.message).not.toContain(value);
    if (res.body.result?.success === false) expect(JSON.stringify(res.body)).not.toContain(value);
  });
});

describe('a third party that repeats the credential it refuses', () => {
  it("Ask AI's answer does not pass the provider key on", () => {
    const [refused] = refusals;
    // The specification's shape for a provider's refusal: a success envelope saying it failed.
    expect(refused?.body.result?.success).toBe(false);
    expect(refused?.text).not.toContain(a.secrets.aiProviderKey);
    // The provider did get the key and repeated it: there was something to pass on.
    expect(thirdParties.receiver.received.some((r) => JSON.stringify(r.headers).includes(a.secrets.aiProviderKey))).toBe(true);
  });

  it('the email provider refused deliveries with the key in its error (their logging is checked below)', () => {
    expect(thirdParties.receiver.received.some((r) => JSON.stringify(r.headers).includes(a.secrets.emailProviderKey))).toBe(true);
  });
});

describe('secrets in the server log', () => {
  it("logged the email provider's refusals, whose text repeated the key (so the check below has something to catch)", () => {
    expect(lines.some((line) => line.includes('job attempt failed') && line.includes('email provider answered HTTP 401') && line.includes('invalid credential'))).toBe(true);
  });

  it('no line holds any secret created or sent during this file', () => {
    expect(lines.filter((line) => line.includes('"request completed"')).length).toBeGreaterThan(OPERATIONS.length);
    const leaked = [...secrets].filter(([value]) => lines.some((line) => line.includes(value))).map(([value, kind]) => `${kind}: ${lines.find((line) => line.includes(value))!.replace(value, "<secret>").slice(0, 600)}`);
    expect(leaked).toEqual([]);
  });
});

/** The paths of the strings in a request (with the key holding each); in arrays too when `inArrays`. */
function pathsOf(value: unknown, path: (string | number)[] = [], inArrays = false): Array<[(string | number)[], string]> {
  if (Array.isArray(value)) {
    return value.flatMap((v, i) => (inArrays && typeof v === 'string' ? [[[...path, i], String(path.at(-1))] as [(string | number)[], string]] : pathsOf(v, [...path, i], inArrays)));
  }
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => (typeof v === 'string' ? [[[...path, k], k] as [(string | number)[], string]] : pathsOf(v, [...path, k], inArrays)));
  }
  return [];
}

function setAt(root: any, path: (string | number)[], value: unknown): any {
  if (path.length === 0) return value;
  const copy: any = Array.isArray(root) ? [...root] : { ...root };
  copy[path[0]!] = setAt(copy[path[0]!], path.slice(1), value);
  return copy;
}
