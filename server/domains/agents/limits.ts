import { MAX_AGENT_GROUPS, MAX_CUSTOM_AGENTS } from '../../../contract/agents/schemas.js';

/** Per-application caps on custom agents and agent groups; the contract's unless a test lowers them. */
export interface AgentLimits {
  customAgents?: number;
  groups?: number;
}

export const agentLimitsOf = (limits: AgentLimits = {}) => ({
  customAgents: limits.customAgents ?? MAX_CUSTOM_AGENTS,
  groups: limits.groups ?? MAX_AGENT_GROUPS,
});
