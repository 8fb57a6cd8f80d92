import type { createAgent, deleteAgent, getAgents, updateAgent } from '../../../../contract/agents/agents.js';
import { CUSTOM_MANAGED_BY, type TAgentSummary, type TBuiltinAgent, type TCustomAgent } from '../../../../contract/agents/schemas.js';
import type { getAgentVersion, getAgentVersions, restoreAgentVersion, updateAgentVersion } from '../../../../contract/agents/versions.js';
import type { DataOf } from '../../../../contract/common/envelope.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import { AppError, failedPrecondition, invalidArgument, notFound } from '../../../lib/app-error.js';
import type { Clock } from '../../../lib/clock.js';
import type { Ids } from '../../../lib/ids.js';
import { pageScope } from '../../../lib/page-scope.js';
import type { PageTokens } from '../../../lib/page-token.js';
import { BUILTIN_AGENTS, builtinAgent, toBuiltinAgent } from '../builtins.js';
import { assertValidConfig, mergeVersion, normalizeConfig, toCustomAgent } from '../config.js';
import { agentLimitsOf, type AgentLimits } from '../limits.js';
import type { AgentRow, AgentsRepo } from '../repos/agents.js';
import { keepRedactedSecrets, type AgentSecrets, type Config } from '../secrets.js';
import type { Caller } from '../../../platform/caller.js';

/** How often Update Agent Version starts over when another version of the same agent was written first. */
const VERSION_ATTEMPTS = 20;

const summaryOfCustom = (row: AgentRow): TAgentSummary => ({
  id: row.id,
  name: row.name,
  description: row.description,
  enabled: row.enabled,
  managedBy: CUSTOM_MANAGED_BY,
  version: row.latestVersion,
  executionCount: row.executionCount,
  lastExecutedAt: row.lastExecutedAt === null ? null : Number(row.lastExecutedAt),
});

// A built-in agent has no row of its own: its counters come from its runs.
const summaryOfBuiltin = (agent: TBuiltinAgent, stats: { count: number; last: bigint | null } | undefined): TAgentSummary => ({
  id: agent.id,
  name: agent.name,
  description: agent.description,
  enabled: agent.enabled,
  managedBy: agent.managedBy,
  system: true,
  executionCount: stats?.count ?? 0,
  lastExecutedAt: stats?.last == null ? null : Number(stats.last),
});

