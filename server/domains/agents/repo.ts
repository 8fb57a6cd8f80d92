import { providerOfClient, type Db } from '../../db/client.js';
import { byCreation } from '../../db/keyset.js';

/** Rows of the agent tables (see prisma/models.prisma). */
export interface AgentRow {
  apiKeyId: string;
  id: string;
  name: string;
  description: string;
  enabled: boolean;
  latestVersion: number;
  executionCount: number;
  lastExecutedAt: bigint | null;
  createdAt: bigint;
  updatedAt: bigint;
}

export interface AgentGroupRow {
  apiKeyId: string;
  id: string;
  name: string;
  description: string;
  /** JSON string array. */
  agentIds: string;
  createdAt: bigint;
  updatedAt: bigint;
}

/** Agents, their versions, built-in states and groups; every query is scoped by the application (apiKeyId). */
export function createAgentsRepo(db: Db) {
  return {
    /**
     * Holds the application's quota row until the unit of work ends, so two
     * creates count one after the other and a cap cannot be passed by both
     * (READ COMMITTED would let each count before the other inserts). On
     * PostgreSQL a row lock, the row inserted first when missing (a
     * concurrent insert waits for this one and then finds it); on SQLite the
     * gate already runs transactions one at a time.
     */
    async lockQuota(apiKeyId: string): Promise<void> {
      if (providerOfClient(db) !== 'postgresql') return;
      await db.$executeRawUnsafe('INSERT INTO "AgentQuotaLock" ("apiKeyId") VALUES ($1) ON CONFLICT DO NOTHING', apiKeyId);
      await db.$queryRawUnsafe('SELECT 1 FROM "AgentQuotaLock" WHERE "apiKeyId" = $1 FOR UPDATE', apiKeyId);
    },

    // ── custom agents ──
    insertAgent: (row: AgentRow) => db.agent.create({ data: row }),
    findAgent: (apiKeyId: string, id: string) => db.agent.findUnique({ where: { apiKeyId_id: { apiKeyId, id } } }),
    listAgents: (apiKeyId: string) => db.agent.findMany({ where: { apiKeyId }, orderBy: byCreation() }),
    countAgents: (apiKeyId: string) => db.agent.count({ where: { apiKeyId } }),
    /** The IDs among `ids` that are custom agents of the application. */
    async existingAgentIds(apiKeyId: string, ids: readonly string[]): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      const rows = await db.agent.findMany({ where: { apiKeyId, id: { in: [...ids] } }, select: { id: true } });
      return new Set(rows.map((row) => row.id));
    },
    updateIdentity: (apiKeyId: string, id: string, data: { name?: string; description?: string; enabled?: boolean; updatedAt: bigint }) =>
      db.agent.updateMany({ where: { apiKeyId, id }, data }),
    /** Moves the latest version from `from` to `from + 1`; 0 rows when another version or a delete came first. */
    advanceVersion: (apiKeyId: string, id: string, from: number, updatedAt: bigint) =>
      db.agent.updateMany({ where: { apiKeyId, id, latestVersion: from }, data: { latestVersion: from + 1, updatedAt } }),
    deleteAgent: (apiKeyId: string, id: string) => db.agent.deleteMany({ where: { apiKeyId, id } }),

    // ── versions ──
    insertVersion: (row: { apiKeyId: string; agentId: string; version: number; config: string; createdAt: bigint }) => db.agentVersion.create({ data: row }),
    findVersion: (apiKeyId: string, agentId: string, version: number) =>
      db.agentVersion.findUnique({ where: { apiKeyId_agentId_version: { apiKeyId, agentId, version } } }),
    /** Versions newest first, below `before` when given. */
    listVersions: (apiKeyId: string, agentId: string, before: number | undefined, take: number) =>
      db.agentVersion.findMany({
        where: { apiKeyId, agentId, ...(before === undefined ? {} : { version: { lt: before } }) },
        orderBy: { version: 'desc' },
        select: { version: true, createdAt: true },
        take,
      }),
    deleteVersions: (apiKeyId: string, agentId: string) => db.agentVersion.deleteMany({ where: { apiKeyId, agentId } }),

    // ── built-in agents ──
    builtinStates: (apiKeyId: string) => db.builtinAgentState.findMany({ where: { apiKeyId } }),
    setBuiltinEnabled: (apiKeyId: string, agentId: string, enabled: boolean, updatedAt: bigint) =>
      db.builtinAgentState.upsert({
        where: { apiKeyId_agentId: { apiKeyId, agentId } },
        create: { apiKeyId, agentId, enabled, updatedAt },
        update: { enabled, updatedAt },
      }),

    // ── groups ──
    insertGroup: (row: AgentGroupRow) => db.agentGroup.create({ data: row }),
    findGroup: (apiKeyId: string, id: string) => db.agentGroup.findUnique({ where: { apiKeyId_id: { apiKeyId, id } } }),
    listGroups: (apiKeyId: string) => db.agentGroup.findMany({ where: { apiKeyId }, orderBy: byCreation() }),
    countGroups: (apiKeyId: string) => db.agentGroup.count({ where: { apiKeyId } }),
    updateGroup: (apiKeyId: string, id: string, data: { name?: string; description?: string; agentIds?: string; updatedAt: bigint }) =>
      db.agentGroup.updateMany({ where: { apiKeyId, id }, data }),
    deleteGroup: (apiKeyId: string, id: string) => db.agentGroup.deleteMany({ where: { apiKeyId, id } }),
  };
}

export type AgentsRepo = ReturnType<typeof createAgentsRepo>;
