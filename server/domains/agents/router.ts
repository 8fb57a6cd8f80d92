import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract/index.js';
import { applicationOf } from '../../http/context.js';
import { ok, paged } from '../../http/respond.js';
import type { AgentGroups } from './services/groups.js';
import type { AgentsService } from './services/agents.js';
import type { RunsService } from './services/runs.js';
import type { AgentAnalytics } from './services/analytics.js';
import type { PromptTools } from './services/prompts.js';

export function agentsRouter(deps: { agents: AgentsService; groups: AgentGroups }) {
  const { agents, groups } = deps;
  return initServer().router(contract.agents, {
    getAgents: async ({ req, body }) => ok('Agent(s) retrieved successfully.', await agents.getAgents(applicationOf(req), body.data)),
    createAgent: async ({ req, body }) => ok('Agent created.', await agents.createAgent(applicationOf(req), body.data)),
    updateAgent: async ({ req, body }) => ok('Agent updated.', await agents.updateAgent(applicationOf(req), body.data)),
    updateAgentVersion: async ({ req, body }) => ok('Agent version created.', await agents.updateAgentVersion(applicationOf(req), body.data)),
    deleteAgent: async ({ req, body }) => ok('Agent deleted.', await agents.deleteAgent(applicationOf(req), body.data)),
    getAgentVersions: async ({ req, body }) => paged('Agent versions retrieved successfully.', await agents.getAgentVersions(applicationOf(req), body.data)),
    getAgentVersion: async ({ req, body }) => ok('Agent version retrieved successfully.', await agents.getAgentVersion(applicationOf(req), body.data)),
    restoreAgentVersion: async ({ req, body }) => ok('Agent version restored.', await agents.restoreAgentVersion(applicationOf(req), body.data)),
    getAgentGroups: async ({ req, body }) => ok('Agent groups retrieved successfully.', await groups.getGroups(applicationOf(req), body.data)),
    createAgentGroup: async ({ req, body }) => ok('Agent group created.', await groups.createGroup(applicationOf(req), body.data)),
    updateAgentGroup: async ({ req, body }) => ok('Agent group updated.', await groups.updateGroup(applicationOf(req), body.data)),
    deleteAgentGroup: async ({ req, body }) => ok('Agent group deleted.', await groups.deleteGroup(applicationOf(req), body.data)),
  });
}

export function agentRunsRouter(deps: { runs: RunsService; analytics: AgentAnalytics }) {
  const { runs, analytics } = deps;
  return initServer().router(contract.agentRuns, {
    runAgent: async ({ req, body }) => ok('Agent execution started.', await runs.runAgent(applicationOf(req), body.data)),
    getAgentExecution: async ({ req, body }) => ok('Agent execution retrieved successfully.', await runs.getAgentExecution(applicationOf(req), body.data)),
    listAgentExecutions: async ({ req, body }) => paged('Agent executions retrieved successfully.', await runs.listAgentExecutions(applicationOf(req), body.data)),
    countAgentExecutions: async ({ req, body }) => ok('Agent executions counted.', await runs.countAgentExecutions(applicationOf(req), body.data)),
    cancelAgentExecution: async ({ req, body }) => ok('Agent execution cancelled.', await runs.cancelAgentExecution(applicationOf(req), body.data)),
    getAgentAnalytics: async ({ req, body }) => ok('Agent analytics retrieved successfully.', await analytics.getAgentAnalytics(applicationOf(req), body.data)),
  });
}

export function agentPromptsRouter(prompts: PromptTools) {
  return initServer().router(contract.agentPrompts, {
    enhanceAgentPrompt: async ({ req, body }) => ok('Prompt enhanced.', await prompts.enhanceAgentPrompt(applicationOf(req), body.data)),
    refineAgentPrompt: async ({ req, body }) => ok('Prompt refined.', await prompts.refineAgentPrompt(applicationOf(req), body.data)),
    validateAgentPrompt: async ({ req, body }) => ok('Prompt validated.', await prompts.validateAgentPrompt(applicationOf(req), body.data)),
  });
}
