import { FINDING_SEVERITIES, SUMMARY_FINDINGS, type TAgentExecution, type TAgentExecutionResult, type TAgentFinding, type TExecutionError } from '../../../../contract/agents/executions.js';
import type { ExecutionRow, ResultRow } from '../repos/runs.js';

/** What a run has found so far, stored as the row's `summary` (JSON) and read back as `resultsSummary`. */
export type Summary = TAgentExecution['resultsSummary'];

export const emptySummary = (text = 'Running.'): Summary => ({
  totalFindings: 0,
  totalAnnotationsCreated: 0,
  urlsProcessed: 0,
  urlsWithFindings: 0,
  urlsErrored: 0,
  erroredUrls: [],
  severityCounts: { critical: 0, high: 0, medium: 0, low: 0, info: 0 },
  findings: [],
  summary: text,
});

const rank = new Map(FINDING_SEVERITIES.map((severity, i) => [severity, i]));

/** The most severe findings first (then in the order found): what `resultsSummary.findings` keeps. */
export function topFindings(findings: readonly TAgentFinding[]): TAgentFinding[] {
  return [...findings].sort((a, b) => rank.get(a.severity)! - rank.get(b.severity)!).slice(0, SUMMARY_FINDINGS);
}

const parsed = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

/** A stored run as the operations return it. */
export function toExecution(row: ExecutionRow): TAgentExecution {
  const completedAt = row.completedAt === null ? null : Number(row.completedAt);
  return {
    id: row.id,
    agentId: row.agentId,
    agentName: row.agentName,
    agentVersion: row.agentVersion,
    metadata: { organizationId: row.organizationId, documentId: row.documentId },
    config: {
      seedUrl: row.seedUrl,
      crossPageExecute: row.crossPageExecute,
      maxUrlsToProcess: row.maxUrls,
      deviceType: row.deviceType as TAgentExecution['config']['deviceType'],
      annotationVisibility: row.visibility as TAgentExecution['config']['annotationVisibility'],
    },
    status: row.status as TAgentExecution['status'],
    startedAt: Number(row.startedAt),
    completedAt,
    durationMs: completedAt === null ? null : completedAt - Number(row.startedAt),
    error: parsed<TExecutionError>(row.error),
    trigger: row.trigger as TAgentExecution['trigger'],
    workflowExecutionId: row.workflowExecutionId,
    previousExecutionId: row.previousExecutionId,
    ranBy: parsed<TAgentExecution['ranBy']>(row.ranBy),
    resultsSummary: JSON.parse(row.summary) as Summary,
    llmModel: row.llmModel,
    tokenUsage: { inputTokens: row.inputTokens, outputTokens: row.outputTokens, totalTokens: row.inputTokens + row.outputTokens },
  };
}

export function toResult(row: ResultRow): TAgentExecutionResult {
  const error = parsed<TExecutionError>(row.error);
  return {
    id: row.id,
    url: row.url,
    agentResult: {
      status: row.status as TAgentExecutionResult['agentResult']['status'],
      findings: JSON.parse(row.findings) as TAgentFinding[],
      ...(error === null ? {} : { error }),
    },
    findingCount: row.findingCount,
    processedAt: Number(row.processedAt),
  };
}
