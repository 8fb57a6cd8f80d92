import type { APIError as AnthropicApiError } from '@anthropic-ai/sdk';
import type { APIError as OpenAiApiError } from 'openai';
import { loadSdks, type AiProviderName } from './providers.js';

/**
 * A provider call that gave no answer, as the caller reads it (`error`) and
 * as the log records it (`status`: the provider's HTTP status, or a word).
 */
export interface ProviderFailure {
  error: string;
  status: number | 'timeout' | 'cancelled' | 'unreachable' | 'unreadable';
}

export interface CallOutcome {
  /** Our deadline (AI_TIMEOUT_MS) ended the call. */
  timedOut: boolean;
  /** The HTTP client went away first: nobody reads the answer. */
  cancelled: boolean;
}

/** Longest provider message passed on; longer ones (an HTML error page) are cut. */
const MAX_PROVIDER_MESSAGE = 300;

/**
 * Why a provider call failed, in words for the caller; undefined when the
 * error is not the provider's doing (a bug of ours stays INTERNAL).
 * Never contains the key: see scrubKey.
 */
export async function providerFailure(
  provider: AiProviderName,
  error: unknown,
  apiKey: string,
  timeoutMs: number,
  outcome: CallOutcome,
): Promise<ProviderFailure | undefined> {
  const timeout: ProviderFailure = { error: `${provider} did not answer within ${timeoutMs} ms`, status: 'timeout' };
  // Our own abort surfaces as whatever the SDK was doing at the time (an abort error, a broken body read).
  if (outcome.timedOut) return timeout;
  if (outcome.cancelled) return { error: `the request was cancelled before ${provider} answered`, status: 'cancelled' };
  // Loaded already: the call that failed used them.
  const { OpenAI, Anthropic } = await loadSdks();
  const { APIConnectionTimeoutError: OpenAiTimeout, APIUserAbortError: OpenAiAbort, APIConnectionError: OpenAiConnectionError, APIError: OpenAiApiError } = OpenAI;
  const { APIConnectionTimeoutError: AnthropicTimeout, APIUserAbortError: AnthropicAbort, APIConnectionError: AnthropicConnectionError, APIError: AnthropicApiError } = Anthropic;
  if (error instanceof OpenAiTimeout || error instanceof AnthropicTimeout) return timeout;
  if (error instanceof OpenAiAbort || error instanceof AnthropicAbort) return { error: `the call to ${provider} was aborted`, status: 'cancelled' };
  if (error instanceof OpenAiConnectionError || error instanceof AnthropicConnectionError) return { error: `could not reach ${provider}`, status: 'unreachable' };
  if (error instanceof OpenAiApiError || error instanceof AnthropicApiError) {
    const status = error.status;
    if (typeof status !== 'number') return { error: `could not reach ${provider}`, status: 'unreachable' };
    // OpenAI echoes part of a wrong key in its 401 text: say only that it was refused.
    if (status === 401 || status === 403) return { error: `the ${provider} API key was refused (${status})`, status };
    const message = providerMessage(error, status);
    const said = message === undefined ? '' : scrubKey(message, apiKey);
    return { error: said === '' ? `${provider} returned ${status}` : `${provider} returned ${status}: ${said}`, status };
  }
  // A 200 whose body is not the JSON it claims to be.
  if (error instanceof SyntaxError) return { error: `${provider} sent an answer that could not be read`, status: 'unreadable' };
  return undefined;
}

/** The provider's own words: OpenAI `{error:{message}}`, Anthropic `{error:{error:{message}}}`, or a non-JSON body's text. */
function providerMessage(error: OpenAiApiError | AnthropicApiError, status: number): string | undefined {
  const body = error.error as { message?: unknown; error?: { message?: unknown } } | undefined;
  const fromBody = typeof body?.message === 'string' ? body.message : typeof body?.error?.message === 'string' ? body.error.message : undefined;
  if (fromBody !== undefined) return fromBody;
  // The SDKs make "<status> <text>" of a body they could not parse as JSON, and "<status> status code (no body)" of none.
  const text = error.message.startsWith(`${status} `) ? error.message.slice(String(status).length + 1) : error.message;
  return text === 'status code (no body)' ? undefined : text;
}

/**
 * The provider's message without the key: the key itself, any word holding
 * its first or last characters (a masked echo such as `sk-abc1****wxyz`), and
 * anything else that looks like a key. On one line, and cut to a readable
 * length.
 */
export function scrubKey(message: string, apiKey: string): string {
  const head = apiKey.slice(0, 6);
  const tail = apiKey.slice(-4);
  const looksLikeKey = (word: string) =>
    word.includes(apiKey) ||
    (apiKey.length >= 12 && (word.includes(head) || word.includes(tail))) ||
    /\*{3,}/.test(word) ||
    /(^|[^A-Za-z0-9])(sk-|AIza)[A-Za-z0-9_-]{4,}/.test(word);
  const words = message.replace(/\s+/g, ' ').trim().split(' ');
  const scrubbed = words.map((word) => (looksLikeKey(word) ? '[redacted]' : word)).join(' ');
  return scrubbed.length > MAX_PROVIDER_MESSAGE ? `${scrubbed.slice(0, MAX_PROVIDER_MESSAGE)}…` : scrubbed;
}
