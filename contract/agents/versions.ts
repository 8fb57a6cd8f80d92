import { z } from 'zod';
import { operation, pagedResultOf, resultOf } from '../common/envelope.js';
import { named } from '../common/named.js';
import { ZPageSize, ZPageToken } from '../common/paging.js';
import { behavioralFields, configOf, MAX_AGENT_CONFIG_BYTES, ZAgentId, ZCustomAgent } from './schemas.js';
import { configShapeIssues } from './rules.js';

/** Versions are numbered from 1; the column is a 32-bit integer. */
export const MAX_AGENT_VERSION = 2_147_483_647;

/**
 * Update Agent Version: the behavioral fields to change, each optional.
 * `null` removes an optional top-level field. Cross-field rules apply to the
 * merged configuration (checked by the service); here only the request's
 * own shape, size and keys.
 */
const { contextGathering, execution, ...optionalFields } = behavioralFields;
const nullable = Object.fromEntries(
  Object.entries(optionalFields).map(([key, schema]) => {
    const field = schema.unwrap().nullable().optional();
    return [key, schema.description === undefined ? field : field.describe(`${schema.description} \`null\` removes it.`)];
  }),
) as {
  [K in keyof typeof optionalFields]: z.ZodOptional<z.ZodNullable<ReturnType<(typeof optionalFields)[K]['unwrap']>>>;
};

export const ZUpdateAgentVersionData = z
  .object({
    agentId: ZAgentId,
    contextGathering: contextGathering.optional(),
    execution: execution.optional(),
    ...nullable,
  })
  .passthrough()
  .superRefine((data, ctx) => {
    const given = configOf(data, ['agentId']);
    if (Object.keys(given).length === 0) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['agentId'], message: 'give at least one behavioral field to change' });
    }
    // The conditional rules wait for the merge with the stored version (the service checks them).
    for (const issue of configShapeIssues(given)) ctx.addIssue({ code: z.ZodIssueCode.custom, path: issue.path, message: issue.message });
  });
export type TUpdateAgentVersionData = z.infer<typeof ZUpdateAgentVersionData>;

export const updateAgentVersion = operation({
  path: '/v2/agents/version/update',
  summary: 'Update Agent Version',
  description: `Creates version N+1 of a custom agent from its latest version N and the behavioral fields sent: a field given as an object replaces the stored object's keys one level deep (\`{...stored, ...given}\`), any other value replaces the field, \`null\` removes an optional field. The merged configuration must pass every rule of Create Agent (INVALID_ARGUMENT otherwise, e.g. \`executionStrategy: service\` without \`serviceId\`; at most ${MAX_AGENT_CONFIG_BYTES} bytes as JSON). A secret sent back as \`__redacted__\` keeps the stored secret at the same place (\`mcpServers\` entries are matched by \`name\` when they have one, else by position); \`__redacted__\` where no secret is stored is INVALID_ARGUMENT. Identity fields (\`name\`, \`description\`, \`enabled\`) are INVALID_ARGUMENT here: use Update Agent. FAILED_PRECONDITION for a built-in agent (not versioned); NOT_FOUND for an unknown agent. Result: \`{agentId, version, agent}\`, \`agent\` as Get Agent(s) reads it.`,
  data: ZUpdateAgentVersionData,
  result: resultOf(z.object({ agentId: z.string(), version: z.number().int(), agent: ZCustomAgent })),
});

export const ZAgentVersionSummary = named(
  'AgentVersionSummary',
  z.object({ version: z.number().int(), createdAt: z.number().int().describe('Unix milliseconds.') }),
);

export const getAgentVersions = operation({
  path: '/v2/agents/versions/get',
  summary: 'Get Agent Versions',
  description:
    'The versions of a custom agent, newest first, paged by an opaque pageToken (null on the last page). FAILED_PRECONDITION for a built-in agent (not versioned); NOT_FOUND for an unknown agent.',
  data: z.object({ agentId: ZAgentId, pageSize: ZPageSize, pageToken: ZPageToken }).strict(),
  result: pagedResultOf(ZAgentVersionSummary),
});

export const getAgentVersion = operation({
  path: '/v2/agents/version/get',
  summary: 'Get Agent Version',
  description:
    "One version of a custom agent: `agent` carries the agent's current identity and the behavioral fields of that version (secrets as `__redacted__`), as Get Agent(s) reads the latest. FAILED_PRECONDITION for a built-in agent; NOT_FOUND for an unknown agent or version.",
  data: z.object({ agentId: ZAgentId, version: z.number().int().min(1).max(MAX_AGENT_VERSION) }).strict(),
  result: resultOf(z.object({ agentId: z.string(), version: z.number().int(), createdAt: z.number().int().describe('Unix milliseconds.'), agent: ZCustomAgent })),
});
