import { z } from 'zod';
import { operation, pagedResultOf, resultOf } from '../common/envelope.js';
import { named } from '../common/named.js';
import { ZPageToken } from '../common/paging.js';
import { ZId } from '../access/schemas.js';
import { ZUserRef } from '../common/content.js';
import { ZUserRefOrNull } from '../comments/schemas.js';
import { MAX_DEFAULT_NUMBER, ZAgentId } from './schemas.js';

/**
 * Agent runs: Run Agent starts one in the background and answers at once;
 * the other operations read, count and cancel them. Field names follow the
 * hosted service's execution documents; what they leave open is written in
 * docs/agents.md.
 */

export const EXECUTION_STATUSES = ['running', 'passed', 'failed', 'partial', 'error', 'skipped', 'cancelled'] as const;
export const FINDING_SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
/** Why a run (or one page of it) ended in `error`: a closed list (docs/agents.md). */
export const EXECUTION_ERROR_CODES = [
  'TIMEOUT',
  'CANCELLED',
  'LLM_ERROR',
  'LLM_NOT_CONFIGURED',
  'CRAWLER_ERROR',
  'BLOCKED_URL',
  'BROWSER_UNAVAILABLE',
  'MCP_ERROR',
  'UNSUPPORTED',
  'INTERNAL',
] as const;
export const DEVICE_TYPES = ['desktop', 'mobile'] as const;
export const ANNOTATION_VISIBILITIES = ['private', 'public'] as const;
export const EXECUTION_TRIGGERS = ['standalone', 'workflow'] as const;

export const DEFAULT_MAX_URLS = 50;
export const MAX_URLS_TO_PROCESS = 500;
export const MAX_TOOL_TURNS = 16;
export const DEFAULT_TOOL_TURNS = 8;
/** Findings kept in `resultsSummary.findings`: the most severe first. */
export const SUMMARY_FINDINGS = 50;
export const MAX_EXECUTIONS_PAGE = 100;
export const MAX_COUNT_AGENT_IDS = 200;
const MAX_URL = 2048;

export const ZExecutionStatus = named('AgentExecutionStatus', z.enum(EXECUTION_STATUSES));
export const ZFindingSeverity = named('AgentFindingSeverity', z.enum(FINDING_SEVERITIES));
export const ZExecutionErrorCode = named('AgentExecutionErrorCode', z.enum(EXECUTION_ERROR_CODES));

const executionError = z.object({
  code: ZExecutionErrorCode,
  message: z.string().describe('Safe to show: never a secret, a key or a provider\'s raw answer.'),
  retryable: z.boolean().describe('Whether running it again may succeed (a timeout, a provider outage), not a configuration to fix.'),
});
export const ZExecutionError = named('AgentExecutionError', executionError);
/** The same, where it may be null (OpenAPI 3.0 has no nullable reference). */
const ZExecutionErrorOrNull = named('AgentExecutionErrorOrNull', executionError.nullable());
export type TExecutionError = z.infer<typeof ZExecutionError>;

export const ZAgentFinding = named(
  'AgentFinding',
  z.object({
    id: z.string(),
    title: z.string(),
    description: z.string(),
    severity: ZFindingSeverity,
    targetText: z.string().describe('The text on the page the finding is about; empty for a page-level finding.'),
    occurrence: z.number().int().min(1).describe('Which occurrence of `targetText` on the page, from 1.'),
    sourceUrl: z.string(),
    suggestion: z.string().describe('The replacement or the fix; may be empty.'),
    htmlSelector: z.string().describe('A CSS selector of the element, when known; may be empty.'),
    isPageLevel: z.boolean(),
    issueType: z.string().describe('e.g. `broken-link`, `accessibility`, `open-graph`, `style`, or what the agent names.'),
    confidence: z.number().int().min(0).max(100),
    commentId: z.string().nullable().describe('The suggestion thread (annotationId) it became in the document; null when it was not annotated.'),
    source: z.string().describe('What produced it: `ai`, `service:<serviceId>`, `mcp-tools`.'),
  }),
);
export type TAgentFinding = z.infer<typeof ZAgentFinding>;

const ZSeverityCounts = z.object({ critical: z.number().int(), high: z.number().int(), medium: z.number().int(), low: z.number().int(), info: z.number().int() });

export const ZTokenUsage = named(
  'AgentTokenUsage',
  z.object({ inputTokens: z.number().int(), outputTokens: z.number().int(), totalTokens: z.number().int() }),
);


