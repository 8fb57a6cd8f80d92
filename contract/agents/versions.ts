import { z } from 'zod';
import { operation, pagedResultOf, resultOf } from '../common/envelope.js';
import { named } from '../common/named.js';
import { ZPageSize, ZPageToken } from '../common/paging.js';
import { behavioralFields, configOf, MAX_AGENT_CONFIG_BYTES, ZAgentId, ZCustomAgent } from './schemas.js';
import { configShapeIssues } from './rules.js';
import { INSTRUCTIONS_V2, STYLE_AGENT_ID, STYLE_AGENT_V1, STYLE_AGENT_V2 } from './examples.js';

/** Versions are numbered from 1; the column is a 32-bit integer. */
export const MAX_AGENT_VERSION = 2_147_483_647;

/**
 * Update Agent Version: the behavioral fields to change, each optional.
 * `null` removes an optional top-level field, and a key of an object that
 * merges one level deep. Every rule applies to the merged configuration
 * (checked by the service with the schema of Create Agent); here only the
 * request's own shape, size and keys.
 */
type Unoptional<T extends z.ZodTypeAny> = T extends z.ZodOptional<infer Inner> ? Inner : T;
type NullableKeys<S extends z.ZodRawShape> = { [K in keyof S]: z.ZodOptional<z.ZodNullable<Unoptional<S[K]>>> };

/** The object with each of its own keys optional and nullable (`null`: remove that key from the stored object). */
function withRemovableKeys<S extends z.ZodRawShape, U extends z.UnknownKeysParam>(schema: z.ZodObject<S, U>): z.ZodObject<NullableKeys<S>, U> {
  const shape = Object.fromEntries(
    Object.entries(schema.shape).map(([key, field]) => {
      const inner = field instanceof z.ZodOptional ? (field.unwrap() as z.ZodTypeAny) : field;
      // A named enum's nullable form is a new unnamed enum (OpenAPI 3.0 has no nullable $ref).
      const base = inner instanceof z.ZodEnum ? z.enum(inner.options as [string, ...string[]]) : inner;
      const removable = base.nullable().optional();
      const description = field.description ?? inner.description;
      return [key, description === undefined ? removable : removable.describe(description)];
    }),
  );
  const object = new z.ZodObject({ ...schema._def, shape: () => shape });
  return (schema.description === undefined ? object : object.describe(schema.description)) as unknown as z.ZodObject<NullableKeys<S>, U>;
}

const removable = (description: string | undefined, note: string) => (description === undefined ? note : `${description} ${note}`);
const KEY_NULL = '`null` for one of its keys removes that key.';

const { contextGathering, execution, response, postProcess, input, scope, ...scalarFields } = behavioralFields;
const objectFields = {
  response: withRemovableKeys(response.unwrap()).nullable().optional().describe(removable(response.description, `\`null\` removes it; ${KEY_NULL}`)),
  postProcess: withRemovableKeys(postProcess.unwrap()).nullable().optional().describe(removable(postProcess.description, `\`null\` removes it; ${KEY_NULL}`)),
  input: withRemovableKeys(input.unwrap()).nullable().optional().describe(removable(input.description, `\`null\` removes it; ${KEY_NULL}`)),
  scope: withRemovableKeys(scope.unwrap()).nullable().optional().describe(removable(scope.description, `\`null\` removes it; ${KEY_NULL}`)),
};
const nullable = Object.fromEntries(
  Object.entries(scalarFields).map(([key, schema]) => {
    const field = schema.unwrap().nullable().optional();
    return [key, schema.description === undefined ? field : field.describe(`${schema.description} \`null\` removes it.`)];
  }),
) as {
  [K in keyof typeof scalarFields]: z.ZodOptional<z.ZodNullable<ReturnType<(typeof scalarFields)[K]['unwrap']>>>;
};

