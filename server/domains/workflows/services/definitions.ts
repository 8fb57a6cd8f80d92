import type { DataOf } from '../../../../contract/common/envelope.js';
import type { createWorkflowDefinition, deleteWorkflowDefinition, getWorkflowDefinition, listWorkflowDefinitions, updateWorkflowDefinition } from '../../../../contract/workflows/definitions.js';
import { DEFAULT_DEFINITIONS_PAGE } from '../../../../contract/workflows/definitions.js';
import { MAX_JSON_BYTES, REDACTED, type TWorkflowDefinition } from '../../../../contract/workflows/schemas.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import { AppError, alreadyExists, failedPrecondition, invalidArgument, notFound } from '../../../lib/app-error.js';
import type { Sealer } from '../../../lib/crypto.js';
import { assertAllowedUrl, type OutboundLog } from '../../../lib/outbound-http.js';
import { newSigningSecret } from '../../webhooks/secrets.js';
import { requestHeadersProblem } from '../engine/webhook-node.js';
import type { Clock } from '../../../lib/clock.js';
import { isUniqueViolation } from '../../../db/errors.js';
import { pageScope } from '../../../lib/page-scope.js';
import type { PageTokens } from '../../../lib/page-token.js';
import type { Caller } from '../../../platform/caller.js';
import { agentIdsOf, compileDefinition, GraphError } from '../graph/compile.js';
import type { Runtimes, StoredBody } from '../engine/runtimes.js';
import { overJsonLimit } from '../engine/state.js';
import type { DefinitionRow, DefinitionsRepo } from '../repos/definitions.js';

type DefinitionInput = DataOf<typeof createWorkflowDefinition>;

export interface DefinitionsDeps {
  repo: DefinitionsRepo;
  runtimes: Runtimes;
  uow: UnitOfWork;
  clock: Clock;
  pageTokens: PageTokens;
  /** Seals the secrets of a stored version (its webhookConfig's and its inbound triggers'). */
  sealer: Pick<Sealer, 'seal' | 'current'>;
  /** Webhook URLs are checked as the advanced webhooks' are: private addresses only when the server allows them. */
  allowPrivateUrls: boolean;
  log: OutboundLog;
  /** The agent IDs among `agentIds` the application has (built-in or custom). */
  knownAgents(app: Caller, agentIds: readonly string[]): Promise<Set<string>>;
}

/** The definition's compiled view, or INVALID_ARGUMENT naming the rule and the culprit. */
function compiledOf(input: DefinitionInput) {
  try {
    return compileDefinition({ nodes: input.nodes, edges: input.edges ?? [], groups: input.groups ?? [] });
  } catch (error) {
    if (error instanceof GraphError) throw invalidArgument(error.message);
    throw error;
  }
}

/** Secrets a create or update generated: shown in its response only. */
interface Generated {
  webhookSecret?: string;
  triggerSecrets: Map<string, string>;
}

/** Standard Webhooks verifiers take `whsec_` and the base64 of a 24–64 byte key. */
function isSigningSecret(secret: string): boolean {
  const match = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(secret);
  if (match === null) return false;
  const bytes = Buffer.from(match[1]!, 'base64').length;
  return bytes >= 24 && bytes <= 64;
}