export const ZAgentExecution = named(
  'AgentExecution',
  z.object({
    id: z.string(),
    agentId: z.string(),
    agentName: z.string(),
    agentVersion: z.number().int().nullable().describe('The version pinned when the run started; null for a built-in agent.'),
    metadata: z.object({ organizationId: z.string(), documentId: z.string() }),
    config: z.object({
      seedUrl: z.string(),
      crossPageExecute: z.boolean(),
      maxUrlsToProcess: z.number().int(),
      deviceType: z.enum(DEVICE_TYPES),
      annotationVisibility: z.enum(ANNOTATION_VISIBILITIES),
    }),
    status: ZExecutionStatus,
    startedAt: z.number().int(),
    completedAt: z.number().int().nullable(),
    durationMs: z.number().int().nullable(),
    error: ZExecutionErrorOrNull,
    trigger: z.enum(EXECUTION_TRIGGERS),
    workflowExecutionId: z.string().nullable(),
    previousExecutionId: z.string().nullable().describe('The run of the same agent on the same document before this one.'),
    ranBy: ZUserRefOrNull.describe('Who started the run, as Run Agent was told; null when not told, or once that user was erased.'),
    resultsSummary: z.object({
      totalFindings: z.number().int(),
      totalAnnotationsCreated: z.number().int(),
      urlsProcessed: z.number().int(),
      urlsWithFindings: z.number().int(),
      urlsErrored: z.number().int(),
      erroredUrls: z.array(z.string()),
      severityCounts: ZSeverityCounts,
      findings: z.array(ZAgentFinding).describe(`The ${SUMMARY_FINDINGS} most severe findings.`),
      summary: z.string(),
    }),
    llmModel: z.string().nullable(),
    tokenUsage: ZTokenUsage,
  }),
);
export type TAgentExecution = z.infer<typeof ZAgentExecution>;

export const ZAgentExecutionResult = named(
  'AgentExecutionResult',
  z.object({
    id: z.string(),
    url: z.string(),
    agentResult: z.object({
      status: z.enum(['passed', 'failed', 'error', 'skipped']),
      findings: z.array(ZAgentFinding),
      error: ZExecutionError.optional(),
    }),
    findingCount: z.number().int(),
    processedAt: z.number().int(),
  }),
);
export type TAgentExecutionResult = z.infer<typeof ZAgentExecutionResult>;

const ZUrl = z.string().min(1).max(MAX_URL).url();
const ZExecutionId = ZId.describe('An execution ID, as Run Agent returned it.');

export const ZRunAgentData = z
  .object({
    agentId: ZAgentId,
    url: ZUrl.describe('The page to run on (http or https).'),
    organizationId: ZId,
    documentId: ZId.describe('The document the findings become suggestion threads in; it must exist.'),
    crossPageExecute: z.boolean().optional().describe('Follow same-origin links from `url`, honouring robots.txt; default false.'),
    maxUrlsToProcess: z.number().int().min(1).max(MAX_URLS_TO_PROCESS).optional().describe(`Pages at most, the seed included; default ${DEFAULT_MAX_URLS}.`),
    deviceType: z.enum(DEVICE_TYPES).optional().describe('Viewport and user agent of the fetches and the browser; default `desktop`.'),
    annotationVisibility: z.enum(ANNOTATION_VISIBILITIES).optional().describe('`private` (default): the suggestion threads are visible to the organization; `public`: to anyone who can read the document.'),
    trigger: z.enum(EXECUTION_TRIGGERS).optional().describe('Default `standalone`.'),
    workflowExecutionId: ZId.optional(),
    ranBy: ZUserRef.optional(),
    userContext: z.record(z.union([z.string().max(10_000), z.number().min(-MAX_DEFAULT_NUMBER).max(MAX_DEFAULT_NUMBER), z.boolean()])).optional().describe("Values for the agent's `input.userContextFields`, checked against their types and `required`."),
    aiConfig: z
      .object({
        provider: z.enum(['openai', 'anthropic', 'gemini']).optional(),
        model: z.string().min(1).max(200).optional(),
        maxToolTurns: z.number().int().min(1).max(MAX_TOOL_TURNS).optional().describe(`\`mcp-tools\`: rounds of tool calls the model gets on a page; default the agent's \`execution.aiConfig.maxToolTurns\`, else ${DEFAULT_TOOL_TURNS}.`),
      })
      .strict()
      .optional()
      .describe("Overrides the agent's own `execution.aiConfig` for this run."),
  })
  .strict();