export const ZUpdateAgentVersionData = z
  .object({
    agentId: ZAgentId,
    contextGathering: withRemovableKeys(contextGathering)
      .optional()
      .describe(`Merged into the stored one: \`strategies\` may be left out (the stored ones stay). ${KEY_NULL}`),
    execution: withRemovableKeys(execution).optional().describe(removable(execution.description, KEY_NULL)),
    ...objectFields,
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

export const updateAgentVersion = operation({
  path: '/v2/agents/version/update',
  summary: 'Update Agent Version',
  description: `Creates version N+1 of a custom agent from its latest version N and the behavioral fields sent: a field given as an object replaces the stored object's keys one level deep (\`{...stored, ...given}\`, \`null\` for one of its keys removing that key), any other value replaces the field, \`null\` removes an optional field; \`contextGathering\` may leave out \`strategies\`. The merged configuration must pass every rule of Create Agent (INVALID_ARGUMENT otherwise, e.g. \`executionStrategy: service\` without \`serviceId\`; at most ${MAX_AGENT_CONFIG_BYTES} bytes as JSON, each secret counted as \`"__redacted__"\`). A secret sent back as \`__redacted__\` keeps the stored secret at the same place of the same server: an MCP server is known by its \`name\`, or by its \`url\` when it has none, and keeps its secrets only while its \`url\` is unchanged (the rest-api options too); a server with neither keeps none. \`__redacted__\` anywhere else is INVALID_ARGUMENT naming the field. Identity fields (\`name\`, \`description\`, \`enabled\`) are INVALID_ARGUMENT here: use Update Agent. FAILED_PRECONDITION for a built-in agent (not versioned); NOT_FOUND for an unknown agent. Result: \`{agentId, version, agent}\`, \`agent\` as Get Agent(s) reads it.`,
  data: ZUpdateAgentVersionData,
  result: resultOf(z.object({ agentId: z.string(), version: z.number().int(), agent: ZCustomAgent })),
  example: {
    data: {
      agentId: STYLE_AGENT_ID,
      instructions: INSTRUCTIONS_V2,
    },
    result: {
      status: 'success',
      message: 'Agent version created.',
      data: {
        agentId: STYLE_AGENT_ID,
        version: 2,
        agent: STYLE_AGENT_V2,
      },
    },
  },
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
  example: {
    data: { agentId: STYLE_AGENT_ID, pageSize: 20 },
    result: {
      status: 'success',
      message: 'Agent versions retrieved successfully.',
      data: [{ version: 2, createdAt: 1774006938730 }, { version: 1, createdAt: 1774000800000 }],
      pageToken: null,
    },
  },
});

export const getAgentVersion = operation({
  path: '/v2/agents/version/get',
  summary: 'Get Agent Version',
  description:
    "One version of a custom agent: `agent` carries the agent's current identity and the behavioral fields of that version (secrets as `__redacted__`), as Get Agent(s) reads the latest. FAILED_PRECONDITION for a built-in agent; NOT_FOUND for an unknown agent or version.",
  data: z.object({ agentId: ZAgentId, version: z.number().int().min(1).max(MAX_AGENT_VERSION) }).strict(),
  result: resultOf(z.object({ agentId: z.string(), version: z.number().int(), createdAt: z.number().int().describe('Unix milliseconds.'), agent: ZCustomAgent })),
  example: {
    data: { agentId: STYLE_AGENT_ID, version: 1 },
    result: {
      status: 'success',
      message: 'Agent version retrieved successfully.',
      data: {
        agentId: STYLE_AGENT_ID,
        version: 1,
        createdAt: 1774000800000,
        agent: STYLE_AGENT_V1,
      },
    },
  },
});

export const restoreAgentVersion = operation({
  path: '/v2/agents/versions/restore',
  summary: 'Restore Agent Version',
  description:
    "Writes a new version of a custom agent equal to an earlier one (its secrets included, as they were stored): the versions in between stay, and runs started from now on use the new one. Result: `{agentId, version, restoredFrom, agent}`, `version` the new number. FAILED_PRECONDITION for a built-in agent; NOT_FOUND for an unknown agent or version.",
  data: z.object({ agentId: ZAgentId, version: z.number().int().min(1).max(MAX_AGENT_VERSION) }).strict(),
  result: resultOf(z.object({ agentId: z.string(), version: z.number().int(), restoredFrom: z.number().int(), agent: ZCustomAgent })),
  example: {
    data: { agentId: STYLE_AGENT_ID, version: 1 },
    result: {
      status: 'success',
      message: 'Agent version restored.',
      data: { agentId: STYLE_AGENT_ID, version: 3, restoredFrom: 1, agent: { ...STYLE_AGENT_V1, version: 3 } },
    },
  },
});
