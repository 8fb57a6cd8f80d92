import { z } from 'zod';
import { ZId } from '../access/schemas.js';
import { named } from '../common/named.js';
import { agentConfigIssues } from './rules.js';

/**
 * Shapes of configurable AI agents (the specification's Agent resource and
 * Create Agent tables). The enumerations and minimums of the specification
 * are enforced; the inner shapes it leaves open (`strategyOptions`,
 * `aiConfig`, `mcpServers` entries, `responseDescriptions`, `knowledge`,
 * `crossPage`, `metadata`, `setup`) are stored and returned as given, bounded
 * only by the size of the whole configuration.
 */

export const MAX_AGENT_NAME = 200;
export const MAX_AGENT_DESCRIPTION = 2000;
export const MAX_INSTRUCTIONS = 100_000;
export { MAX_AGENT_CONFIG_BYTES, MAX_AGENT_CONFIG_DEPTH, MAX_AGENT_SECRETS, MAX_SECRET_BYTES, MAX_STORED_AGENT_CONFIG_BYTES } from './rules.js';
export { REDACTED } from './secret-places.js';
export const MAX_STRATEGIES = 20;
export const MAX_MCP_SERVERS = 20;
export const MAX_LIST_ITEMS = 100;
export const MAX_CUSTOM_PROCESSORS = 50;
export const MAX_SHORT_STRING = 256;
export const MAX_PATTERN = 2048;
export const MAX_FORMATTING_PROMPT = 100_000;
export const MAX_EXAMPLE = 10_000;
/** A number `defaultValue` of a user context field: any JSON number within this magnitude (fractions included). */
export const MAX_DEFAULT_NUMBER = 1e15;
/** Custom agents per application (the list is returned whole, as the specification shows it). */
export const MAX_CUSTOM_AGENTS = 1000;
/** Agent groups per application, and agents per group. */
export const MAX_AGENT_GROUPS = 200;
export const MAX_GROUP_AGENTS = 100;

/** What a built-in agent's `managedBy` names: the operator of this service. */
export const BUILTIN_MANAGED_BY = 'collab-backend';
/** A custom agent's `managedBy`, as the specification fixes it. */
export const CUSTOM_MANAGED_BY = 'customer';

export const EXECUTION_STRATEGIES = ['ai', 'service', 'service+ai', 'browser-agent', 'mcp-tools'] as const;
export const SERVICE_IDS = ['broken-links', 'crawler', 'screenshot', 'accessibility-checker', 'og-image-checker'] as const;
export const RESPONSE_ADAPTERS = [
  'broken-links-response',
  'crawler-response',
  'screenshot-response',
  'accessibility-checker-response',
  'og-image-checker-response',
] as const;
export const ANNOTATION_STRATEGIES = ['findings', 'word-level', 'page-level', 'none'] as const;
export const USER_CONTEXT_TYPES = ['string', 'number', 'boolean'] as const;

/** The behavioral fields the specification names; any other key of the configuration is forwarded as given. */
export const BEHAVIORAL_FIELDS = ['rawInstructions', 'instructions', 'contextGathering', 'execution', 'response', 'postProcess', 'input', 'scope', 'metadata', 'setup'] as const;
/** Keys the reads use for identity and counters: never part of a configuration. */
export const RESERVED_CONFIG_KEYS = ['id', 'agentId', 'name', 'description', 'enabled', 'version', 'managedBy', 'system', 'executionCount', 'lastExecutedAt'] as const;

export const ZAgentId = ZId.describe('An agent ID: a built-in agent\'s name (`crawler`, …) or the `agt_…` ID the service gave a custom agent.');
export const ZAgentGroupId = ZId.describe('An agent group ID: chosen by the caller at creation, or the `agg_…` ID the service gave it.');

export const ZExecutionStrategy = named('AgentExecutionStrategy', z.enum(EXECUTION_STRATEGIES).describe('How the agent runs; default `ai`.'));
export const ZServiceId = named('AgentServiceId', z.enum(SERVICE_IDS).describe('The service a `service` or `service+ai` agent runs.'));
export const ZResponseAdapter = named('AgentResponseAdapter', z.enum(RESPONSE_ADAPTERS));
export const ZAnnotationStrategy = named('AgentAnnotationStrategy', z.enum(ANNOTATION_STRATEGIES).describe('Default `findings`.'));
export const ZUserContextType = named('AgentUserContextType', z.enum(USER_CONTEXT_TYPES));