export const runAgent = operation({
  path: '/v2/agents/execution/run',
  summary: 'Run Agent',
  description: `Starts a run of the agent on \`url\` for the document and answers at once with its \`executionId\`; the run goes on in the background (a durable job: a restart resumes it). Read it with Get Agent Execution. NOT_FOUND for an unknown agent, organization or document; FAILED_PRECONDITION for a disabled agent, a \`browser-agent\` agent (not run by this server yet), or an \`mcp-tools\` agent with more than 5 MCP servers in use; INVALID_ARGUMENT for \`userContext\` that does not match the agent's \`input.userContextFields\`; ALREADY_EXISTS while the same agent runs on the same document; RESOURCE_EXHAUSTED past the application's limit of concurrent runs (AGENT_MAX_CONCURRENT_RUNS).`,
  data: ZRunAgentData,
  result: resultOf(z.object({ executionId: z.string() })),
  example: {
    data: { agentId: 'broken-links', url: 'https://www.example.com/q3-plan', organizationId: 'org-acme', documentId: 'doc-q3-plan' },
    result: { status: 'success', message: 'Agent execution started.', data: { executionId: 'aex_01JDQ3M8X9T2V5B8A7C4E6G0RN' } },
  },
});

/** The run the examples show: a built-in agent's run that found nothing. */
export const EXAMPLE_EXECUTION: TAgentExecution = {
  id: 'aex_01JDQ3M8X9T2V5B8A7C4E6G0RN',
  agentId: 'broken-links',
  agentName: 'Broken Links',
  agentVersion: null,
  metadata: { organizationId: 'org-acme', documentId: 'doc-q3-plan' },
  config: { seedUrl: 'https://www.example.com/q3-plan', crossPageExecute: false, maxUrlsToProcess: 50, deviceType: 'desktop', annotationVisibility: 'private' },
  status: 'passed',
  startedAt: 1764316800000,
  completedAt: 1764316802400,
  durationMs: 2400,
  error: null,
  trigger: 'standalone',
  workflowExecutionId: null,
  previousExecutionId: null,
  ranBy: null,
  resultsSummary: {
    totalFindings: 0,
    totalAnnotationsCreated: 0,
    urlsProcessed: 1,
    urlsWithFindings: 0,
    urlsErrored: 0,
    erroredUrls: [],
    severityCounts: { critical: 0, high: 0, medium: 0, low: 0, info: 0 },
    findings: [],
    summary: '1 page processed, no findings.',
  },
  llmModel: null,
  tokenUsage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
};

export const getAgentExecution = operation({
  path: '/v2/agents/execution/get',
  summary: 'Get Agent Execution',
  description: 'One run with its status, summary and token usage; with `includeResults`, one row per page processed. NOT_FOUND for an unknown execution (another application\'s included).',
  data: z.object({ executionId: ZExecutionId, includeResults: z.boolean().optional() }).strict(),
  result: resultOf(z.object({ execution: ZAgentExecution, results: z.array(ZAgentExecutionResult).optional() })),
  example: {
    data: { executionId: 'aex_01JDQ3M8X9T2V5B8A7C4E6G0RN' },
    result: {
      status: 'success',
      message: 'Agent execution retrieved successfully.',
      data: {
        execution: EXAMPLE_EXECUTION,
      },
    },
  },
});

export const listAgentExecutions = operation({
  path: '/v2/agents/execution/list',
  summary: 'List Agent Executions',
  description: `Runs newest first, by \`agentId\`, by \`organizationId\` and \`documentId\`, or by all three; any other combination is INVALID_ARGUMENT. \`pageSize\` 1–${MAX_EXECUTIONS_PAGE} (default 20).`,
  data: z
    .object({
      agentId: ZAgentId.optional(),
      organizationId: ZId.optional(),
      documentId: ZId.optional(),
      pageSize: z.number().int().min(1).max(MAX_EXECUTIONS_PAGE).optional(),
      pageToken: ZPageToken,
    })
    .strict(),
  result: pagedResultOf(ZAgentExecution),
  example: {
    data: { agentId: 'broken-links', pageSize: 20 },
    result: { status: 'success', message: 'Agent executions retrieved successfully.', data: [], pageToken: null },
  },
});

