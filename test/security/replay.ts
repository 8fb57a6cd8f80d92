import { randomBytes } from 'node:crypto';
import type { TestServer } from '../helpers/server.js';
import { adjust, headersOf, learnIds, mark, OPERATIONS, substitute, widest, type Operation, type Tenant } from './operations.js';

export interface Answer {
  status: number;
  body: any;
  text: string;
}

export async function call(server: TestServer, op: Operation, tenant: Tenant, data: unknown): Promise<Answer> {
  // An operation whose body is a third party's own JSON: the example's path parameters and query, `data` as the whole body.
  const res = op.raw
    ? await server.post(`${op.path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => encodeURIComponent(String(op.raw!.params[name])))}?${new URLSearchParams(op.raw.query)}`, data, { ...op.raw.headers, ...headersOf(op.auth, tenant.credentials) })
    : await server.post(op.path, { data }, headersOf(op.auth, tenant.credentials));
  return { status: res.status, body: res.body, text: typeof res.body === 'string' ? res.body : JSON.stringify(res.body) };
}

const ID_KEY = /^(id|uid)$|Ids?$/;
function idReferences(value: unknown, key?: string): number {
  if (typeof value === 'string') return key !== undefined && ID_KEY.test(key) ? 1 : 0;
  if (Array.isArray(value)) return value.reduce<number>((n, v) => n + idReferences(v, key), 0);
  if (value !== null && typeof value === 'object') return Object.entries(value).reduce<number>((n, [k, v]) => n + idReferences(v, k), 0);
  return 0;
}

const SERVICE_IDS = /"[a-z]{2,4}_[0-9A-HJKMNP-TV-Z]{26}"/g;
/** Whether an example result shows an ID the service assigned that its request did not name: the operation creates something. */
function createsSomething(op: Operation): boolean {
  const named = new Set(JSON.stringify(op.example.data).match(SERVICE_IDS) ?? []);
  return (JSON.stringify(op.example.result).match(SERVICE_IDS) ?? []).some((id) => !named.has(id));
}

/**
 * Operations whose example no workspace can replay: a third party's call
 * authenticated by what only the server hands out (an async webhook step's
 * callback token, an inbound trigger's signature with the trigger's
 * secret). Workspace B still calls them below, as every operation.
 */
const UNREPLAYABLE = new Set(['recordWorkflowStepCallback', 'inboundWorkflowTrigger']);

/**
 * What seeding replays, in an order that works: creations first, those
 * naming fewer other things first (an organization before its documents),
 * then every other write, then the cancels, then the deletions that start a job (the job never
 * runs: tests run due jobs themselves, and these do not, so nothing is
 * erased); each round retries what failed, as long as a round gets further.
 */
export const SEED: Operation[] = OPERATIONS.filter((op) => !UNREPLAYABLE.has(op.name) && (op.kind === 'write' || (op.kind === 'delete' && createsSomething(op)))).sort((x, y) => {
  // Cancels end what other writes act on (a workflow execution's steps): after them, a step's before its execution's.
  const rank = (op: Operation) => (op.kind === 'delete' ? 3 : /^(add|create)/.test(op.name) ? 0 : /^cancel/.test(op.name) ? 2 : 1);
  // Among cancels, a part's (a step, more IDs) before the whole's.
  const order = rank(x) === 2 ? -1 : 1;
  return rank(x) - rank(y) || order * (idReferences(x.example.data) - idReferences(y.example.data));
});

export interface Seeded {
  /** Example placeholder IDs (and the example API key) → this workspace's real ones. */
  ids: Map<string, string>;
  marker: string;
  /** Operations whose replay never succeeded, with the last answer's error. */
  failed: Map<string, string>;
  /** Every successful answer's text (for the secrets, IDs and timestamps they hold). */
  answers: string[];
}

/**
 * Replays the examples against `tenant`'s workspace, every free-text field
 * carrying a marker. Reads run between rounds: some examples name IDs that
 * only a read's example shows (a webhook message).
 */
export async function seed(server: TestServer, tenant: Tenant, receiverUrl: string): Promise<Seeded> {
  const marker = `mark-a-${randomBytes(6).toString('hex')}`;
  const ids = new Map<string, string>();
  // Workspace operations name an application by its API key: the examples' placeholder is this workspace's.
  for (const op of OPERATIONS.filter((o) => o.auth === 'workspace')) {
    const apiKey = (op.example.data as { apiKey?: string }).apiKey;
    if (apiKey) ids.set(apiKey, tenant.credentials.apiKey);
  }
  const seeded: Seeded = { ids, marker, failed: new Map(), answers: [] };
  let pending = SEED;
  for (;;) {
    const next: Operation[] = [];
    for (const op of pending) {
      const answer = await call(server, op, tenant, mark(op, substitute(adjust(op, op.example.data, tenant, receiverUrl), ids), marker));
      if (answer.status === 200) {
        learnIds(op.example.result, answer.body.result, ids);
        seeded.answers.push(answer.text);
        seeded.failed.delete(op.name);
      } else {
        seeded.failed.set(op.name, `${answer.body?.error?.status}: ${answer.body?.error?.message}`);
        next.push(op);
      }
    }
    for (const { op, data } of readRequests(seeded, tenant, receiverUrl)) {
      const answer = await call(server, op, tenant, data);
      if (answer.status === 200) {
        learnIds(op.example.result, answer.body.result, ids);
        seeded.answers.push(answer.text);
      }
    }
    if (next.length === 0 || next.length === pending.length) break;
    pending = next;
  }
  return seeded;
}

/** A read and one request of it; `variant` names it ("example", or "widest": the example without its optional fields). */
export interface Read {
  op: Operation;
  variant: 'example' | 'widest';
  data: unknown;
}

/** Each read with the example's request, and with the widest request it allows. */
export function readsOf(requestOf: (op: Operation) => any): Read[] {
  return OPERATIONS.filter((op) => op.kind === 'read').flatMap((op) => {
    const data = requestOf(op);
    const wide = widest(op, data);
    return [{ op, variant: 'example' as const, data }, ...(wide ? [{ op, variant: 'widest' as const, data: wide }] : [])];
  });
}

/** A's reads (A's IDs, and A's marker where the example filters by text). */
export function readRequests(seeded: Seeded, tenant: Tenant, receiverUrl: string): Read[] {
  return readsOf((op) => mark(op, substitute(adjust(op, op.example.data, tenant, receiverUrl), seeded.ids), seeded.marker));
}

export async function snapshot(server: TestServer, tenant: Tenant, reads: Read[]): Promise<Record<string, Answer>> {
  const out: Record<string, Answer> = {};
  for (const read of reads) out[`${read.op.name} (${read.variant})`] = await call(server, read.op, tenant, read.data);
  return out;
}
