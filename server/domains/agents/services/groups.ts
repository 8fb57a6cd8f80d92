import type { createAgentGroup, deleteAgentGroup, getAgentGroups, updateAgentGroup } from '../../../../contract/agents/groups.js';
import type { TAgentGroup } from '../../../../contract/agents/schemas.js';
import type { DataOf } from '../../../../contract/common/envelope.js';
import { isUniqueViolation } from '../../../db/errors.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import { alreadyExists, failedPrecondition, notFound } from '../../../lib/app-error.js';
import type { Clock } from '../../../lib/clock.js';
import type { Ids } from '../../../lib/ids.js';
import { builtinAgent } from '../builtins.js';
import type { AgentGroupRecord, AgentsRepo } from '../repos/agents.js';
import { agentLimitsOf, type AgentLimits } from '../limits.js';
import type { Caller } from '../../../platform/caller.js';

const membersOf = (row: AgentGroupRecord) => row.agentIds;

/** Named, ordered lists of an application's agents (built-in and custom). */
export function createAgentGroups(deps: { repo: AgentsRepo; uow: UnitOfWork; ids: Ids; clock: Clock; limits?: AgentLimits | undefined }) {
  const { repo, uow } = deps;
  const { groups: maxGroups } = agentLimitsOf(deps.limits);

  /** The custom agents among `ids` that exist; built-in ones always do. */
  async function existing(apiKeyId: string, ids: readonly string[]): Promise<(id: string) => boolean> {
    const custom = await repo.existingAgentIds(apiKeyId, ids.filter((id) => builtinAgent(id) === undefined));
    return (id) => builtinAgent(id) !== undefined || custom.has(id);
  }

  async function assertAgentsExist(apiKeyId: string, ids: readonly string[]): Promise<void> {
    const exists = await existing(apiKeyId, ids);
    const missing = ids.filter((id) => !exists(id));
    if (missing.length > 0) throw notFound(`no agent ${missing.join(', ')}: a group lists agents of the application`, { missingAgentIds: missing });
  }

  /**
   * A group as it reads: only members that exist. Deleting an agent removes it
   * from every group, but a group written at the same moment on another
   * connection may still name it.
   */
  function toGroup(row: AgentGroupRecord, exists: (id: string) => boolean): TAgentGroup {
    return { groupId: row.id, name: row.name, description: row.description, agentIds: membersOf(row).filter(exists) };
  }

  async function find(apiKeyId: string, groupId: string): Promise<AgentGroupRecord> {
    const row = await repo.findGroup(apiKeyId, groupId);
    if (row === null) throw notFound(`no agent group ${groupId}`);
    return row;
  }

  async function read(apiKeyId: string, row: AgentGroupRecord): Promise<TAgentGroup> {
    return toGroup(row, await existing(apiKeyId, membersOf(row)));
  }

  const taken = (groupId: string | undefined) => alreadyExists(`agent group ${groupId} already exists`);

  return {
    async createGroup(app: Caller, input: DataOf<typeof createAgentGroup>): Promise<TAgentGroup> {
      const now = BigInt(deps.clock.nowMs());
      const row: AgentGroupRecord = {
        apiKeyId: app.apiKeyId,
        id: input.groupId ?? deps.ids.next('agg'),
        name: input.name,
        description: input.description ?? '',
        agentIds: input.agentIds,
        createdAt: now,
        updatedAt: now,
      };
      try {
        await uow.run(async () => {
          await repo.lockQuota(app.apiKeyId);
          if (input.groupId !== undefined && (await repo.findGroup(app.apiKeyId, input.groupId)) !== null) throw taken(input.groupId);
          if ((await repo.countGroups(app.apiKeyId)) >= maxGroups) {
            throw failedPrecondition(`an application has at most ${maxGroups} agent groups: delete one first`);
          }
          await assertAgentsExist(app.apiKeyId, input.agentIds);
          await repo.insertGroup(row);
        });
      } catch (error) {
        // Two creates of one groupId at once: the second loses at the primary key.
        if (isUniqueViolation(error)) throw taken(input.groupId);
        throw error;
      }
      return toGroup(row, () => true);
    },

    async getGroups(app: Caller, input: DataOf<typeof getAgentGroups>): Promise<{ group: TAgentGroup } | { groups: TAgentGroup[] }> {
      if (input.groupId !== undefined) return { group: await read(app.apiKeyId, await find(app.apiKeyId, input.groupId)) };
      const rows = await repo.listGroups(app.apiKeyId);
      const exists = await existing(app.apiKeyId, [...new Set(rows.flatMap(membersOf))]);
      return { groups: rows.map((row) => toGroup(row, exists)) };
    },

    async updateGroup(app: Caller, input: DataOf<typeof updateAgentGroup>): Promise<TAgentGroup> {
      return uow.run(async () => {
        await find(app.apiKeyId, input.groupId);
        if (input.agentIds !== undefined) await assertAgentsExist(app.apiKeyId, input.agentIds);
        const { count } = await repo.updateGroup(app.apiKeyId, input.groupId, {
          ...(input.name === undefined ? {} : { name: input.name }),
          ...(input.description === undefined ? {} : { description: input.description }),
          ...(input.agentIds === undefined ? {} : { agentIds: input.agentIds }),
          updatedAt: BigInt(deps.clock.nowMs()),
        });
        if (count === 0) throw notFound(`no agent group ${input.groupId}`);
        return read(app.apiKeyId, await find(app.apiKeyId, input.groupId));
      });
    },

    async deleteGroup(app: Caller, input: DataOf<typeof deleteAgentGroup>) {
      const { count } = await repo.deleteGroup(app.apiKeyId, input.groupId);
      if (count === 0) throw notFound(`no agent group ${input.groupId}`);
      return { groupId: input.groupId };
    },
  };
}

export type AgentGroups = ReturnType<typeof createAgentGroups>;
