import type { Logger } from 'pino';
import type { askAi, TAskAiOutcome } from '../../../contract/ai/ask-ai.js';
import type { DataOf } from '../../../contract/common/envelope.js';
import type { AiConfig } from '../../config.js';
import type { Sealer } from '../../lib/crypto.js';
import { providerFailure, scrubKey } from './failures.js';
import {
  createProviderCalls,
  createToolCalls,
  loadSdks,
  providerOf,
  supportedPrefixes,
  type AiProviderName,
  type Completion,
  type ProviderCalls,
  type ToolAnswer,
  type ToolCall,
  type ToolCalls,
  type ToolChat,
  type Usage,
} from './providers.js';
import type { Caller } from '../../platform/caller.js';

export interface AiDeps {
  /** The calling application's sealed key for a provider, null when none is set (`ai-key set`). */
  sealedKeyOf(apiKeyId: string, provider: AiProviderName): Promise<string | null>;
  sealer: Sealer;
  options: AiConfig;
  log: Logger;
  /** The provider calls; tests of the service alone may pass fakes. */
  calls?: ProviderCalls;
  toolCalls?: ToolCalls;
}

export interface AskOptions {
  /** Aborted when the HTTP client goes away: the provider call is cancelled with it. */
  signal?: AbortSignal;
  /** The request's logger, so a failure's line carries the request id. */
  log?: Logger;
}

/**
 * A completion's outcome for the callers inside the service (agent runs):
 * Ask AI's, plus the tokens used, and why there was no answer (`status`:
 * a provider's HTTP status, `timeout`, `no-key`, `unknown-prefix`, …).
 */
export type CompletionOutcome = { success: true; text: string; usage: Usage } | { success: false; error: string; status: number | string };

/** A tool chat's outcome (agent runs' `mcp-tools`): the model's tool calls, or its final text when it calls none; failures as for a completion. */
export type ToolChatOutcome = { success: true; text: string; toolCalls: ToolCall[]; usage: Usage } | { success: false; error: string; status: number | string };

/**
 * Ask AI. A provider that gives no answer is an outcome, not an error (the
 * specification's `{success: false, error}`); only invalid input (the
 * contract) and bugs of ours leave as the error envelope.
 */
