import type { DataOf } from '../../../../contract/common/envelope.js';
import type { createWorkflowDefinition, deleteWorkflowDefinition, getWorkflowDefinition, listWorkflowDefinitions, updateWorkflowDefinition } from '../../../../contract/workflows/definitions.js';
import { DEFAULT_DEFINITIONS_PAGE } from '../../../../contract/workflows/definitions.js';
import { MAX_JSON_BYTES, REDACTED, type TWorkflowDefinition } from '../../../../contract/workflows/schemas.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import { alreadyExists, failedPrecondition, invalidArgument, notFound } from '../../../lib/app-error.js';
import type { Clock } from '../../../lib/clock.js';
import { isUniqueViolation } from '../../../db/errors.js';
import { pageScope } from '../../../lib/page-scope.js';
import type { PageTokens } from '../../../lib/page-token.js';
import type { Caller } from '../../../platform/caller.js';
import { agentIdsOf, compileDefinition, GraphError } from '../graph/compile.js';
import type { StoredBody } from '../engine/runtimes.js';
import type { Runtimes } from '../engine/runtimes.js';
import type { DefinitionRow, DefinitionsRepo } from '../repos/definitions.js';

type DefinitionInput = DataOf<typeof createWorkflowDefinition>;

export interface DefinitionsDeps {
  repo: DefinitionsRepo;
  runtimes: Runtimes;
  uow: UnitOfWork;
  clock: Clock;
  pageTokens: PageTokens;
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

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

/** Create, update, read, list and delete definitions; every version is kept while an execution may pin it. */
export function createDefinitionsService(deps: DefinitionsDeps) {
  const { repo, uow, clock } = deps;

  /** Checks what the schema cannot (scope, agents, what this server does not run yet) and builds the stored body with secrets sealed. */
  async function bodyOf(app: Caller, input: DefinitionInput): Promise<StoredBody> {
    const scope = input.scope ?? { level: 'apiKey' as const };
    if (scope.level !== 'apiKey' && (scope.organizationId ?? null) === null) throw invalidArgument(`data.scope.organizationId is required with level "${scope.level}"`);
    if (scope.level === 'document' && (scope.documentId ?? null) === null) throw invalidArgument('data.scope.documentId is required with level "document"');
    if (input.custom !== undefined && jsonBytes(input.custom) > MAX_JSON_BYTES) throw invalidArgument(`data.custom is over ${MAX_JSON_BYTES} bytes as JSON`);
    const unsupported = input.nodes.findIndex((node) => node.type === 'webhook');
    if (unsupported >= 0) throw invalidArgument(`data.nodes[${unsupported}] (${input.nodes[unsupported]!.nodeId}): webhook nodes are not run by this server yet (docs/workflows.md)`);
    if (input.triggers !== undefined && input.triggers.length > 0) throw invalidArgument('data.triggers: inbound triggers are not served by this server yet (docs/workflows.md)');
    if (input.webhookConfig !== undefined) throw invalidArgument('data.webhookConfig: per-definition webhook deliveries are not sent by this server yet; the advanced webhooks carry every workflow event (docs/workflows.md)');
    const compiled = compiledOf(input);
    const wanted = agentIdsOf(input.nodes);
    const known = await deps.knownAgents(app, wanted);
    const missing = input.nodes.findIndex((node) => node.type === 'agent' && !known.has(node.config.agentId));
    if (missing >= 0) {
      const node = input.nodes[missing] as Extract<DefinitionInput['nodes'][number], { type: 'agent' }>;
      // The agent ID is not repeated: a refusal never echoes the value it refuses.
      throw invalidArgument(`unknown-agent: data.nodes[${missing}].config.agentId (node ${node.nodeId}) names an agent the application does not have`);
    }
    const body: StoredBody = {
      name: input.name,
      description: input.description ?? null,
      scope: { level: scope.level, organizationId: scope.level === 'apiKey' ? null : (scope.organizationId ?? null), documentId: scope.level === 'document' ? (scope.documentId ?? null) : null },
      nodes: input.nodes,
      edges: input.edges ?? [],
      groups: input.groups ?? null,
      triggers: null,
      webhookConfig: null,
      tags: input.tags ?? null,
      custom: input.custom ?? null,
      compiled: compiled.view,
    };
    return body;
  }

  function viewOf(head: DefinitionRow, body: StoredBody): TWorkflowDefinition {
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
      triggers: body.triggers?.map((trigger) => ({ ...trigger, inboundWebhook: { ...trigger.inboundWebhook, secret: REDACTED } })) ?? null,
      webhookConfig: body.webhookConfig === null ? null : { ...body.webhookConfig, secret: REDACTED } as TWorkflowDefinition['webhookConfig'],
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
      const body = await bodyOf(app, input);
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
      return viewOf(head, body);
    },

    async updateWorkflowDefinition(app: Caller, input: DataOf<typeof updateWorkflowDefinition>): Promise<TWorkflowDefinition> {
      const { ifVersion, ...fields } = input;
      const current = await load(app.apiKeyId, input.definitionId);
      if (current.head.status === 'tombstoned') throw notFound(`workflow definition ${input.definitionId} is deleted`);
      const body = await bodyOf(app, fields);
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
      return viewOf(head, body);
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

