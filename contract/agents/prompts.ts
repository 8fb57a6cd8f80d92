import { z } from 'zod';
import { operation, resultOf } from '../common/envelope.js';
import { MAX_INSTRUCTIONS } from './schemas.js';

/**
 * Prompt tools: an agent's instructions improved, refined after feedback, or
 * checked, by the application's AI provider (its key, as Ask AI and agent
 * runs use it). The shapes are this service's; see docs/agents.md.
 */

const ZModel = z.string().min(1).max(200).optional().describe('The model to ask; default `gpt-4o-mini` (the provider follows from its prefix, as for Ask AI).');
const ZInstructions = z.string().min(1).max(MAX_INSTRUCTIONS);
const failures =
  'FAILED_PRECONDITION when the application has no key for the model\'s provider (or it cannot be opened) or the model names no known provider; UNAVAILABLE when the provider fails or does not answer in time (retry later).';

export const enhanceAgentPrompt = operation({
  path: '/v2/agents/prompt/enhance',
  summary: 'Enhance Agent Prompt',
  description: `Rewrites an agent's instructions to be specific, checkable and complete, keeping their intent; \`purpose\` says what the agent is for. Result: \`{instructions}\`. ${failures}`,
  rateLimit: 'ai',
  data: z.object({ instructions: ZInstructions, purpose: z.string().max(2000).optional(), model: ZModel }).strict(),
  result: resultOf(z.object({ instructions: z.string() })),
  example: {
    data: { instructions: 'check spelling', purpose: 'Proofreads blog posts before they go live.' },
    result: {
      status: 'success',
      message: 'Prompt enhanced.',
      data: { instructions: 'Find every spelling mistake in the page\'s body text. For each, quote the misspelt word exactly as written and give the corrected spelling. Ignore product names and code.' },
    },
  },
});

export const refineAgentPrompt = operation({
  path: '/v2/agents/prompt/refine',
  summary: 'Refine Agent Prompt',
  description: `Changes an agent's instructions as \`feedback\` asks, and nothing else. Result: \`{instructions}\`. ${failures}`,
  rateLimit: 'ai',
  data: z.object({ instructions: ZInstructions, feedback: z.string().min(1).max(10_000), model: ZModel }).strict(),
  result: resultOf(z.object({ instructions: z.string() })),
  example: {
    data: { instructions: 'Find every spelling mistake in the page\'s body text.', feedback: 'Also check the headings.' },
    result: { status: 'success', message: 'Prompt refined.', data: { instructions: 'Find every spelling mistake in the page\'s headings and body text.' } },
  },
});

export const validateAgentPrompt = operation({
  path: '/v2/agents/prompt/validate',
  summary: 'Validate Agent Prompt',
  description: `Checks an agent's instructions for what would make its findings unreliable (vague criteria, contradictions, asks the agent cannot do on a page). Result: \`{valid, problems}\`, \`valid\` when no problem is an \`error\`. ${failures}`,
  rateLimit: 'ai',
  data: z.object({ instructions: ZInstructions, model: ZModel }).strict(),
  result: resultOf(
    z.object({
      valid: z.boolean(),
      problems: z.array(z.object({ severity: z.enum(['error', 'warning']), message: z.string() })),
    }),
  ),
  example: {
    data: { instructions: 'Make the page better.' },
    result: {
      status: 'success',
      message: 'Prompt validated.',
      data: { valid: false, problems: [{ severity: 'error', message: 'The instructions do not say what counts as a finding.' }] },
    },
  },
});