/** Custom and built-in agents and the versions of custom agents, per application. */
export function createAgentsService(deps: {
  repo: AgentsRepo;
  uow: UnitOfWork;
  secrets: AgentSecrets;
  pageTokens: PageTokens;
  ids: Ids;
  clock: Clock;
  limits?: AgentLimits | undefined;
  /** Runs and the last start of each built-in agent (the runs domain counts them). */
  builtinStats(apiKeyId: string): Promise<Map<string, { count: number; last: bigint | null }>>;
}) {
  const { repo, uow, secrets } = deps;
  const { customAgents: maxAgents } = agentLimitsOf(deps.limits);

  async function builtinStates(apiKeyId: string): Promise<Map<string, boolean>> {
    return new Map((await repo.builtinStates(apiKeyId)).map((row) => [row.agentId, row.enabled]));
  }

  /** Every built-in agent with its enabled state in this application (enabled unless changed). */
  async function builtins(apiKeyId: string): Promise<TBuiltinAgent[]> {
    const states = await builtinStates(apiKeyId);
    return BUILTIN_AGENTS.map((definition) => toBuiltinAgent(definition, states.get(definition.id) ?? true));
  }

  async function findCustom(apiKeyId: string, agentId: string): Promise<AgentRow> {
    // Another application's agent reads exactly like an unknown one.
    const row = await repo.findAgent(apiKeyId, agentId);
    if (row === null) throw notFound(`no agent ${agentId}`);
    return row;
  }

  /** The custom agent; FAILED_PRECONDITION for a built-in one, which `what` does not apply to. */
  function customOnly(apiKeyId: string, agentId: string, what: string): Promise<AgentRow> {
    if (builtinAgent(agentId) !== undefined) throw failedPrecondition(`${agentId} is a built-in agent: ${what}`);
    return findCustom(apiKeyId, agentId);
  }

  async function storedConfig(apiKeyId: string, agentId: string, version: number): Promise<{ config: Config; createdAt: bigint }> {
    const row = await repo.findVersion(apiKeyId, agentId, version);
    if (row === null) throw notFound(`agent ${agentId} has no version ${version}`);
    return { config: row.config, createdAt: row.createdAt };
  }

  /**
   * Writes the next version of a custom agent with the configuration `make`
   * gives from the row read: a compare-and-set on the latest version, so of
   * two writes at once the second starts over from the first's version.
   */
  async function writeVersion(app: Caller, agentId: string, builtinReason: string, make: (row: AgentRow) => Promise<Config>) {
    for (let attempt = 0; attempt < VERSION_ATTEMPTS; attempt++) {
      const row = await customOnly(app.apiKeyId, agentId, builtinReason);
      const config = await make(row);
      const version = row.latestVersion + 1;
      const now = BigInt(deps.clock.nowMs());
      const written = await uow.run(async () => {
        const { count } = await repo.advanceVersion(app.apiKeyId, row.id, row.latestVersion, now);
        if (count === 0) return false;
        await repo.insertVersion({ apiKeyId: app.apiKeyId, agentId: row.id, version, config, createdAt: now });
        return true;
      });
      if (written) return { agentId: row.id, version, agent: toCustomAgent(row, version, config) };
    }
    throw new AppError('UNAVAILABLE', `agent ${agentId} kept changing while this version was made: retry`);
  }

  return {
    async getAgents(app: Caller, input: DataOf<typeof getAgents>) {
      if (input.agentId !== undefined) {
        const definition = builtinAgent(input.agentId);
        if (definition !== undefined) {
          const enabled = (await builtinStates(app.apiKeyId)).get(definition.id) ?? true;
          return { agent: toBuiltinAgent(definition, enabled) };
        }
        const row = await findCustom(app.apiKeyId, input.agentId);
        const { config } = await storedConfig(app.apiKeyId, row.id, row.latestVersion);
        return { agent: toCustomAgent(row, row.latestVersion, config) };
      }
      let order: string[] | undefined;
      if (input.groupId !== undefined) {
        const group = await repo.findGroup(app.apiKeyId, input.groupId);
        if (group === null) throw notFound(`no agent group ${input.groupId}`);
        order = group.agentIds;
      }
      let builtinRows: TAgentSummary[] = [];
      if (input.filter !== 'customOnly') {
        const [agents, stats] = await Promise.all([builtins(app.apiKeyId), deps.builtinStats(app.apiKeyId)]);
        builtinRows = agents.map((agent) => summaryOfBuiltin(agent, stats.get(agent.id)));
      }
      const customRows = input.filter === 'defaultOnly' ? [] : (await repo.listAgents(app.apiKeyId)).map(summaryOfCustom);
      let agents = [...builtinRows, ...customRows];
      if (order !== undefined) {
        const byId = new Map(agents.map((agent) => [agent.id, agent]));
        agents = order.flatMap((id) => byId.get(id) ?? []);
      }
      return { agents };
    },

    async createAgent(app: Caller, input: DataOf<typeof createAgent>): Promise<{ agentId: string; agent: TCustomAgent }> {
      const { name, description, enabled, ...given } = input;
      // Nothing is stored yet, so a `__redacted__` secret has nothing to keep: INVALID_ARGUMENT.
      const config = secrets.seal(normalizeConfig(keepRedactedSecrets(given, {})));
      const now = BigInt(deps.clock.nowMs());
      const row: AgentRow = {
        apiKeyId: app.apiKeyId,
        id: deps.ids.next('agt'),
        name,
        description,
        enabled,
        latestVersion: 1,
        executionCount: 0,
        lastExecutedAt: null,
        createdAt: now,
        updatedAt: now,
      };
      await uow.run(async () => {
        await repo.lockQuota(app.apiKeyId);
        if ((await repo.countAgents(app.apiKeyId)) >= maxAgents) {
          throw failedPrecondition(`an application has at most ${maxAgents} custom agents: delete one first`);
        }
        await repo.insertAgent(row);
        await repo.insertVersion({ apiKeyId: app.apiKeyId, agentId: row.id, version: 1, config, createdAt: now });
      });
      return { agentId: row.id, agent: toCustomAgent(row, 1, config) };
    },

    async updateAgent(app: Caller, input: DataOf<typeof updateAgent>) {
      const now = BigInt(deps.clock.nowMs());
      if (builtinAgent(input.agentId) !== undefined) {
        if (input.enabled === undefined) {
          throw invalidArgument(`data.enabled is required: ${input.agentId} is a built-in agent, whose only changeable field is enabled`);
        }
        // name and description are the catalog's: ignored, as the specification says.
        const current = (await builtinStates(app.apiKeyId)).get(input.agentId) ?? true;
        if (current !== input.enabled) await repo.setBuiltinEnabled(app.apiKeyId, input.agentId, input.enabled, now);
        return { agentId: input.agentId };
      }
      const changes = {
        ...(input.name === undefined ? {} : { name: input.name }),
        ...(input.description === undefined ? {} : { description: input.description }),
        ...(input.enabled === undefined ? {} : { enabled: input.enabled }),
      };
      if (Object.keys(changes).length === 0) {
        await findCustom(app.apiKeyId, input.agentId);
        return { agentId: input.agentId };
      }
      const { count } = await repo.updateIdentity(app.apiKeyId, input.agentId, { ...changes, updatedAt: now });
      if (count === 0) throw notFound(`no agent ${input.agentId}`);
      return { agentId: input.agentId };
    },

    async updateAgentVersion(app: Caller, input: DataOf<typeof updateAgentVersion>): Promise<{ agentId: string; version: number; agent: TCustomAgent }> {
      const { agentId, ...given } = input;
      return writeVersion(app, agentId, 'built-in agents are not versioned (only `enabled` changes, with Update Agent)', async (row) => {
        const latest = await storedConfig(app.apiKeyId, row.id, row.latestVersion);
        const { plain, sealedOf } = secrets.open(latest.config);
        const merged = normalizeConfig(mergeVersion(plain, keepRedactedSecrets(given, plain)));
        assertValidConfig(merged);
        return secrets.seal(merged, sealedOf);
      });
    },

    async restoreAgentVersion(app: Caller, input: DataOf<typeof restoreAgentVersion>) {
      // The old version's configuration as stored: its secrets stay sealed, never opened here.
      const written = await writeVersion(app, input.agentId, 'built-in agents have no versions', async (row) => (await storedConfig(app.apiKeyId, row.id, input.version)).config);
      return { ...written, restoredFrom: input.version };
    },

    async deleteAgent(app: Caller, input: DataOf<typeof deleteAgent>) {
      if (builtinAgent(input.agentId) !== undefined) {
        throw failedPrecondition(`${input.agentId} is a built-in agent and cannot be deleted: disable it with Update Agent instead`);
      }
      await uow.run(async () => {
        const { count } = await repo.deleteAgent(app.apiKeyId, input.agentId);
        if (count === 0) throw notFound(`no agent ${input.agentId}`);
        await repo.deleteVersions(app.apiKeyId, input.agentId);
        const now = BigInt(deps.clock.nowMs());
        for (const group of await repo.listGroups(app.apiKeyId)) {
          const members = group.agentIds;
          if (!members.includes(input.agentId)) continue;
          await repo.updateGroup(app.apiKeyId, group.id, { agentIds: members.filter((id) => id !== input.agentId), updatedAt: now });
        }
      });
      return { agentId: input.agentId };
    },

    async getAgentVersions(app: Caller, input: DataOf<typeof getAgentVersions>) {
      const row = await customOnly(app.apiKeyId, input.agentId, 'built-in agents have no versions');
      const page = await deps.pageTokens.page(
        pageScope('agent-versions', app.apiKeyId, row.id),
        input,
        (after, take) => repo.listVersions(app.apiKeyId, row.id, after?.at, take),
        (version) => ({ at: version.version, id: '' }),
      );
      return { items: page.items.map((v) => ({ version: v.version, createdAt: Number(v.createdAt) })), pageToken: page.pageToken };
    },

    async getAgentVersion(app: Caller, input: DataOf<typeof getAgentVersion>) {
      const row = await customOnly(app.apiKeyId, input.agentId, 'built-in agents have no versions');
      const { config, createdAt } = await storedConfig(app.apiKeyId, row.id, input.version);
      return { agentId: row.id, version: input.version, createdAt: Number(createdAt), agent: toCustomAgent(row, input.version, config) };
    },
  };
}

export type AgentsService = ReturnType<typeof createAgentsService>;
