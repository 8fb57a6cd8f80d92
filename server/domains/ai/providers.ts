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

/** A tool the model may call: its name in the providers' charset (`[A-Za-z0-9_-]`, at most 64), and a JSON Schema of its arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** A call the model asked for; `arguments` is null when the model's arguments are not a JSON object. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown> | null;
}

/** A conversation with tools, in one shape for every provider (each call maps it to its own). */
export type ChatMessage =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; toolCalls: ToolCall[] }
  | { role: 'tool'; results: Array<{ callId: string; text: string; isError: boolean }> };

export interface ToolChat {
  model: string;
  system: string;
  messages: ChatMessage[];
  tools: ToolSpec[];
}

/** What a provider answered to a tool chat: tool calls (with any text beside them), a final text, or why there is none. */
export type ToolAnswer = { text: string; toolCalls: ToolCall[]; usage?: Usage } | { refusal: string } | { empty: true };

const objectOrNull = (value: unknown): Record<string, unknown> | null => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null);

function parsedArguments(text: string | undefined): Record<string, unknown> | null {
  if (text === undefined || text.trim() === '') return {};
  try {
    return objectOrNull(JSON.parse(text));
  } catch {
    return null;
  }
}

/** The tool chat as OpenAI's chat completions (and Gemini's OpenAI-compatible endpoint) take it. */
export function openAiToolMessages(input: ToolChat): OpenAI.Chat.ChatCompletionMessageParam[] {
  const inUser = PROMPT_IN_USER_MESSAGE_PREFIXES.some((prefix) => input.model.startsWith(prefix));
  const out: OpenAI.Chat.ChatCompletionMessageParam[] = inUser ? [] : [{ role: 'system', content: input.system }];
  let first = true;
  for (const message of input.messages) {
    if (message.role === 'user') {
      out.push({ role: 'user', content: inUser && first ? `${input.system}\n\n${message.text}` : message.text });
      first = false;
    } else if (message.role === 'assistant') {
      out.push({
        role: 'assistant',
        content: message.text === '' ? null : message.text,
        ...(message.toolCalls.length === 0
          ? {}
          : { tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: JSON.stringify(call.arguments ?? {}) } })) }),
      });
    } else {
      for (const result of message.results) out.push({ role: 'tool', tool_call_id: result.callId, content: result.isError ? `Error: ${result.text}` : result.text });
    }
  }
  return out;
}

/** The tool chat as Anthropic's Messages API takes it: tool results are a user turn of `tool_result` blocks. */
export function anthropicToolMessages(input: ToolChat): Anthropic.MessageParam[] {
  const out: Anthropic.MessageParam[] = [];
  for (const message of input.messages) {
    let blocks: Anthropic.ContentBlockParam[];
    let role: 'user' | 'assistant' = 'user';
    if (message.role === 'user') blocks = [{ type: 'text', text: message.text }];
    else if (message.role === 'assistant') {
      role = 'assistant';
      blocks = [
        ...(message.text === '' ? [] : [{ type: 'text' as const, text: message.text }]),
        ...message.toolCalls.map((call) => ({ type: 'tool_use' as const, id: call.id, name: call.name, input: call.arguments ?? {} })),
      ];
    } else blocks = message.results.map((result) => ({ type: 'tool_result' as const, tool_use_id: result.callId, content: result.text, is_error: result.isError }));
    // Turns alternate: a note after tool results joins their user turn (the results first, as the API wants).
    const last = out.at(-1);
    if (last !== undefined && last.role === role && Array.isArray(last.content)) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  }
  return out;
}

/**
 * Tool-calling chats, one per provider family, on clients made as in
 * createProviderCalls (the application's key, every option passed,
 * `maxRetries: 0`, `logLevel: 'off'`).
 */
export function createToolCalls(config: AiConfig) {
  const openAiCompatible = (baseURL: string) => async (apiKey: string, input: ToolChat, signal: AbortSignal): Promise<ToolAnswer> => {
    const { OpenAI } = await loadSdks();
    const client = new OpenAI({ apiKey, baseURL, organization: null, project: null, adminAPIKey: null, maxRetries: 0, timeout: config.timeoutMs, logLevel: 'off' });
    const completion = await client.chat.completions.create(
      {
        model: input.model,
        messages: openAiToolMessages(input),
        ...(input.tools.length === 0
          ? {}
          : { tools: input.tools.map((tool) => ({ type: 'function' as const, function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } })) }),
      },
      { signal },
    );
    const message = (completion as Partial<OpenAI.Chat.ChatCompletion>).choices?.[0]?.message;
    const usage = (completion as Partial<OpenAI.Chat.ChatCompletion>).usage;
    const toolCalls = (Array.isArray(message?.tool_calls) ? message.tool_calls : [])
      .filter((call) => call.type === 'function')
      .map((call, index): ToolCall => ({ id: typeof call.id === 'string' && call.id !== '' ? call.id : `call_${index}`, name: call.function.name, arguments: parsedArguments(call.function.arguments) }));
    const text = typeof message?.content === 'string' ? message.content : '';
    if (toolCalls.length === 0 && text.trim() === '') {
      if (typeof message?.refusal === 'string' && message.refusal.trim() !== '') return { refusal: message.refusal };
      return { empty: true };
    }
    return { text, toolCalls, ...(usage ? { usage: { inputTokens: usage.prompt_tokens ?? 0, outputTokens: usage.completion_tokens ?? 0 } } : {}) };
  };

  const anthropic = async (apiKey: string, input: ToolChat, signal: AbortSignal): Promise<ToolAnswer> => {
    const { Anthropic } = await loadSdks();
    const client = new Anthropic({ apiKey, baseURL: config.anthropicBaseUrl, maxRetries: 0, timeout: config.timeoutMs, logLevel: 'off', openTelemetry: false });
    const message = await client.messages.create(
      {
        model: input.model,
        max_tokens: config.maxOutputTokens,
        system: input.system,
        messages: anthropicToolMessages(input),
        ...(input.tools.length === 0
          ? {}
          : { tools: input.tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: { ...tool.inputSchema, type: 'object' as const } })) }),
      },
      { signal },
    );
    const blocks = Array.isArray((message as Partial<Anthropic.Message>).content) ? message.content : [];
    const text = blocks.map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : '')).join('');
    const toolCalls = blocks.flatMap((block): ToolCall[] => (block.type === 'tool_use' ? [{ id: block.id, name: block.name, arguments: objectOrNull(block.input) }] : []));
    const usage = (message as Partial<Anthropic.Message>).usage;
    if (toolCalls.length === 0 && text.trim() === '') return { empty: true };
    return { text, toolCalls, ...(usage ? { usage: { inputTokens: usage.input_tokens ?? 0, outputTokens: usage.output_tokens ?? 0 } } : {}) };
  };

  const calls: Record<AiProviderName, (apiKey: string, input: ToolChat, signal: AbortSignal) => Promise<ToolAnswer>> = {
    openai: openAiCompatible(config.openaiBaseUrl),
    anthropic,
    gemini: openAiCompatible(config.geminiBaseUrl),
  };
  return calls;
}

export type ToolCalls = ReturnType<typeof createToolCalls>;
