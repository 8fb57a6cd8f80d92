import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { AI_MODEL_PREFIXES, PROMPT_IN_USER_MESSAGE_PREFIXES, type AiProviderName } from '../../../contract/ai/ask-ai.js';
import type { AiConfig } from '../../config.js';

export type { AiProviderName };

/** The provider a model name belongs to, by its prefix (operator interface); undefined for any other name. */
export function providerOf(model: string): AiProviderName | undefined {
  for (const [provider, prefixes] of Object.entries(AI_MODEL_PREFIXES) as [AiProviderName, readonly string[]][]) {
    if (prefixes.some((prefix) => model.startsWith(prefix))) return provider;
  }
  return undefined;
}

/** "gpt-, o1-, … (openai), claude- (anthropic), gemini- (gemini)": for the unknown-prefix failure. */
export function supportedPrefixes(): string {
  return Object.entries(AI_MODEL_PREFIXES)
    .map(([provider, prefixes]) => `${prefixes.join(', ')} (${provider})`)
    .join('; ');
}

export interface Completion {
  model: string;
  prompt: string;
  text: string;
}

/** What a provider answered: its text, or why there is none although the call succeeded. */
export type Answer = { text: string; usage?: Usage } | { refusal: string } | { empty: true };

/** Tokens the provider says the call used (agent runs keep them; Ask AI does not return them). */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

/**
 * The reasoning models of these prefixes take no system message (the first
 * ones refused it outright), so the specification puts the prompt before the
 * text in the one user message. A blank line keeps the instruction a
 * paragraph of its own, whatever the text starts with.
 */
export function messagesFor(input: Completion): OpenAI.Chat.ChatCompletionMessageParam[] {
  if (PROMPT_IN_USER_MESSAGE_PREFIXES.some((prefix) => input.model.startsWith(prefix))) {
    return [{ role: 'user', content: `${input.prompt}\n\n${input.text}` }];
  }
  return [
    { role: 'system', content: input.prompt },
    { role: 'user', content: input.text },
  ];
}

/**
 * One chat completion per provider family, each on a client made for this
 * call alone (the key is the calling application's, opened just before).
 *
 * Every client option that the SDKs would otherwise read from the process
 * environment is passed: the base URL and the key, and for OpenAI the
 * organization, project and admin key, so that an operator's own OPENAI_*
 * variables never ride along on an application's request (OPENAI_ADMIN_KEY
 * would even replace its Authorization header). `maxRetries: 0`: a retry
 * would bill the application again and overrun the one deadline of the call;
 * the caller decides whether to ask again. `logLevel: 'off'`: the SDKs'
 * debug logging (OPENAI_LOG / ANTHROPIC_LOG) would print the user's text.
 */
export function createProviderCalls(config: AiConfig) {
  const openAiCompatible = (baseURL: string) => async (apiKey: string, input: Completion, signal: AbortSignal): Promise<Answer> => {
    const { OpenAI } = await loadSdks();
    const client = new OpenAI({
      apiKey,
      baseURL,
      organization: null,
      project: null,
      adminAPIKey: null,
      maxRetries: 0,
      timeout: config.timeoutMs,
      logLevel: 'off',
    });
    // No max-token field: each model's own default output limit applies (the field's name even differs between model families).
    const completion = await client.chat.completions.create({ model: input.model, messages: messagesFor(input) }, { signal });
    const message = (completion as Partial<OpenAI.Chat.ChatCompletion>).choices?.[0]?.message;
    const usage = (completion as Partial<OpenAI.Chat.ChatCompletion>).usage;
    if (typeof message?.content === 'string' && message.content.trim() !== '') {
      return { text: message.content, ...(usage ? { usage: { inputTokens: usage.prompt_tokens ?? 0, outputTokens: usage.completion_tokens ?? 0 } } : {}) };
    }
    if (typeof message?.refusal === 'string' && message.refusal.trim() !== '') return { refusal: message.refusal };
    return { empty: true };
  };

  const anthropic = async (apiKey: string, input: Completion, signal: AbortSignal): Promise<Answer> => {
    // openTelemetry off: the SDK would otherwise follow ANTHROPIC_OPEN_TELEMETRY* and may put the user's text into trace spans.
    const { Anthropic } = await loadSdks();
    const client = new Anthropic({ apiKey, baseURL: config.anthropicBaseUrl, maxRetries: 0, timeout: config.timeoutMs, logLevel: 'off', openTelemetry: false });
    const message = await client.messages.create(
      {
        model: input.model,
        // Required by the Messages API; the operator's AI_MAX_OUTPUT_TOKENS.
        max_tokens: config.maxOutputTokens,
        system: input.prompt,
        messages: [{ role: 'user', content: input.text }],
      },
      { signal },
    );
    const blocks = Array.isArray((message as Partial<Anthropic.Message>).content) ? message.content : [];
    const text = blocks.map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : '')).join('');
    const usage = (message as Partial<Anthropic.Message>).usage;
    if (text.trim() === '') return { empty: true };
    return { text, ...(usage ? { usage: { inputTokens: usage.input_tokens ?? 0, outputTokens: usage.output_tokens ?? 0 } } : {}) };
  };

  const calls: Record<AiProviderName, (apiKey: string, input: Completion, signal: AbortSignal) => Promise<Answer>> = {
    openai: openAiCompatible(config.openaiBaseUrl),
    anthropic,
    gemini: openAiCompatible(config.geminiBaseUrl),
  };
  return calls;
}

export type ProviderCalls = ReturnType<typeof createProviderCalls>;

let sdks: Promise<{ OpenAI: typeof OpenAI; Anthropic: typeof Anthropic }> | undefined;

/**
 * The provider SDKs, imported on the first Ask AI call rather than at start:
 * together they add ~30 MB to the resident memory of a process that may never
 * call a provider.
 */
export function loadSdks(): Promise<{ OpenAI: typeof OpenAI; Anthropic: typeof Anthropic }> {
  sdks ??= Promise.all([import('openai'), import('@anthropic-ai/sdk')]).then(([openai, anthropic]) => ({ OpenAI: openai.default, Anthropic: anthropic.default }));
  return sdks;
}
