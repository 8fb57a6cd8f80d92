import type { Db } from '../../../db/client.js';
import { afterMs, type Cursor } from '../../../db/keyset.js';

/** A WorkflowDefinition row (prisma/models.prisma): the head of a definition. */
export interface DefinitionRow {
  apiKeyId: string;
  definitionId: string;
  version: number;
  status: string;
  name: string;
  scopeLevel: string;
  organizationId: string | null;
  documentId: string | null;
  createdAt: bigint;
  updatedAt: bigint;
}

export interface VersionRow {
  apiKeyId: string;
  definitionId: string;
  version: number;
  body: string;
  createdAt: bigint;
}

/** Definitions and their versions; every query is scoped by the application (apiKeyId). */
export function createDefinitionsRepo(db: Db) {
  return {
    find: (apiKeyId: string, definitionId: string): Promise<DefinitionRow | null> =>
      db.workflowDefinition.findUnique({ where: { apiKeyId_definitionId: { apiKeyId, definitionId } } }),
    findVersion: (apiKeyId: string, definitionId: string, version: number): Promise<VersionRow | null> =>
      db.workflowDefinitionVersion.findUnique({ where: { apiKeyId_definitionId_version: { apiKeyId, definitionId, version } } }),
    /** The current versions' bodies of a page of heads, in one query. */
    async bodiesOf(rows: readonly DefinitionRow[]): Promise<Map<string, string>> {
      if (rows.length === 0) return new Map();
      const versions = await db.workflowDefinitionVersion.findMany({
        where: { OR: rows.map((row) => ({ apiKeyId: row.apiKeyId, definitionId: row.definitionId, version: row.version })) },
        select: { definitionId: true, body: true },
      });
      return new Map(versions.map((row) => [row.definitionId, row.body]));
    },
    insert: async (head: DefinitionRow, body: string) => {
      await db.workflowDefinition.create({ data: head });
      await db.workflowDefinitionVersion.create({ data: { apiKeyId: head.apiKeyId, definitionId: head.definitionId, version: head.version, body, createdAt: head.updatedAt } });
    },
    /** The next version, written only if the head is still at `ifVersion` (a concurrent update wins once): false otherwise. */
    async update(head: DefinitionRow, ifVersion: number, body: string): Promise<boolean> {
      const { apiKeyId, definitionId } = head;
      const updated = await db.workflowDefinition.updateMany({
        where: { apiKeyId, definitionId, version: ifVersion, status: 'active' },
        data: { version: head.version, name: head.name, scopeLevel: head.scopeLevel, organizationId: head.organizationId, documentId: head.documentId, updatedAt: head.updatedAt },
      });
      if (updated.count === 0) return false;
      await db.workflowDefinitionVersion.create({ data: { apiKeyId, definitionId, version: head.version, body, createdAt: head.updatedAt } });
      return true;
    },
    tombstone: (apiKeyId: string, definitionId: string, at: bigint) =>
      db.workflowDefinition.updateMany({ where: { apiKeyId, definitionId }, data: { status: 'tombstoned', updatedAt: at } }),
    /** The definition, its versions, and its executions with their steps, decisions and events. */
    async purge(apiKeyId: string, definitionId: string): Promise<void> {
      const executions = await db.workflowExecution.findMany({ where: { apiKeyId, definitionId }, select: { id: true } });
      const executionIds = executions.map((row) => row.id);
      if (executionIds.length > 0) {
        const where = { apiKeyId, executionId: { in: executionIds } };
        await db.workflowEvent.deleteMany({ where });
        await db.workflowReviewerDecision.deleteMany({ where });
        await db.workflowStep.deleteMany({ where });
        await db.workflowExecution.deleteMany({ where: { apiKeyId, definitionId } });
      }
      await db.workflowDefinitionVersion.deleteMany({ where: { apiKeyId, definitionId } });
      await db.workflowDefinition.deleteMany({ where: { apiKeyId, definitionId } });
    },
    list: (apiKeyId: string, includeTombstoned: boolean, after: Cursor | undefined, take: number): Promise<DefinitionRow[]> =>
      db.workflowDefinition.findMany({
        where: { apiKeyId, ...(includeTombstoned ? {} : { status: 'active' }), ...afterMs(after, { order: 'desc', at: 'updatedAt', id: 'definitionId' }) },
        orderBy: [{ updatedAt: 'desc' }, { definitionId: 'desc' }],
        take,
      }),
    /** A document's new ID in the scope of the definitions bound to it: their head and their current version's body. */
    async moveDocumentScope(apiKeyId: string, organizationId: string, from: string, to: string): Promise<void> {
      const heads = await db.workflowDefinition.findMany({ where: { apiKeyId, organizationId, documentId: from } });
      for (const head of heads) {
        await db.workflowDefinition.updateMany({ where: { apiKeyId, definitionId: head.definitionId }, data: { documentId: to } });
        const version = await db.workflowDefinitionVersion.findUnique({ where: { apiKeyId_definitionId_version: { apiKeyId, definitionId: head.definitionId, version: head.version } } });
        if (version === null) continue;
        const body = JSON.parse(version.body) as { scope: { documentId: string | null } };
        body.scope.documentId = to;
        await db.workflowDefinitionVersion.update({ where: { apiKeyId_definitionId_version: { apiKeyId, definitionId: head.definitionId, version: head.version } }, data: { body: JSON.stringify(body) } });
      }
    },
    /** Definitions bound to deleted documents (or a deleted organization) start nothing more: tombstoned, still readable. */
    tombstoneScoped: (apiKeyId: string, organizationId: string, documentIds: readonly string[] | undefined, at: bigint) =>
      db.workflowDefinition.updateMany({
        where: { apiKeyId, organizationId, ...(documentIds === undefined ? {} : { documentId: { in: [...documentIds] } }), status: 'active' },
        data: { status: 'tombstoned', updatedAt: at },
      }),
    countUnfinished: (apiKeyId: string, definitionId: string) =>
      db.workflowExecution.count({ where: { apiKeyId, definitionId, status: { in: ['pending', 'running'] } } }),
  };
}

export type DefinitionsRepo = ReturnType<typeof createDefinitionsRepo>;