/** An object the specification leaves open: stored and returned as given. */
const ZOpen = z.record(z.unknown());
const ZShort = z.string().min(1).max(MAX_SHORT_STRING);
const ZShortList = z.array(ZShort).max(MAX_LIST_ITEMS);

const ZInstructions = z.string().min(1).max(MAX_INSTRUCTIONS);

const ZContextGathering = z
  .object({
    strategies: z
      .array(ZShort)
      .min(1)
      .max(MAX_STRATEGIES)
      .refine((list) => new Set(list).size === list.length, 'must not name a strategy twice')
      .describe(
        'Context gathering strategies, at least 1: `web-page-text`, `web-page-screenshot`, `web-page-html`, `web-page-css`, `web-page-links`, `web-page-accessibility`, `computed-styles`, `robots-txt`, `sitemap-data`, `rest-api`, or another name (the specification does not close the list).',
      ),
    strategyOptions: z
      .object({
        'rest-api': ZOpen.optional().describe(
          'Required when `strategies` includes `rest-api`. Secrets: every string, number and boolean inside its `auth` and `headers`, and inside any key (at any depth) named like a secret (`token`, `apiKey`, `password`, …: see docs/decisions.md in the repository); stored encrypted, read back as `__redacted__`. A URL with credentials (`user:password@`) elsewhere in it is INVALID_ARGUMENT.',
        ),
      })
      .catchall(z.unknown())
      .optional()
      .describe('Options keyed by strategy name, stored as given.'),
    aiConfig: ZOpen.optional(),
  })
  .passthrough();

const ZExecution = z
  .object({
    executionStrategy: ZExecutionStrategy.optional(),
    serviceId: ZServiceId.optional().describe('Required for `service` and `service+ai`.'),
    aiConfig: ZOpen.optional(),
    mcpServers: z
      .array(ZOpen)
      .max(MAX_MCP_SERVERS)
      .optional()
      .describe(
        `MCP servers, stored as given (at most ${MAX_MCP_SERVERS}); at least 1 for \`mcp-tools\`. A server is known by its \`name\`, or by its \`url\` when it has no name: two servers with the same one are INVALID_ARGUMENT. Secrets: every string, number and boolean inside a server's \`auth\`, \`headers\` and \`env\`, and inside any key named like a secret; stored encrypted, read back as \`__redacted__\`. A URL with credentials (\`user:password@\`) elsewhere in a server is INVALID_ARGUMENT.`,
      ),
    responseDescriptions: ZOpen.optional(),
    strategyOptions: ZOpen.optional(),
    knowledge: ZOpen.optional(),
  })
  .passthrough();

const ZResponse = z
  .object({
    useAiFormatting: z.boolean().optional(),
    formattingPrompt: z.string().max(MAX_FORMATTING_PROMPT).optional(),
    responseAdapter: ZResponseAdapter.optional(),
  })
  .passthrough();

const ZStage = z.object({ enabled: z.boolean().optional().describe('Default true.') }).strict();

export const ZPostProcessInput = z
  .object({
    guardrails: ZStage.optional().describe('Deduplicates identical findings and sanitizes HTML/script content from text fields.'),
    deletePreviousSuggestions: ZStage.optional().describe("Clears the prior run's suggestions per URL before writing new ones."),
    annotations: z.object({ enabled: z.boolean().optional().describe('Default true.'), strategy: ZAnnotationStrategy.optional() }).strict().optional(),
    analytics: ZStage.optional(),
    matchAndMerge: ZStage.optional().describe('Deprecated: accepted and ignored (neither stored nor returned).'),
    customProcessors: z.array(ZShort).max(MAX_CUSTOM_PROCESSORS).optional(),
  })
  .strict()
  .describe('Post-processing stages; every stage is enabled unless its `enabled` is `false`. Unknown keys are INVALID_ARGUMENT here (only here).');

