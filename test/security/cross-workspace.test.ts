import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applicationAudience } from '../../server/domains/permissions/signing-keys.js';
import { eventually } from '../helpers/eventually.js';
import { closeReceivers } from '../helpers/receiver.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adjust, newTenant, OPERATIONS, startThirdParties, substitute, type Operation, type Tenant } from './operations.js';
import { call, readRequests, readsOf, seed, SEED, snapshot, type Answer, type Seeded } from './replay.js';

/**
 * Workspace A is filled by replaying every write example of the contract,
 * its free text carrying a marker. Workspace B, with valid credentials of
 * its own, then calls every operation with the examples' requests, which
 * name A's IDs: reads, then writes, the reads again (now over B's own data
 * under A's IDs), deletions, and the reads once more.
 * Each of B's answers must hold nothing of A (the marker, A's credentials
 * and secrets, IDs the service gave A's objects that B did not send, A's
 * timestamps), and must equal what workspace C gets for the same request
 * on a server where A never existed: a count of A's rows, an ALREADY_EXISTS
 * for A's unique name or a timing of A's objects would differ. Afterwards
 * every read of A answers exactly what it answered before.
 */
let server: TestServer;
let pristine: TestServer;
let receiverUrl: string;
let a: Tenant;
let b: Tenant;
let c: Tenant;
let seeded: Seeded;
let before: Record<string, Answer>;
/** Strings of A that B must never see unless it sent them itself. */
let secretsOfA: string[];

const JWT = /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g;
const WEBHOOK_SECRET = /whsec_[A-Za-z0-9+/]+=*/g;
const SERVICE_IDS = /[a-z]{2,4}_[0-9A-HJKMNP-TV-Z]{26}/g;
// Millisecond epochs (2001–2286) and ISO instants: when A's objects were made or changed.
const EPOCH_MS = /\b1\d{12}\b/g;
const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g;

function ownValues(t: Tenant): string[] {
  const { credentials } = t;
  return [credentials.apiKey, credentials.authToken, credentials.workspaceAuthToken, credentials.workspaceId, applicationAudience(credentials.apiKey), ...Object.values(t.secrets)];
}

/** An answer with what necessarily differs between two workspaces (their own credentials, assigned IDs, times, tokens) made equal. */
function normalize(text: string, t: Tenant): string {
  let out = text;
  for (const value of ownValues(t)) out = out.split(value).join('<own>');
  return out.replace(/"\*{4}[^"]*"/g, '"<masked>"').replace(JWT, '<jwt>').replace(WEBHOOK_SECRET, '<whsec>').replace(SERVICE_IDS, '<id>').replace(EPOCH_MS, '<ms>').replace(ISO, '<iso>');
}

/** The example's request as a workspace other than A sends it: A's IDs, its own secrets, no marker. */
function requestOf(op: Operation, t: Tenant): any {
  return substitute(adjust(op, op.example.data, t, receiverUrl), seeded.ids);
}

async function stableSnapshot(): Promise<Record<string, Answer>> {
  const reads = readRequests(seeded, a, receiverUrl);
  let last = await snapshot(server, a, reads);
  // Webhook deliveries of A's events finish in the background; A's state is compared once they have.
  await eventually(async () => {
    const next = await snapshot(server, a, reads);
    const same = JSON.stringify(next) === JSON.stringify(last);
    last = next;
    return same;
  }, "A's reads to settle");
  return last;
}

beforeAll(async () => {
  const thirdParties = await startThirdParties();
  receiverUrl = thirdParties.receiver.url;
  [server, pristine] = await Promise.all([startTestServer(thirdParties.env), startTestServer(thirdParties.env)]);
  a = await newTenant(server);
  b = await newTenant(server);
  c = await newTenant(pristine);
  seeded = await seed(server, a, receiverUrl);
  before = await stableSnapshot();
  const texts = [...seeded.answers, ...Object.values(before).map((r) => r.text)].join('\n');
  secretsOfA = [
    ...ownValues(a),
    ...seeded.ids.values(),
    ...(texts.match(JWT) ?? []),
    ...(texts.match(WEBHOOK_SECRET) ?? []),
    ...(texts.match(EPOCH_MS) ?? []),
    ...(texts.match(ISO) ?? []),
  ];
  secretsOfA = [...new Set(secretsOfA)];
}, 120_000);
afterAll(async () => {
  await Promise.all([server?.close(), pristine?.close()]);
  await closeReceivers();
});

