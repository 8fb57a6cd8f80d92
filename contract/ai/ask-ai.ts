import { z } from 'zod';
import { operation } from '../common/envelope.js';
import { named } from '../common/named.js';

/** Longer than any provider's model name; a guard, not a catalogue. */
export const MAX_MODEL_LENGTH = 128;
/** An instruction, not a document: 32,000 characters is far beyond any useful prompt. */
export const MAX_PROMPT_LENGTH = 32_000;
/**
 * About 25,000 tokens of English: inside every supported model's context
 * window, and it keeps one request's cost (and our memory per request)
 * bounded. Longer texts are split by the caller.
 */
export const MAX_TEXT_LENGTH = 100_000;

/** How each provider is chosen: the model name's prefix (operator interface, "Model-name prefixes"). Case-sensitive, as the providers' model IDs are. */
export const AI_MODEL_PREFIXES = {
  openai: ['gpt-', 'o1-', 'o3-', 'o4-', 'chatgpt-'],
  anthropic: ['claude-'],
  gemini: ['gemini-'],
} as const;
export type AiProviderName = keyof typeof AI_MODEL_PREFIXES;

/** Models that take no system message: the prompt and the text go in one user message, separated by a blank line. */
export const PROMPT_IN_USER_MESSAGE_PREFIXES = ['o1-', 'o3-', 'o4-'] as const;

export const ZAskAiData = z
  .object({
    model: z
      .string()
      .min(1)
      .max(MAX_MODEL_LENGTH)
      .describe('The provider\'s model name, e.g. `gpt-4o-mini`, `o3-mini`, `claude-haiku-4-5`, `gemini-2.5-flash`; its prefix selects the provider.'),
    prompt: z.string().min(1).max(MAX_PROMPT_LENGTH).describe('The instruction: how to process `text`.'),
    text: z.string().min(1).max(MAX_TEXT_LENGTH).describe('The input text.'),
  })
  .strict();

export const ZAskAiOutcome = named(
  'AskAiOutcome',
  z
    .union([
      z.object({ success: z.literal(true), text: z.string().describe('The model\'s answer.') }),
      z.object({
        success: z.literal(false),
        error: z.string().describe('Why the provider gave no answer: no key configured, the key refused, a provider error, a timeout, an unknown model prefix.'),
      }),
    ])
    .describe('The answer, or why there is none. Never carries the provider key.'),
);
export type TAskAiOutcome = z.infer<typeof ZAskAiOutcome>;

export const askAi = operation({
  path: '/v2/rewriter/ask-ai',
  summary: 'Ask AI',
  description: [
    `Sends \`prompt\` and \`text\` to the model named by \`model\` with the calling application's provider key (set with the operator CLI \`ai-key set\`) and returns its answer.`,
    'The provider comes from the prefix: `gpt-`, `o1-`, `o3-`, `o4-`, `chatgpt-` OpenAI; `claude-` Anthropic; `gemini-` Google Gemini (its OpenAI-compatible endpoint).',
    'For `o1-`, `o3-`, `o4-` models the prompt and the text go in one user message (`prompt`, a blank line, `text`); otherwise the prompt is the system message and the text the user message.',
    `Limits: \`model\` 1 to ${MAX_MODEL_LENGTH} characters, \`prompt\` 1 to ${MAX_PROMPT_LENGTH}, \`text\` 1 to ${MAX_TEXT_LENGTH}.`,
    'Result: `{success: true, text}`, or `{success: false, error}` when the provider gave no answer (no key configured, the key refused, a provider error, a timeout, no answer text, an unknown model prefix); the result has no `status` or `message`, as the specification says.',
    'Invalid input is INVALID_ARGUMENT. Rate-limited per application by the `ai` tier as well as the standard one (RESOURCE_EXHAUSTED).',
  ].join(' '),
  rateLimit: 'ai',
  data: ZAskAiData,
  result: z.object({ result: ZAskAiOutcome }),
  example: {
    data: {
      model: 'gpt-4o-mini',
      prompt: 'Rewrite the text as a short, friendly team update. Fix spelling and capitalization; keep every fact.',
      text: 'hey all - q3 plan is mostly done, budget table still needs numbers from finance, pls review by fri',
    },
    result: {
      success: true,
      text: 'Hi everyone, the Q3 plan is almost done. The budget table still needs the numbers from Finance, so please review it by Friday.',
    },
  },
});