const ZUserContextField = z
  .object({
    id: z.string().min(1).max(MAX_SHORT_STRING),
    title: z.string().min(1).max(MAX_SHORT_STRING * 4),
    type: ZUserContextType,
    required: z.boolean().optional(),
    example: z.string().max(MAX_EXAMPLE).optional(),
    defaultValue: z
      .union([z.string().max(MAX_EXAMPLE), z.number().min(-MAX_DEFAULT_NUMBER).max(MAX_DEFAULT_NUMBER), z.boolean()])
      .optional()
      .describe(`A string, a boolean, or a number (fractions allowed) within ±${MAX_DEFAULT_NUMBER}.`),
  })
  .passthrough();

const ZInput = z
  .object({
    variableKeys: ZShortList.optional().describe('Names expected in `payload.variables`.'),
    userContextFields: z.array(ZUserContextField).max(MAX_LIST_ITEMS).optional(),
    inputRequirements: z.object({ requires: ZShortList.optional(), requiresOneOf: ZShortList.optional() }).passthrough().optional(),
    supportedVariables: ZShortList.optional().describe('Template variables.'),
  })
  .passthrough();

const ZPatternList = z.array(z.string().min(1).max(MAX_PATTERN)).max(MAX_LIST_ITEMS);

const ZScope = z
  .object({
    pageScope: ZPatternList.optional().describe('URL glob patterns.'),
    pageScopeExclude: ZPatternList.optional(),
    contentTypes: ZShortList.optional(),
    crossPage: ZOpen.optional().describe('`enabled`, `targetProperty`, `pageDiscovery`, `pages[]`, `sourceOfTruthKnowledgeSourceId`: stored as given.'),
  })
  .passthrough();

/** The behavioral fields as Create Agent and Update Agent Version take them (each optional here). */
export const behavioralFields = {
  rawInstructions: z.string().max(MAX_INSTRUCTIONS).optional().describe('The original instructions.'),
  instructions: ZInstructions.optional().describe('Required unless `execution.executionStrategy` is `service`.'),
  metadata: ZOpen.optional().describe('Your key/values, stored and returned as given.'),
  contextGathering: ZContextGathering,
  execution: ZExecution.describe('Send `{}` for the defaults.'),
  response: ZResponse.optional(),
  postProcess: ZPostProcessInput.optional(),
  input: ZInput.optional(),
  scope: ZScope.optional(),
  setup: ZOpen.optional().describe('Tooling metadata (`setupSamples[]`, `checklistOrigin`), not used at run time: stored and returned as given.'),
};

/** A whole configuration (the behavioral fields) with every rule of Create Agent: what Update Agent Version's merged configuration must pass. */
export const ZAgentConfig = z
  .object(behavioralFields)
  .passthrough()
  .superRefine((config, ctx) => refineConfig(config, ctx));

/** The behavioral fields of a configuration: every key but the reserved identity ones. */
export function configOf(data: Record<string, unknown>, identityKeys: readonly string[]): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) if (!identityKeys.includes(key)) config[key] = value;
  return config;
}

/** Issues of a whole configuration (size, depth, the conditional rules), added to a zod refinement. */
export function refineConfig(config: Record<string, unknown>, ctx: z.RefinementCtx): void {
  for (const issue of agentConfigIssues(config)) ctx.addIssue({ code: z.ZodIssueCode.custom, path: issue.path, message: issue.message });
}

// ─── Reads ─────────────────────────────────────────────────────────────────

const ZStageOut = z.object({ enabled: z.boolean() });

const ZPostProcessOut = named(
  'AgentPostProcess',
  z
    .object({
      guardrails: ZStageOut,
      deletePreviousSuggestions: ZStageOut,
      annotations: z.object({ enabled: z.boolean(), strategy: ZAnnotationStrategy }),
      analytics: ZStageOut,
      customProcessors: z.array(z.string()).optional(),
    })
    .describe('Every stage with its effective `enabled` (true unless stored `false`) and the annotation strategy (default `findings`).'),
);

const ZUserContextFieldOut = z
  .object({
    id: z.string(),
    title: z.string(),
    type: ZUserContextType,
    required: z.boolean().optional(),
    example: z.string().optional(),
    defaultValue: z.union([z.string(), z.number(), z.boolean()]).optional(),
  })
  .passthrough();