describe("workspace A's replay of the examples", () => {
  it('succeeds for every operation it replays, and leaves the marker in what most reads show', () => {
    expect(Object.fromEntries(seeded.failed)).toEqual({});
    const marked = Object.entries(before).filter(([, r]) => r.text.includes(seeded.marker));
    // The marker B must not see is really in A's data: if the replay stopped marking, this fails.
    expect(marked.length).toBeGreaterThanOrEqual(Math.floor(Object.keys(before).length / 2));
    expect(secretsOfA.length).toBeGreaterThan(20);
  });
});

/** One call of B's (and C's), in order: reads, writes, reads, deletions, reads; a read with the example's request and its widest. */
interface Step {
  op: Operation;
  request: (t: Tenant) => unknown;
}
const readSteps = (phase: string): Array<[string, Step]> =>
  OPERATIONS.filter((op) => op.kind === 'read').flatMap((op) => [
    [`${phase} ${op.name}`, { op, request: (t: Tenant) => requestOf(op, t) }] as [string, Step],
    [`${phase} ${op.name} (widest)`, { op, request: (t: Tenant) => readsOf((o) => requestOf(o, t)).find((r) => r.op === op && r.variant === 'widest')?.data }] as [string, Step],
  ]);
const writes = OPERATIONS.filter((op) => op.kind === 'write').sort((x, y) => SEED.indexOf(x) - SEED.indexOf(y));
const steps: Array<[string, Step]> = [
  ...readSteps('read'),
  ...writes.map((op): [string, Step] => [`write ${op.name}`, { op, request: (t) => requestOf(op, t) }]),
  // B now holds data under the same IDs as A: the reads must show B's and only B's.
  ...readSteps('read after writing'),
  ...OPERATIONS.filter((op) => op.kind === 'delete').map((op): [string, Step] => [`delete ${op.name}`, { op, request: (t) => requestOf(op, t) }]),
  ...readSteps('read again'),
];

describe('workspace B, calling every operation with the examples (A’s IDs)', () => {
  it('covers every operation of the contract', () => {
    expect(new Set(steps.map(([, step]) => step.op.name)).size).toBe(OPERATIONS.length);
  });

  it.each(steps)('%s: nothing of A, and what a server without A answers', async (_step, { op, request }) => {
    const sentB = request(b);
    // A read whose every field is required has no wider request.
    if (sentB === undefined) return;
    const answerB = await call(server, op, b, sentB);
    const answerC = await call(pristine, op, c, request(c));
    expect(answerB.text).not.toContain(seeded.marker);
    const sent = JSON.stringify(sentB);
    const leaked = secretsOfA.filter((value) => answerB.text.includes(value) && !sent.includes(value));
    expect(leaked).toEqual([]);
    expect(normalize(answerB.text, b)).toBe(normalize(answerC.text, c));
    expect(answerB.status).toBe(answerC.status);
  });

  it("leaves every read of A answering as before", async () => {
    const after = await stableSnapshot();
    for (const name of Object.keys(before)) expect([name, after[name]]).toEqual([name, before[name]]);
  });
});

describe("workspace operations with A's workspace ID and B's workspace auth token", () => {
  it.each(OPERATIONS.filter((op) => op.auth === 'workspace').map((op) => [op.name, op] as const))('%s is PERMISSION_DENIED', async (_name, op) => {
    const data = substitute(op.example.data, seeded.ids);
    const res = await server.post(op.path, { data }, { 'x-service-workspace-id': a.credentials.workspaceId, 'x-service-workspace-auth-token': b.credentials.workspaceAuthToken });
    expect([res.status, res.body.error?.status]).toEqual([403, 'PERMISSION_DENIED']);
    const text = JSON.stringify(res.body);
    expect(secretsOfA.filter((value) => text.includes(value) && value !== a.credentials.workspaceId && value !== a.credentials.apiKey)).toEqual([]);
    expect(text).not.toContain(b.credentials.workspaceAuthToken);
  });
});
