import { z } from 'zod';
import { operation, resultOf } from '../common/envelope.js';
import {
  behavioralFields,
  configOf,
  MAX_AGENT_CONFIG_BYTES,
  MAX_AGENT_DESCRIPTION,
  MAX_AGENT_NAME,
  MAX_AGENT_SECRETS,
  MAX_CUSTOM_AGENTS,
  MAX_SECRET_BYTES,
  refineConfig,
  ZAgentGroupId,
  ZAgentId,
  ZAgentSummary,
  ZBuiltinAgent,
  ZCustomAgent,
} from './schemas.js';
import { INSTRUCTIONS_V1, STYLE_AGENT_ID, STYLE_AGENT_IDENTITY, STYLE_AGENT_SUMMARY, STYLE_AGENT_V1 } from './examples.js';

export const AGENT_FILTERS = ['defaultOnly', 'customOnly'] as const;

export const getAgents = operation({
  path: '/v2/agents/get',
  summary: 'Get Agent(s)',
  description:
    'With `agentId`: that agent as `result.data.agent` (`filter` and `groupId` are then ignored). A custom agent reads with its identity, `managedBy: customer`, its latest `version` and the behavioral fields of that version (secrets as `__redacted__`, every `postProcess` stage with its effective `enabled`, `execution.executionStrategy` defaulted to `ai`); a built-in agent with `id`, `name`, `description`, `enabled`, `managedBy`, `system` and `input` when it declares one. Without `agentId`: `result.data.agents`, identity-only rows with `executionCount` and `lastExecutedAt`, built-in agents first (catalog order), then custom agents oldest first; `filter` keeps built-in (`defaultOnly`) or custom (`customOnly`) agents; `groupId` keeps the group\'s members, in the order of its `agentIds`. NOT_FOUND for an unknown agent or group; INVALID_ARGUMENT for another `filter`.',
  data: z
    .object({
      agentId: ZAgentId.optional(),
      filter: z.enum(AGENT_FILTERS).optional().describe('`defaultOnly` (built-in) or `customOnly` (created by you).'),
      groupId: ZAgentGroupId.optional(),
    })
    .strict(),
  result: resultOf(
    z.union([
      z.object({ agent: z.union([ZBuiltinAgent, ZCustomAgent]) }).strict(),
      z.object({ agents: z.array(ZAgentSummary) }).strict(),
    ]),
  ),
  example: {
    data: { filter: 'customOnly' },
    result: {
      status: 'success',
      message: 'Agent(s) retrieved successfully.',
      data: {
        agents: [STYLE_AGENT_SUMMARY],
      },
    },
  },
});

const IDENTITY_KEYS = ['name', 'description', 'enabled'] as const;

export const ZCreateAgentData = z
  .object({
    name: z.string().min(1).max(MAX_AGENT_NAME),
    description: z.string().min(1).max(MAX_AGENT_DESCRIPTION),
    enabled: z.boolean(),
    ...behavioralFields,
  })
  .passthrough()
  .superRefine((data, ctx) => refineConfig(configOf(data, IDENTITY_KEYS), ctx));
export type TCreateAgentData = z.infer<typeof ZCreateAgentData>;

export const createAgent = operation({
  path: '/v2/agents/create',
  summary: 'Create Agent',
  description: `Creates a custom agent and its version 1; the service gives it an ID (\`agt_…\`). Behavioral fields not listed are stored and returned as given, except inside \`postProcess\`, where unknown keys are INVALID_ARGUMENT. INVALID_ARGUMENT also for: \`instructions\` missing unless \`execution.executionStrategy\` is \`service\`; \`execution.serviceId\` missing for \`service\` and \`service+ai\`; no \`execution.mcpServers\` for \`mcp-tools\`; \`contextGathering.strategyOptions.rest-api\` missing when \`rest-api\` is a strategy; a value outside an enumeration; two \`execution.mcpServers\` with the same \`name\` (or, without a name, the same \`url\`); a URL with credentials (\`user:password@\`) inside \`strategyOptions.rest-api\` or an MCP server outside its secrets; \`__redacted__\` as a secret (nothing is stored to keep); more than ${MAX_AGENT_SECRETS} secrets or a secret over ${MAX_SECRET_BYTES} bytes; the behavioral fields over ${MAX_AGENT_CONFIG_BYTES} bytes as JSON, each secret counted as \`"__redacted__"\`; a key the reads use (\`id\`, \`agentId\`, \`version\`, \`managedBy\`, \`system\`, \`executionCount\`, \`lastExecutedAt\`). FAILED_PRECONDITION when the application already has ${MAX_CUSTOM_AGENTS} custom agents. Result: \`{agentId, agent}\`, \`agent\` as Get Agent(s) reads it.`,
  data: ZCreateAgentData,
  result: resultOf(z.object({ agentId: z.string(), agent: ZCustomAgent })),
  example: {
    data: {
      ...STYLE_AGENT_IDENTITY,
      instructions: INSTRUCTIONS_V1,
      contextGathering: { strategies: ['web-page-text'] },
      execution: {
        executionStrategy: 'mcp-tools',
        mcpServers: [{ name: 'style-guide', url: 'https://mcp.example.com/style-guide', headers: { Authorization: 'Bearer <your-style-guide-token>' } }],
      },
      postProcess: { annotations: { strategy: 'word-level' } },
      scope: { pageScope: ['https://www.example.com/blog/**'] },
    },
    result: {
      status: 'success',
      message: 'Agent created.',
      data: {
        agentId: STYLE_AGENT_ID,
        agent: STYLE_AGENT_V1,
      },
    },
  },
});

export const updateAgent = operation({
  path: '/v2/agents/update',
  summary: 'Update Agent',
  description:
    'Changes the identity of an agent (`name`, `description`, `enabled`); no new version is created. A custom agent takes any of them; with none the update succeeds and changes nothing. A built-in agent takes only `enabled`, per application: without it INVALID_ARGUMENT, and `name`/`description` sent beside it are ignored. Behavioral fields are INVALID_ARGUMENT here: they change through Update Agent Version. NOT_FOUND for an unknown agent. Result: `{agentId}`.',
  data: z
    .object({
      agentId: ZAgentId,
      name: z.string().min(1).max(MAX_AGENT_NAME).optional(),
      description: z.string().max(MAX_AGENT_DESCRIPTION).optional(),
      enabled: z.boolean().optional(),
    })
    .strict(),
  result: resultOf(z.object({ agentId: z.string() })),
  example: {
    data: { agentId: STYLE_AGENT_ID, name: 'Blog style guide checker' },
    result: { status: 'success', message: 'Agent updated.', data: { agentId: STYLE_AGENT_ID } },
  },
});

export const deleteAgent = operation({
  path: '/v2/agents/delete',
  summary: 'Delete Agent',
  description:
    'Deletes a custom agent with all its versions and removes it from every agent group, in one transaction. FAILED_PRECONDITION for a built-in agent (disable it with Update Agent instead); NOT_FOUND for an unknown agent. Result: `{agentId}`.',
  data: z.object({ agentId: ZAgentId }).strict(),
  result: resultOf(z.object({ agentId: z.string() })),
  example: {
    data: { agentId: STYLE_AGENT_ID },
    result: { status: 'success', message: 'Agent deleted.', data: { agentId: STYLE_AGENT_ID } },
  },
});
