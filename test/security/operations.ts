import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { z } from 'zod';
import { contract, type AuthMode, type OperationExample, type OperationMeta } from '../../contract/index.js';
import { recordSecret } from '../helpers/log-capture.js';
import { openAiCompletion } from '../http/ai/fake-providers.js';
import { startReceiver, type Received } from '../helpers/receiver.js';
import type { TestServer, WorkspaceCredentials } from '../helpers/server.js';

/**
 * The contract's operations with their examples, which tell one story (Acme,
 * doc-q3-plan, user-ada, …): replayed in order, they fill a workspace with
 * data in every domain. Enumerated from the contract, so a new operation is
 * covered by every security test without anyone listing it.
 */
export interface Operation {
  name: string;
  path: string;
  auth: AuthMode;
  body: z.ZodTypeAny;
  example: OperationExample;
  kind: 'read' | 'write' | 'delete';
  /** A raw-body operation's example path parameters, query and headers (Inbound Workflow Trigger). */
  raw?: { params: Record<string, string>; query: Record<string, string>; headers: Record<string, string> };
}

export const OPERATIONS: Operation[] = Object.values(contract).flatMap((group) =>
  Object.entries(group as Record<string, { path: string; metadata: OperationMeta; body: z.ZodTypeAny }>).map(([name, route]) => ({
    name,
    path: route.path,
    auth: route.metadata.auth,
    body: route.body,
    example: route.metadata.example,
    kind: /^get/.test(name) ? ('read' as const) : /^(delete|remove)/.test(name) ? ('delete' as const) : ('write' as const),
    ...(route.metadata.rawBody ? { raw: route.metadata.example as unknown as NonNullable<Operation['raw']> } : {}),
  })),
);

/** IDs the service assigns (`ann_…`, `ep_…`: a prefix and a ULID); the examples show placeholders of this form. */
export const SERVICE_ID = /^[a-z]{2,4}_[0-9A-HJKMNP-TV-Z]{26}$/;

export function headersOf(auth: AuthMode, c: WorkspaceCredentials): Record<string, string> {
  if (auth === 'workspace') return { 'x-service-workspace-id': c.workspaceId, 'x-service-workspace-auth-token': c.workspaceAuthToken };
  if (auth === 'application') return { 'x-service-api-key': c.apiKey, 'x-service-auth-token': c.authToken };
  if (auth === 'signedBody') return { 'x-service-api-key': c.apiKey };
  return {};
}

export const newSecret = (label: string) => `${label}-${randomBytes(24).toString('base64url')}`;

/** What a workspace's replay of the examples used that is its own: credentials and the secrets it stored. */
export interface Tenant {
  credentials: WorkspaceCredentials;
  /** Secrets the examples store, replaced by fresh ones per workspace (see `adjust`). */
  secrets: { permissionProviderToken: string; emailProviderKey: string; mcpHeader: string; aiProviderKey: string };
}

export async function newTenant(server: TestServer, email?: string): Promise<Tenant> {
  const credentials = await server.workspace(email);
  const secrets = {
    permissionProviderToken: newSecret('ppt'),
    emailProviderKey: `SG.${newSecret('email')}`,
    mcpHeader: `Bearer ${newSecret('mcp')}`,
    aiProviderKey: `sk-${newSecret('ai')}`,
  };
  // For the end-of-run scan of every test server's log (test/global-setup.ts).
  recordSecret('permission provider token', secrets.permissionProviderToken);
  recordSecret('email provider key', secrets.emailProviderKey);
  recordSecret('agent secret', secrets.mcpHeader.replace(/^Bearer /, ''));
  // Ask AI's provider key is set by the operator, never through the REST interface (the CLI helper records it).
  await server.cli('ai-key', 'set', '--api-key', credentials.apiKey, '--provider', 'openai', '--key', secrets.aiProviderKey);
  return { credentials, secrets };
}

/**
 * The third parties the examples name, as one local receiver: the AI
 * provider (OPENAI_BASE_URL), the email provider (EMAIL_PROVIDER_BASE_URL)
 * and webhook endpoints. Nothing leaves the machine.
 */
export async function startThirdParties() {
  const state = { refuse: false };
  const receiver = await startReceiver((req: Received, res: ServerResponse) => {
    if (state.refuse) {
      // What careless providers do: name the credential they refuse in the error they return.
      const credential = req.headers.authorization ?? req.headers['x-api-key'] ?? '';
      const message = `invalid credential ${credential}`;
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message, type: 'invalid_request_error', code: 'invalid_api_key' }, errors: [{ message }] }));
      return;
    }
    if (req.path?.endsWith('/chat/completions')) {
      // Validate Agent Prompt asks for a list of problems; everything else takes text.
      const answer = req.body.includes('{"problems"') || req.body.includes('{\\"problems\\"') ? '{"problems": []}' : 'Q3 plan is mostly done.';
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(openAiCompletion(answer)));
      return;
    }
    res.writeHead(202, { 'content-type': 'application/json' }).end('{}');
  }, '');
  const env = {
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    OPENAI_BASE_URL: `${receiver.url}/v1`,
    EMAIL_PROVIDER_BASE_URL: receiver.url,
  };
  return { receiver, env, state };
}

