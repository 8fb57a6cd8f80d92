import { z } from 'zod';
import { FINDING_SEVERITIES, type TExecutionError } from '../../../../contract/agents/executions.js';
import type { CompletionOutcome } from '../../ai/service.js';
import type { Usage } from '../../ai/providers.js';
import type { DraftFinding } from './findings.js';

/**
 * The `ai` execution strategy: the agent's instructions, the gathered
 * context and the run's user context go to the model, which must answer with
 * findings as JSON of the shape below. A malformed answer is asked again
 * once, with what was wrong; a second one ends the page LLM_ERROR.
 */

/** Context text given to the model at most (characters): a page's text can be megabytes. */
export const MAX_PROMPT_CONTEXT = 60_000;

const ZModelFinding = z.object({
  title: z.string().min(1).max(500),
  description: z.string().max(5000).default(''),
  severity: z.enum(FINDING_SEVERITIES).catch('medium'),
  targetText: z.string().max(2000).default(''),
  occurrence: z.number().int().min(1).max(10_000).catch(1).default(1),
  suggestion: z.string().max(5000).default(''),
  htmlSelector: z.string().max(1000).default(''),
  isPageLevel: z.boolean().optional(),
  issueType: z.string().min(1).max(100).catch('general').default('general'),
  confidence: z.number().min(0).max(100).catch(50).default(50),
});
const ZModelAnswer = z.object({ findings: z.array(ZModelFinding).max(500) });

export const ANSWER_FORMAT = `Answer with JSON only, no prose, of this shape:
{"findings": [{"title": string, "description": string, "severity": "critical" | "high" | "medium" | "low" | "info", "targetText": the exact text on the page the finding is about ("" for the whole page), "occurrence": which occurrence of targetText (from 1), "suggestion": the replacement text or fix, "htmlSelector": a CSS selector of the element or "", "issueType": a short kebab-case category, "confidence": 0-100}]}
An empty list means the page passes.`;

export interface AiPage {
  url: string;
  /** Gathered context, by strategy name (already text). */
  context: Record<string, string>;
}

export interface AiRequest {
  model: string;
  instructions: string;
  userContext: Record<string, string | number | boolean>;
  page: AiPage;
}

export type AiOutcome = { findings: DraftFinding[]; usage: Usage } | { error: TExecutionError; usage: Usage };

/** The prompt's text part: the page, its context and the user's values, cut to MAX_PROMPT_CONTEXT. */
export function promptText(request: AiRequest): string {
  const parts = [`Page: ${request.page.url}`];
  const values = Object.entries(request.userContext);
  if (values.length > 0) parts.push(`User context:\n${values.map(([key, value]) => `- ${key}: ${String(value)}`).join('\n')}`);
  let room = MAX_PROMPT_CONTEXT;
  for (const [name, text] of Object.entries(request.page.context)) {
    if (room <= 0) break;
    const cut = text.length > room ? `${text.slice(0, room)}\n[cut]` : text;
    room -= cut.length;
    parts.push(`## ${name}\n${cut}`);
  }
  return parts.join('\n\n');
}

/** The findings of a model's answer, or why it is not one: JSON (a fenced block allowed) of ZModelAnswer's shape. */
export function parseAnswer(text: string, url: string): { findings: DraftFinding[] } | { problem: string } {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  const body = (fenced?.[1] ?? text).trim();
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { problem: 'the answer is not JSON' };
  }
  if (Array.isArray(value)) value = { findings: value };
  const parsed = ZModelAnswer.safeParse(value);
  if (!parsed.success) return { problem: `the answer does not match the shape: ${parsed.error.issues[0]?.path.join('.') ?? ''} ${parsed.error.issues[0]?.message ?? ''}`.trim() };
  return {
    findings: parsed.data.findings.map((finding) => ({
      title: finding.title,
      description: finding.description,
      severity: finding.severity,
      targetText: finding.targetText,
      occurrence: finding.occurrence,
      sourceUrl: url,
      suggestion: finding.suggestion,
      htmlSelector: finding.htmlSelector,
      isPageLevel: finding.isPageLevel ?? finding.targetText === '',
      issueType: finding.issueType,
      confidence: Math.round(finding.confidence),
      source: 'ai',
    })),
  };
}

/** Runs the model on one page: one retry on a malformed answer. `complete` is the AI domain's call (the application's key). */
export async function runAi(request: AiRequest, complete: (prompt: string, text: string) => Promise<CompletionOutcome>): Promise<AiOutcome> {
  const usage: Usage = { inputTokens: 0, outputTokens: 0 };
  const prompt = `${request.instructions}\n\n${ANSWER_FORMAT}`;
  let text = promptText(request);
  for (let attempt = 1; attempt <= 2; attempt++) {
    const outcome = await complete(prompt, text);
    if (!outcome.success) return { error: providerError(outcome), usage };
    usage.inputTokens += outcome.usage.inputTokens;
    usage.outputTokens += outcome.usage.outputTokens;
    const answer = parseAnswer(outcome.text, request.page.url);
    if ('findings' in answer) return { findings: answer.findings, usage };
    if (attempt === 2) return { error: { code: 'LLM_ERROR', message: `the model's answer was malformed twice (${answer.problem})`, retryable: true }, usage };
    text = `${text}\n\nYour previous answer was not usable: ${answer.problem}. ${ANSWER_FORMAT}`;
  }
  throw new Error('unreachable');
}

/** A provider's failure as a run's error: the AI domain's message (never the key), and whether trying again may help. */
export function providerError(outcome: Extract<CompletionOutcome, { success: false }>): TExecutionError {
  const { status, error } = outcome;
  if (status === 'no-key' || status === 'key-unreadable' || status === 'unknown-prefix') return { code: 'LLM_NOT_CONFIGURED', message: error, retryable: false };
  if (status === 'timeout') return { code: 'TIMEOUT', message: error, retryable: true };
  if (status === 'cancelled') return { code: 'CANCELLED', message: error, retryable: true };
  const retryable = typeof status !== 'number' || status === 429 || status >= 500;
  return { code: 'LLM_ERROR', message: error, retryable };
}