/** Create, update, read, list and delete definitions; every version is kept while an execution may pin it. */
export function createDefinitionsService(deps: DefinitionsDeps) {
  const { repo, uow, clock } = deps;

  /**
   * A secret to store, sealed: the one given, the stored one kept when
   * `__redacted__` comes back (sealed again under the current key), or a new
   * one, which the response then shows once.
   */
  function secretOf(given: string | undefined, stored: string | undefined, field: string): { sealed: string; generated?: string } {
    if (given === REDACTED) {
      if (stored === undefined) throw invalidArgument(`${field} is "${REDACTED}", but there is no stored secret to keep: send the secret, or leave it out to have one generated`);
      return { sealed: deps.sealer.current(stored) };
    }
    if (given !== undefined) return { sealed: deps.sealer.seal(given) };
    const generated = newSigningSecret();
    return { sealed: deps.sealer.seal(generated), generated };
  }

  /** URLs we send to: http(s) without credentials, and not a private address unless the server allows it. */
  async function checkUrl(url: string, field: string): Promise<void> {
    try {
      await assertAllowedUrl(url, { allowPrivate: deps.allowPrivateUrls, log: deps.log });
    } catch (error) {
      if (error instanceof AppError) throw invalidArgument(`${field}: ${error.message}`);
      throw error;
    }
  }

  /** The secrets and URLs of webhooks and triggers: checked, sealed, kept or generated. */
  async function secretsOf(input: DefinitionInput, previous: StoredBody | null, generated: Generated): Promise<Pick<StoredBody, 'triggers' | 'webhookConfig'>> {
    for (const [index, node] of input.nodes.entries()) {
      if (node.type !== 'webhook') continue;
      const problem = requestHeadersProblem(node.config.requestHeaders);
      if (problem !== null) throw invalidArgument(`data.nodes[${index}] (${node.nodeId}).config.requestHeaders: ${problem}`);
      await checkUrl(node.config.url, `data.nodes[${index}] (${node.nodeId}).config.url`);
    }
    let webhookConfig: StoredBody['webhookConfig'] = null;
    if (input.webhookConfig !== undefined) {
      const { url, secret, eventTypes } = input.webhookConfig;
      await checkUrl(url, 'data.webhookConfig.url');
      if (secret !== undefined && secret !== REDACTED && !isSigningSecret(secret)) throw invalidArgument('data.webhookConfig.secret must be whsec_ followed by the base64 of a 24 to 64 byte key (what Standard Webhooks verifiers take); leave it out to have one generated');
      const kept = secretOf(secret, previous?.webhookConfig?.secret, 'data.webhookConfig.secret');
      if (kept.generated !== undefined) generated.webhookSecret = kept.generated;
      webhookConfig = { url, secret: kept.sealed, ...(eventTypes === undefined ? {} : { eventTypes: [...new Set(eventTypes)] }) };
    }
    let triggers: StoredBody['triggers'] = null;
    if (input.triggers !== undefined && input.triggers.length > 0) {
      const seen = new Set<string>();
      triggers = input.triggers.map((trigger, index) => {
        if (seen.has(trigger.triggerId)) throw invalidArgument(`data.triggers[${index}]: triggerId "${trigger.triggerId}" is used twice`);
        seen.add(trigger.triggerId);
        const stored = previous?.triggers?.find((candidate) => candidate.triggerId === trigger.triggerId)?.inboundWebhook.secret;
        const kept = secretOf(trigger.inboundWebhook.secret, stored, `data.triggers[${index}].inboundWebhook.secret`);
        if (kept.generated !== undefined) generated.triggerSecrets.set(trigger.triggerId, kept.generated);
        return { ...trigger, inboundWebhook: { ...trigger.inboundWebhook, secret: kept.sealed } };
      });
    }
    return { triggers, webhookConfig };
  }

  /** Checks what the schema cannot (scope, agents, URLs, headers) and builds the stored body with secrets sealed. */
  async function bodyOf(app: Caller, input: DefinitionInput, previous: StoredBody | null, generated: Generated): Promise<StoredBody> {
    const scope = input.scope ?? { level: 'apiKey' as const };
    if (scope.level !== 'apiKey' && (scope.organizationId ?? null) === null) throw invalidArgument(`data.scope.organizationId is required with level "${scope.level}"`);
    if (scope.level === 'document' && (scope.documentId ?? null) === null) throw invalidArgument('data.scope.documentId is required with level "document"');
    if (input.custom !== undefined && overJsonLimit(input.custom)) throw invalidArgument(`data.custom is over ${MAX_JSON_BYTES} bytes as JSON`);
    const compiled = compiledOf(input);
    const wanted = agentIdsOf(input.nodes);
    const known = await deps.knownAgents(app, wanted);
    const missing = input.nodes.findIndex((node) => node.type === 'agent' && !known.has(node.config.agentId));
    if (missing >= 0) {
      const node = input.nodes[missing] as Extract<DefinitionInput['nodes'][number], { type: 'agent' }>;
      // The agent ID is not repeated: a refusal never echoes the value it refuses.
      throw invalidArgument(`unknown-agent: data.nodes[${missing}].config.agentId (node ${node.nodeId}) names an agent the application does not have`);
    }
    const { triggers, webhookConfig } = await secretsOf(input, previous, generated);
    const body: StoredBody = {
      name: input.name,
      description: input.description ?? null,
      scope: { level: scope.level, organizationId: scope.level === 'apiKey' ? null : (scope.organizationId ?? null), documentId: scope.level === 'document' ? (scope.documentId ?? null) : null },
      nodes: input.nodes,
      edges: input.edges ?? [],
      groups: input.groups ?? null,
      triggers,
      webhookConfig,
      tags: input.tags ?? null,
      custom: input.custom ?? null,
      compiled: compiled.view,
    };
    return body;
  }

  /** A secret is shown only in the response of the create or update that generated it. */
  function viewOf(head: DefinitionRow, body: StoredBody, generated?: Generated): TWorkflowDefinition {
    return {
      definitionId: head.definitionId,
      name: body.name,
      description: body.description,
      version: head.version,
      status: head.status === 'tombstoned' ? 'tombstoned' : 'active',
      // The head's, not the version's: it follows a migrated document (owned-data.ts) and versions are cached as written.
      scope: { level: head.scopeLevel as TWorkflowDefinition['scope']['level'], organizationId: head.organizationId, documentId: head.documentId },
      nodes: body.nodes,
      edges: body.edges,
      groups: body.groups,
      compiled: body.compiled,
      triggers: body.triggers?.map((trigger) => ({ ...trigger, inboundWebhook: { ...trigger.inboundWebhook, secret: generated?.triggerSecrets.get(trigger.triggerId) ?? REDACTED } })) ?? null,
      webhookConfig: body.webhookConfig === null ? null : ({ ...body.webhookConfig, secret: generated?.webhookSecret ?? REDACTED } as TWorkflowDefinition['webhookConfig']),
      tags: body.tags,
      custom: body.custom,
      createdAt: Number(head.createdAt),
      updatedAt: Number(head.updatedAt),
    };
  }

  async function load(apiKeyId: string, definitionId: string): Promise<{ head: DefinitionRow; body: StoredBody }> {
    const head = await repo.find(apiKeyId, definitionId);
    if (head === null) throw notFound(`no workflow definition ${definitionId}`);
    const runtime = await deps.runtimes.of(apiKeyId, definitionId, head.version);
    return { head, body: runtime.body };
  }

  return {
    async createWorkflowDefinition(app: Caller, input: DataOf<typeof createWorkflowDefinition>): Promise<TWorkflowDefinition> {
      const generated: Generated = { triggerSecrets: new Map() };
      const body = await bodyOf(app, input, null, generated);
      const now = BigInt(clock.nowMs());
      const head: DefinitionRow = {
        apiKeyId: app.apiKeyId,
        definitionId: input.definitionId,
        version: 1,
        status: 'active',
        name: body.name,
        scopeLevel: body.scope.level,
        organizationId: body.scope.organizationId,
        documentId: body.scope.documentId,
        createdAt: now,
        updatedAt: now,
      };
      await uow.run(async () => {
        if ((await repo.find(app.apiKeyId, input.definitionId)) !== null) throw alreadyExists(`workflow definition ${input.definitionId} already exists`);
        try {
          await repo.insert(head, JSON.stringify(body));
        } catch (error) {
          if (isUniqueViolation(error)) throw alreadyExists(`workflow definition ${input.definitionId} already exists`);
          throw error;
        }
      });
      return viewOf(head, body, generated);
    },

    async updateWorkflowDefinition(app: Caller, input: DataOf<typeof updateWorkflowDefinition>): Promise<TWorkflowDefinition> {
      const { ifVersion, ...fields } = input;
      const current = await load(app.apiKeyId, input.definitionId);
      if (current.head.status === 'tombstoned') throw notFound(`workflow definition ${input.definitionId} is deleted`);
      const generated: Generated = { triggerSecrets: new Map() };
      const body = await bodyOf(app, fields, current.body, generated);
      const head: DefinitionRow = {
        ...current.head,
        version: ifVersion + 1,
        name: body.name,
        scopeLevel: body.scope.level,
        organizationId: body.scope.organizationId,
        documentId: body.scope.documentId,
        updatedAt: BigInt(Math.max(clock.nowMs(), Number(current.head.updatedAt))),
      };
      const written = await uow.run(async () => {
        const now = await repo.find(app.apiKeyId, input.definitionId);
        if (now === null || now.status === 'tombstoned') throw notFound(`no workflow definition ${input.definitionId}`);
        if (now.version !== ifVersion) throw failedPrecondition(`version conflict: expected ${ifVersion}, current ${now.version}`);
        return repo.update(head, ifVersion, JSON.stringify(body));
      });
      if (!written) throw failedPrecondition(`version conflict: expected ${ifVersion}, the definition changed meanwhile`);
      return viewOf(head, body, generated);
    },

    async getWorkflowDefinition(app: Caller, input: DataOf<typeof getWorkflowDefinition>): Promise<TWorkflowDefinition> {
      const { head, body } = await load(app.apiKeyId, input.definitionId);
      return viewOf(head, body);
    },

    async listWorkflowDefinitions(app: Caller, input: DataOf<typeof listWorkflowDefinitions>): Promise<{ items: TWorkflowDefinition[]; pageToken: string | null }> {
      const includeTombstoned = input.includeTombstoned ?? false;
      const page = await deps.pageTokens.page(
        pageScope('workflow-definitions', app.apiKeyId, includeTombstoned ? 'all' : 'active'),
        { pageSize: input.pageSize ?? DEFAULT_DEFINITIONS_PAGE, ...(input.pageToken === undefined ? {} : { pageToken: input.pageToken }) },
        (after, take) => repo.list(app.apiKeyId, includeTombstoned, after, take),
        (row) => ({ at: Number(row.updatedAt), id: row.definitionId }),
      );
      const bodies = await repo.bodiesOf(page.items);
      return {
        items: page.items.map((head) => viewOf(head, JSON.parse(bodies.get(head.definitionId)!) as StoredBody)),
        pageToken: page.pageToken,
      };
    },

    async deleteWorkflowDefinition(app: Caller, input: DataOf<typeof deleteWorkflowDefinition>) {
      const purge = input.purge ?? false;
      await uow.run(async () => {
        const head = await repo.find(app.apiKeyId, input.definitionId);
        if (head === null) throw notFound(`no workflow definition ${input.definitionId}`);
        if (!purge) {
          if (head.status !== 'tombstoned') await repo.tombstone(app.apiKeyId, input.definitionId, BigInt(Math.max(clock.nowMs(), Number(head.updatedAt))));
          return;
        }
        const open = await repo.countUnfinished(app.apiKeyId, input.definitionId);
        if (open > 0) throw failedPrecondition(`workflow definition ${input.definitionId} has ${open} execution(s) still pending or running: cancel them first`);
        await repo.purge(app.apiKeyId, input.definitionId);
      });
      if (purge) deps.runtimes.forget(app.apiKeyId, input.definitionId);
      return { definitionId: input.definitionId, deleted: true as const, purged: purge };
    },
  };
}

export type DefinitionsService = ReturnType<typeof createDefinitionsService>;