/**
 * The few examples that would reach a third party or hold a secret the
 * example spells out (replaced by the workspace's own, so the tests can look
 * for it): the one place these adjustments are made, for every workspace.
 */
export function adjust(op: Operation, data: any, tenant: Tenant, receiverUrl: string): any {
  const copy = structuredClone(data);
  switch (op.name) {
    case 'updatePermissionProviderConfig':
      // On, every access check of the workspace would go to permissions.example.com; stored but off, it is still A's secret.
      copy.usePermissionProvider = false;
      copy.permissionProviderConfig.permissionProviderUrl = `${receiverUrl}/permissions`;
      copy.permissionProviderConfig.authToken = tenant.secrets.permissionProviderToken;
      break;
    case 'updateEmailConfig':
      copy.emailServiceConfig.apiKey = tenant.secrets.emailProviderKey;
      break;
    case 'createWebhookEndpoint':
      copy.url = `${receiverUrl}/hook`;
      break;
    case 'createAgent':
      copy.execution.mcpServers[0].headers.Authorization = tenant.secrets.mcpHeader;
      break;
  }
  return copy;
}

/** Replaces every string equal to a key of `ids` (an example's placeholder ID) with the real ID. */
export function substitute(value: unknown, ids: Map<string, string>): any {
  if (typeof value === 'string') return ids.get(value) ?? value;
  if (Array.isArray(value)) return value.map((v) => substitute(v, ids));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, ids)]));
  return value;
}

/**
 * Learns the IDs the service assigned by walking an example result and the
 * real result side by side: where the example shows a placeholder ID, the
 * real result holds the ID later examples' placeholders stand for.
 */
export function learnIds(example: unknown, actual: unknown, ids: Map<string, string>): void {
  if (typeof example === 'string') {
    if (SERVICE_ID.test(example) && typeof actual === 'string' && SERVICE_ID.test(actual) && actual !== example && !ids.has(example)) ids.set(example, actual);
    return;
  }
  if (Array.isArray(example) && Array.isArray(actual)) {
    example.forEach((e, i) => learnIds(e, actual[i], ids));
    return;
  }
  if (example !== null && typeof example === 'object' && actual !== null && typeof actual === 'object' && !Array.isArray(actual)) {
    for (const [key, e] of Object.entries(example)) learnIds(e, (actual as Record<string, unknown>)[key], ids);
  }
}

/** A key naming something by ID: the examples' cross-references, never marked (B sends them back). */
const ID_KEY = /^(id|uid|icon|model|type|from|to)$|Ids?$/;
/** A key naming a secret: the tests look for its value, so it keeps the workspace's own. */
export const SECRET_KEY = /token|secret|password|authorization|api-?key|credential/i;

/**
 * The request with every free-text string replaced by `marker` (or an email
 * or URL carrying it) wherever the operation's schema accepts that, so a
 * workspace's stored names, texts and settings carry the marker; IDs stay.
 */
export function mark(op: Operation, data: unknown, marker: string): any {
  let current = structuredClone(data);
  const visit = (path: (string | number)[], value: unknown, key: string | number | undefined) => {
    if (typeof value === 'string') {
      if (typeof key === 'string' && (ID_KEY.test(key) || SECRET_KEY.test(key))) return;
      // Emails and URLs keep their form (an address that resolves, a host the service may call).
      const candidates = /^https?:\/\//.test(value)
        ? [`${value.replace(/\/+$/, '')}/${marker}`]
        : value.includes('@')
          ? [`${marker}@${value.split('@').pop()}`]
          : [marker, `${value} ${marker}`];
      for (const candidate of candidates) {
        const next = setAt(current, path, candidate);
        if (op.body.safeParse({ data: next }).success) {
          current = next;
          return;
        }
      }
      return;
    }
    if (Array.isArray(value)) value.forEach((v, i) => visit([...path, i], v, typeof key === 'string' && ID_KEY.test(key) ? key : i));
    else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) visit([...path, k], v, k);
  };
  visit([], data, undefined);
  return current;
}

function setAt(root: unknown, path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const copy: any = Array.isArray(root) ? [...root] : { ...(root as object) };
  const [head, ...rest] = path;
  copy[head!] = setAt(copy[head!], rest, value);
  return copy;
}

/**
 * The request without every top-level field the schema lets it leave out:
 * the widest read (an example's filters may match nothing the workspace
 * holds). Undefined when nothing can be left out.
 */
export function widest(op: Operation, data: Record<string, unknown>): Record<string, unknown> | undefined {
  let current = { ...data };
  for (const key of Object.keys(data)) {
    const { [key]: _dropped, ...rest } = current;
    if (op.body.safeParse({ data: rest }).success) current = rest;
  }
  return Object.keys(current).length === Object.keys(data).length ? undefined : current;
}
