import { z } from 'zod';
import type { DataOf } from '../../../../contract/common/envelope.js';
import type { enhanceAgentPrompt, refineAgentPrompt, validateAgentPrompt } from '../../../../contract/agents/prompts.js';
import { AppError, failedPrecondition } from '../../../lib/app-error.js';
import type { Caller } from '../../../platform/caller.js';
import type { AiService, CompletionOutcome } from '../../ai/service.js';
import { DEFAULT_MODELS } from '../run/plan.js';

const ENHANCE = `You improve the instructions of an AI agent that reviews a web page and reports findings (each with a title, the exact text it is about, a severity and a suggestion). Rewrite the instructions so that they are specific, checkable on one page, and complete, keeping their intent. Answer with the new instructions only, no preamble.`;
const REFINE = `You edit the instructions of an AI agent that reviews a web page and reports findings. Change them as the feedback asks and nothing else. Answer with the new instructions only, no preamble.`;
const VALIDATE = `You check the instructions of an AI agent that reviews a web page and reports findings. List what would make its findings unreliable: vague criteria, contradictions, asks that cannot be done from one page's content. Answer with JSON only: {"problems": [{"severity": "error" | "warning", "message": string}]}; an empty list when they are fine.`;

const ZValidation = z.object({ problems: z.array(z.object({ severity: z.enum(['error', 'warning']).catch('warning'), message: z.string().min(1).max(2000) })).max(50) });

/** Enhance, Refine and Validate Agent Prompt: one completion each, through the AI domain (the application's key). */
export function createPromptTools(deps: { ai: Pick<AiService, 'complete'> }) {
  async function ask(app: Caller, model: string | undefined, prompt: string, text: string): Promise<string> {
    const outcome: CompletionOutcome = await deps.ai.complete(app, { model: model ?? DEFAULT_MODELS.openai, prompt, text });
    if (outcome.success) return outcome.text.trim();
    // A configuration to fix is not a retry; a provider's trouble is.
    if (outcome.status === 'no-key' || outcome.status === 'key-unreadable' || outcome.status === 'unknown-prefix') throw failedPrecondition(outcome.error);
    throw new AppError('UNAVAILABLE', outcome.error);
  }

  return {
    async enhanceAgentPrompt(app: Caller, input: DataOf<typeof enhanceAgentPrompt>) {
      const text = input.purpose === undefined ? input.instructions : `Purpose of the agent: ${input.purpose}\n\nInstructions:\n${input.instructions}`;
      return { instructions: await ask(app, input.model, ENHANCE, text) };
    },
    async refineAgentPrompt(app: Caller, input: DataOf<typeof refineAgentPrompt>) {
      return { instructions: await ask(app, input.model, REFINE, `Instructions:\n${input.instructions}\n\nFeedback:\n${input.feedback}`) };
    },
    async validateAgentPrompt(app: Caller, input: DataOf<typeof validateAgentPrompt>) {
      const answer = await ask(app, input.model, VALIDATE, input.instructions);
      const body = (/```(?:json)?\s*([\s\S]*?)```/.exec(answer)?.[1] ?? answer).trim();
      let parsed: z.infer<typeof ZValidation>;
      try {
        parsed = ZValidation.parse(JSON.parse(body));
      } catch {
        throw new AppError('UNAVAILABLE', 'the model did not answer with a list of problems: retry');
      }
      return { valid: !parsed.problems.some((problem) => problem.severity === 'error'), problems: parsed.problems };
    },
  };
}

export type PromptTools = ReturnType<typeof createPromptTools>;
