import type { Logger } from 'pino';
import type { askAi, TAskAiOutcome } from '../../../contract/ai/ask-ai.js';
import type { DataOf } from '../../../contract/common/envelope.js';
import type { AiConfig } from '../../config.js';
import type { Sealer } from '../../lib/crypto.js';
import { providerFailure, scrubKey } from './failures.js';
import { createProviderCalls, loadSdks, providerOf, supportedPrefixes, type AiProviderName, type Completion, type ProviderCalls, type Usage } from './providers.js';
import type { Caller } from '../../platform/caller.js';

export interface AiDeps {
  /** The calling application's sealed key for a provider, null when none is set (`ai-key set`). */
  sealedKeyOf(apiKeyId: string, provider: AiProviderName): Promise<string | null>;
  sealer: Sealer;
  options: AiConfig;
  log: Logger;
  /** The provider calls; tests of the service alone may pass fakes. */
  calls?: ProviderCalls;
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

/**
 * Ask AI. A provider that gives no answer is an outcome, not an error (the
 * specification's `{success: false, error}`); only invalid input (the
 * contract) and bugs of ours leave as the error envelope.
 */
export function createAiService(deps: AiDeps) {
  const calls = deps.calls ?? createProviderCalls(deps.options);
  const timeoutMs = deps.options.timeoutMs;

  async function complete(app: Pick<Caller, 'apiKeyId'>, input: Completion, options: AskOptions = {}): Promise<CompletionOutcome> {
    const log = options.log ?? deps.log;
    const fail = (provider: AiProviderName | undefined, status: number | string, error: string): CompletionOutcome => {
      // Provider, model and status only: never the key, the prompt or the text. A model name of no known
      // provider is left out too: it is whatever the caller put there, a key pasted into the wrong field included.
      log.warn({ provider, model: provider === undefined ? undefined : input.model, status }, 'ask-ai: no answer from the provider');
      return { success: false, error, status };
    };

    const provider = providerOf(input.model);
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
    const call = calls[provider](apiKey, input, deadline.signal);
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
      const answer = await Promise.race([call, ended]);
      if ('text' in answer) return { success: true, text: answer.text, usage: answer.usage ?? { inputTokens: 0, outputTokens: 0 } };
      if ('refusal' in answer) return fail(provider, 'refusal', `${provider} declined to answer: ${answer.refusal}`);
      return fail(provider, 'no-text', `${provider} returned no text`);
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

  return {
    complete,
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