export const ZAgentInput = named(
  'AgentInput',
  z
    .object({
      variableKeys: z.array(z.string()).optional(),
      userContextFields: z.array(ZUserContextFieldOut).optional(),
      inputRequirements: z.object({ requires: z.array(z.string()).optional(), requiresOneOf: z.array(z.string()).optional() }).passthrough().optional(),
      supportedVariables: z.array(z.string()).optional(),
    })
    .passthrough(),
);

const identity = {
  id: z.string(),
  name: z.string(),
  description: z.string(),
  enabled: z.boolean(),
};

/** A custom agent read alone: identity, its latest (or requested) version, and the behavioral fields of that version. */
export const ZCustomAgent = named(
  'Agent',
  z
    .object({
      ...identity,
      managedBy: z.literal(CUSTOM_MANAGED_BY),
      version: z.number().int().describe('The version these behavioral fields are; creation writes 1.'),
      rawInstructions: z.string().optional(),
      instructions: z.string().optional(),
      metadata: z.record(z.unknown()).optional(),
      contextGathering: z
        .object({ strategies: z.array(z.string()), strategyOptions: z.record(z.unknown()).optional(), aiConfig: z.record(z.unknown()).optional() })
        .passthrough()
        .describe('Secrets inside `strategyOptions.rest-api` read `__redacted__`.'),
      execution: z
        .object({
          executionStrategy: ZExecutionStrategy,
          serviceId: ZServiceId.optional(),
          aiConfig: z.record(z.unknown()).optional(),
          mcpServers: z.array(z.record(z.unknown())).optional(),
          responseDescriptions: z.record(z.unknown()).optional(),
          strategyOptions: z.record(z.unknown()).optional(),
          knowledge: z.record(z.unknown()).optional(),
        })
        .passthrough()
        .describe('`executionStrategy` always present (default `ai`); secrets inside `mcpServers[]` read `__redacted__`.'),
      response: z
        .object({ useAiFormatting: z.boolean().optional(), formattingPrompt: z.string().optional(), responseAdapter: ZResponseAdapter.optional() })
        .passthrough()
        .optional(),
      postProcess: ZPostProcessOut,
      input: ZAgentInput.optional(),
      scope: z
        .object({
          pageScope: z.array(z.string()).optional(),
          pageScopeExclude: z.array(z.string()).optional(),
          contentTypes: z.array(z.string()).optional(),
          crossPage: z.record(z.unknown()).optional(),
        })
        .passthrough()
        .optional(),
      setup: z.record(z.unknown()).optional(),
    })
    .passthrough()
    .describe('Behavioral fields not named here that the agent was given are returned too, as given.'),
);
export type TCustomAgent = z.infer<typeof ZCustomAgent>;

/** A built-in agent read alone. */
export const ZBuiltinAgent = named(
  'BuiltinAgent',
  z.object({
    ...identity,
    managedBy: z.literal(BUILTIN_MANAGED_BY).describe('The operator of this service.'),
    system: z.literal(true),
    input: ZAgentInput.optional().describe('What the agent needs to run, when it declares it.'),
  }),
);
export type TBuiltinAgent = z.infer<typeof ZBuiltinAgent>;

/** A row of the agent list: identity and counters only. */
export const ZAgentSummary = named(
  'AgentSummary',
  z.object({
    ...identity,
    managedBy: z.string().describe('`customer` for custom agents, `collab-backend` for built-in ones.'),
    system: z.literal(true).optional().describe('Only on built-in agents.'),
    version: z.number().int().optional().describe('Only on custom agents: the latest version.'),
    executionCount: z.number().int().describe('Runs so far (Run Agent), every status counted.'),
    lastExecutedAt: z.number().int().nullable().describe('Unix milliseconds of the last run; null when never run.'),
  }),
);
export type TAgentSummary = z.infer<typeof ZAgentSummary>;

export const ZAgentGroup = named(
  'AgentGroup',
  z.object({
    groupId: z.string(),
    name: z.string(),
    description: z.string(),
    agentIds: z.array(z.string()).describe('Members in the order Get Agent(s) lists them with this `groupId`.'),
  }),
);
export type TAgentGroup = z.infer<typeof ZAgentGroup>;