export function createAiService(deps: AiDeps) {
  const calls = deps.calls ?? createProviderCalls(deps.options);
  const toolCalls = deps.toolCalls ?? createToolCalls(deps.options);
  const timeoutMs = deps.options.timeoutMs;

  type Failure = { success: false; error: string; status: number | string };

  /**
   * One provider call for the model: the application's key opened just
   * before, one deadline (AI_TIMEOUT_MS) for the whole call, and a failure
   * as words without the key (failures.ts). `answer` turns what the
   * provider said into the outcome, or a failure (`refusal`, `no-text`).
   */
  async function callProvider<A, O>(
    app: Pick<Caller, 'apiKeyId'>,
    model: string,
    send: (provider: AiProviderName, apiKey: string, signal: AbortSignal) => Promise<A>,
    answer: (provider: AiProviderName, answer: A) => O | { failure: string; status: string },
    options: AskOptions,
  ): Promise<O | Failure> {
    const log = options.log ?? deps.log;
    const fail = (provider: AiProviderName | undefined, status: number | string, error: string): Failure => {
      // Provider, model and status only: never the key, the prompt or the text. A model name of no known
      // provider is left out too: it is whatever the caller put there, a key pasted into the wrong field included.
      log.warn({ provider, model: provider === undefined ? undefined : model, status }, 'ask-ai: no answer from the provider');
      return { success: false, error, status };
    };

    const provider = providerOf(model);
    if (provider === undefined) {
      // The name is not repeated, for the same reason.
      return fail(undefined, 'unknown-prefix', `unknown model prefix; supported: ${supportedPrefixes()}`);
    }
    const sealed = await deps.sealedKeyOf(app.apiKeyId, provider);
    if (sealed === null) {
      return fail(provider, 'no-key', `no API key configured for provider ${provider}; set one with \`ai-key set --provider ${provider}\``);
    }
    let apiKey: string;
    try {
      apiKey = deps.sealer.open(sealed);
    } catch {
      // Sealed under another master key (COLLAB_MASTER_KEY changed): only setting it again helps.
      log.error({ provider }, 'ask-ai: the stored provider key cannot be opened with this master key');
      return fail(provider, 'key-unreadable', `the stored API key for provider ${provider} cannot be decrypted; set it again with \`ai-key set --provider ${provider}\``);
    }

    // The SDKs are imported on the first call (see loadSdks): that is our time, not the provider's, so before the deadline starts.
    await loadSdks();
    // One deadline for the whole call, the answer's body included (the SDKs' own timeout ends at the response headers).
    const outcome = { timedOut: false, cancelled: false };
    const deadline = new AbortController();
    const timer = setTimeout(() => {
      outcome.timedOut = true;
      deadline.abort();
    }, timeoutMs);
    const onClientGone = () => {
      outcome.cancelled = true;
      deadline.abort();
    };
    if (options.signal?.aborted) onClientGone();
    options.signal?.addEventListener('abort', onClientGone, { once: true });
    const call = send(provider, apiKey, deadline.signal);
    // Settled later by the abort, or never (a body that stalls where the signal does not reach); nobody waits for it then.
    call.catch(() => undefined);
    const ended = new Promise<never>((_resolve, reject) => {
      const end = () => reject(deadline.signal.reason);
      if (deadline.signal.aborted) end();
      deadline.signal.addEventListener('abort', end, { once: true });
    });
    ended.catch(() => undefined);
    try {
      // The deadline wins even where the SDK would keep reading a body that never ends.
      const result = answer(provider, await Promise.race([call, ended]));
      if (typeof result === 'object' && result !== null && 'failure' in result) return fail(provider, result.status, result.failure);
      return result;
    } catch (error) {
      const failure = await providerFailure(provider, error, apiKey, timeoutMs, outcome);
      // Not the provider's doing: INTERNAL, but the error logged is ours, scrubbed of the key (an SDK or
      // fetch error can carry a header value, the key inside it).
      if (failure === undefined) throw new Error(`unexpected ${errorClass(error)} during the ${provider} call: ${scrubKey(errorText(error), apiKey)}`);
      return fail(provider, failure.status, failure.error);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onClientGone);
    }
  }

  function complete(app: Pick<Caller, 'apiKeyId'>, input: Completion, options: AskOptions = {}): Promise<CompletionOutcome> {
    return callProvider(
      app,
      input.model,
      (provider, apiKey, signal) => calls[provider](apiKey, input, signal),
      (provider, answer): CompletionOutcome | { failure: string; status: string } => {
        if ('text' in answer) return { success: true, text: answer.text, usage: answer.usage ?? { inputTokens: 0, outputTokens: 0 } };
        if ('refusal' in answer) return { failure: `${provider} declined to answer: ${answer.refusal}`, status: 'refusal' };
        return { failure: `${provider} returned no text`, status: 'no-text' };
      },
      options,
    );
  }

  /** A chat in which the model may call tools (agent runs' `mcp-tools`); Ask AI does not use it. */
  function chatWithTools(app: Pick<Caller, 'apiKeyId'>, input: ToolChat, options: AskOptions = {}): Promise<ToolChatOutcome> {
    return callProvider(
      app,
      input.model,
      (provider, apiKey, signal) => toolCalls[provider](apiKey, input, signal),
      (provider, answer: ToolAnswer): ToolChatOutcome | { failure: string; status: string } => {
        if ('text' in answer) return { success: true, text: answer.text, toolCalls: answer.toolCalls, usage: answer.usage ?? { inputTokens: 0, outputTokens: 0 } };
        if ('refusal' in answer) return { failure: `${provider} declined to answer: ${answer.refusal}`, status: 'refusal' };
        return { failure: `${provider} returned no text`, status: 'no-text' };
      },
      options,
    );
  }

  return {
    complete,
    chatWithTools,
    async askAi(app: Caller, input: DataOf<typeof askAi>, options: AskOptions = {}): Promise<TAskAiOutcome> {
      const outcome = await complete(app, input, options);
      return outcome.success ? { success: true, text: outcome.text } : { success: false, error: outcome.error };
    },
  };
}

export type AiService = ReturnType<typeof createAiService>;

function errorClass(error: unknown): string {
  return error instanceof Error ? error.constructor.name : typeof error;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
