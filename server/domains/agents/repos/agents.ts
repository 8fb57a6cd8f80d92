import { providerOfClient, type Db } from '../../../db/client.js';
import type { Config } from '../secrets.js';
import { byCreation } from '../../../db/keyset.js';

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

/** A group, its member list decoded. */
export interface AgentGroupRecord {
  apiKeyId: string;
  id: string;
  name: string;
  description: string;
  /** Its members in order (stored as a JSON string array). */
  agentIds: string[];
  createdAt: bigint;
  updatedAt: bigint;
}

type AgentGroupRow = Omit<AgentGroupRecord, 'agentIds'> & { agentIds: string };

const groupFrom = (row: AgentGroupRow): AgentGroupRecord => ({ ...row, agentIds: JSON.parse(row.agentIds) as string[] });

/** A version's configuration (secrets sealed), stored as JSON text. */
export interface AgentVersionRecord {
  apiKeyId: string;
  agentId: string;
  version: number;
  config: Config;
  createdAt: bigint;
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
    /** One more run of a custom agent, started at `at` (Unix ms). */
    countRun: (apiKeyId: string, id: string, at: bigint) =>
      db.agent.updateMany({ where: { apiKeyId, id }, data: { executionCount: { increment: 1 }, lastExecutedAt: at } }),

    // ── versions ──
    insertVersion: (record: AgentVersionRecord) => db.agentVersion.create({ data: { ...record, config: JSON.stringify(record.config) } }),
    findVersion: async (apiKeyId: string, agentId: string, version: number): Promise<AgentVersionRecord | null> => {
      const row = await db.agentVersion.findUnique({ where: { apiKeyId_agentId_version: { apiKeyId, agentId, version } } });
      return row === null ? null : { ...row, config: JSON.parse(row.config) as Config };
    },
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
    insertGroup: (record: AgentGroupRecord) => db.agentGroup.create({ data: { ...record, agentIds: JSON.stringify(record.agentIds) } }),
    findGroup: async (apiKeyId: string, id: string): Promise<AgentGroupRecord | null> => {
      const row = await db.agentGroup.findUnique({ where: { apiKeyId_id: { apiKeyId, id } } });
      return row === null ? null : groupFrom(row);
    },
    listGroups: async (apiKeyId: string): Promise<AgentGroupRecord[]> => (await db.agentGroup.findMany({ where: { apiKeyId }, orderBy: byCreation() })).map(groupFrom),
    countGroups: (apiKeyId: string) => db.agentGroup.count({ where: { apiKeyId } }),
    updateGroup: (apiKeyId: string, id: string, changes: { name?: string; description?: string; agentIds?: string[]; updatedAt: bigint }) => {
      const { agentIds, ...plain } = changes;
      return db.agentGroup.updateMany({ where: { apiKeyId, id }, data: { ...plain, ...(agentIds === undefined ? {} : { agentIds: JSON.stringify(agentIds) }) } });
    },
    deleteGroup: (apiKeyId: string, id: string) => db.agentGroup.deleteMany({ where: { apiKeyId, id } }),
  };
}

export type AgentsRepo = ReturnType<typeof createAgentsRepo>;
