import type { DomainModule, Platform } from '../../platform/module.js';
import { createAgentGroups } from './services/groups.js';
import type { AgentLimits } from './limits.js';
import { createAgentsRepo } from './repo.js';
import { createAgentSecrets, resealStoredConfig } from './secrets.js';
import { createAgentsService } from './services/agents.js';

/** Agents: built-in agents from the catalog in code, custom agents with versioned configurations (secrets sealed), and groups. Nothing here runs an agent. */
export function agentsModule(p: Platform, deps: { limits?: AgentLimits | undefined }) {
  const repo = createAgentsRepo(p.db);
  const agents = createAgentsService({ repo, uow: p.uow, secrets: createAgentSecrets(p.sealer), pageTokens: p.pageTokens, ids: p.ids, clock: p.clock, limits: deps.limits });
  const agentGroups = createAgentGroups({ repo, uow: p.uow, ids: p.ids, clock: p.clock, limits: deps.limits });
  return {
    services: { agents, agentGroups },
    sealed: [{ table: 'AgentVersion', key: ['apiKeyId', 'agentId', 'version'], column: 'config', leaves: resealStoredConfig }],
  } satisfies DomainModule;
}