export const countAgentExecutions = operation({
  path: '/v2/agents/execution/count',
  summary: 'Count Agent Executions',
  description: `With \`agentIds\` (1–${MAX_COUNT_AGENT_IDS}): \`{counts}\`, the runs of each agent (0 for an agent that never ran or is unknown); without: \`{total}\`, every run of the application. \`status\` counts only runs in that status.`,
  data: z
    .object({
      agentIds: z.array(ZAgentId).min(1).max(MAX_COUNT_AGENT_IDS).optional(),
      status: ZExecutionStatus.optional(),
    })
    .strict(),
  result: resultOf(z.union([z.object({ counts: z.record(z.number().int()) }).strict(), z.object({ total: z.number().int() }).strict()])),
  example: {
    data: { agentIds: ['broken-links'], status: 'failed' },
    result: { status: 'success', message: 'Agent executions counted.', data: { counts: { 'broken-links': 3 } } },
  },
});

export const cancelAgentExecution = operation({
  path: '/v2/agents/execution/cancel',
  summary: 'Cancel Agent Execution',
  description: 'Cancels a running run: it ends `cancelled` with error code CANCELLED, and its fetches and provider calls stop. A run that already ended is FAILED_PRECONDITION; NOT_FOUND for an unknown execution. Result: the execution as it now reads.',
  data: z.object({ executionId: ZExecutionId }).strict(),
  result: resultOf(z.object({ execution: ZAgentExecution })),
  example: {
    data: { executionId: 'aex_01JDQ3M8X9T2V5B8A7C4E6G0RN' },
    result: {
      status: 'success',
      message: 'Agent execution cancelled.',
      data: {
        execution: {
          ...EXAMPLE_EXECUTION,
          status: 'cancelled',
          completedAt: 1764316801000,
          durationMs: 1000,
          error: { code: 'CANCELLED', message: 'cancelled by a Cancel Agent Execution call', retryable: true },
          resultsSummary: { ...EXAMPLE_EXECUTION.resultsSummary, urlsProcessed: 0, summary: 'Cancelled before any page was processed.' },
        },
      },
    },
  },
});

// ─── Analytics of runs ───────────────────────────────────────────────────

const usage = {
  executions: z.number().int(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  totalTokens: z.number().int(),
};
export const ZAgentUsage = named('AgentUsage', z.object(usage));

export const getAgentAnalytics = operation({
  path: '/v2/agents/analytics/get',
  summary: 'Agent Analytics',
  description:
    'Runs and the tokens they used, from the runs themselves: `allTime` (every run the filters keep), `byYear`, `byMonth` (oldest first; months in UTC), `byModel` (the model a run used; runs without one, such as built-in services, under `none`) and `executions` (per status). Filters: `agentId`, `model`, and a period: `year`, or `year` and `month` (`month` alone is INVALID_ARGUMENT). Another application\'s runs never count.',
  data: z
    .object({
      agentId: ZAgentId.optional(),
      year: z.number().int().min(2000).max(9999).optional(),
      month: z.number().int().min(1).max(12).optional(),
      model: z.string().min(1).max(200).optional(),
    })
    .strict(),
  result: resultOf(
    z.object({
      allTime: ZAgentUsage,
      byYear: z.array(z.object({ year: z.number().int(), ...usage })),
      byMonth: z.array(z.object({ year: z.number().int(), month: z.number().int(), ...usage })),
      byModel: z.array(z.object({ model: z.string(), ...usage })),
      executions: z.object({ total: z.number().int(), byStatus: z.object(Object.fromEntries(EXECUTION_STATUSES.map((status) => [status, z.number().int()])) as Record<(typeof EXECUTION_STATUSES)[number], z.ZodNumber>) }),
    }),
  ),
  example: {
    data: { agentId: 'agt_3f9a2c71d4e8b6051a7c9e2d', year: 2026 },
    result: {
      status: 'success',
      message: 'Agent analytics retrieved successfully.',
      data: {
        allTime: { executions: 12, inputTokens: 48200, outputTokens: 3100, totalTokens: 51300 },
        byYear: [{ year: 2026, executions: 12, inputTokens: 48200, outputTokens: 3100, totalTokens: 51300 }],
        byMonth: [
          { year: 2026, month: 10, executions: 5, inputTokens: 20100, outputTokens: 1300, totalTokens: 21400 },
          { year: 2026, month: 11, executions: 7, inputTokens: 28100, outputTokens: 1800, totalTokens: 29900 },
        ],
        byModel: [{ model: 'gpt-4o-mini', executions: 12, inputTokens: 48200, outputTokens: 3100, totalTokens: 51300 }],
        executions: { total: 12, byStatus: { running: 0, passed: 7, failed: 4, partial: 0, error: 1, skipped: 0, cancelled: 0 } },
      },
    },
  },
});
