import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';

export { memoryLogger } from '../../helpers/log-capture.js';

/**
 * The three providers as msw sees them: fake hosts that only msw answers, so
 * a request that no handler expects fails the test instead of leaving the
 * machine. Requests to the test server itself (127.0.0.1) pass through.
 */
export const PROVIDER_ENV = {
  OPENAI_BASE_URL: 'http://openai.test/v1',
  ANTHROPIC_BASE_URL: 'http://anthropic.test',
  GEMINI_BASE_URL: 'http://gemini.test/v1beta/openai/',
};

export const ENDPOINTS = {
  openai: 'http://openai.test/v1/chat/completions',
  anthropic: 'http://anthropic.test/v1/messages',
  gemini: 'http://gemini.test/v1beta/openai/chat/completions',
} as const;
export type Provider = keyof typeof ENDPOINTS;

export function startFakeProviders() {
  const msw = setupServer();
  msw.listen({
    onUnhandledRequest(request, print) {
      if (new URL(request.url).hostname === '127.0.0.1') return;
      print.error();
    },
  });
  return msw;
}

export interface Seen {
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

/** A handler for one provider endpoint that records each request and answers with `respond`. */
export function provider(endpoint: string, seen: Seen[], respond: () => Response | Promise<Response>) {
  return http.post(endpoint, async ({ request }) => {
    seen.push({ url: request.url, headers: Object.fromEntries(request.headers), body: await request.json() });
    return respond();
  });
}

/** An OpenAI chat completion whose one choice says `content`: the body a fake provider answers with. */
export const openAiCompletion = (content: string | null, extra: Record<string, unknown> = {}) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1_767_225_600,
  model: 'gpt-4o-mini',
  choices: [{ index: 0, message: { role: 'assistant', content, refusal: null, ...extra }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
});

export const openAiAnswer = (content: string | null, extra: Record<string, unknown> = {}) => HttpResponse.json(openAiCompletion(content, extra));

export const anthropicAnswer = (content: unknown[]) =>
  HttpResponse.json({
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-haiku-4-5',
    content,
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 3 },
  });

