// Ask AI against fake providers (msw): the exact request each provider
// receives, the result shapes, every handled failure, invalid input, and
// that the provider key never leaves in a response or a log line.
import { randomBytes } from 'node:crypto';
import { delay, HttpResponse } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { expectCredentialChecks } from '../../helpers/credentials.js';
import { eventually } from '../../helpers/eventually.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';
import { anthropicAnswer, ENDPOINTS, memoryLogger, openAiAnswer, provider, PROVIDER_ENV, startFakeProviders, type Provider, type Seen } from './fake-providers.js';

const PATH = '/v2/rewriter/ask-ai';
const TIMEOUT_MS = 1000;
const hex = () => randomBytes(16).toString('hex');
// Shaped like the real ones, and 16+ characters so the end-of-run log scan looks for them too.
const KEYS: Record<Provider, string> = { openai: `sk-proj-${hex()}`, anthropic: `sk-ant-api03-${hex()}`, gemini: `AIzaSy${hex()}` };
const PROMPT = 'Rewrite formally.';
const TEXT = 'hey there, can u send the report';

const { logger, lines } = memoryLogger();
let msw: ReturnType<typeof startFakeProviders>;
let server: TestServer;
let a: WorkspaceCredentials;
let b: WorkspaceCredentials;
let clientA: Client;
let clientB: Client;
/** Every result this file got, for the final key scan. */
const results: unknown[] = [];

const ask = async (client: Client, model: string, prompt = PROMPT, text = TEXT) => {
  const result = await client.ai.askAi({ model, prompt, text });
  results.push(result);
  return result;
};

beforeAll(async () => {
  // What an operator may have in the server's environment: none of it may reach a provider on an application's behalf.
  vi.stubEnv('OPENAI_API_KEY', 'sk-operator-env-key');
  vi.stubEnv('OPENAI_ADMIN_KEY', 'sk-admin-operator-env-key');
  vi.stubEnv('OPENAI_ORG_ID', 'org-operator');
  vi.stubEnv('OPENAI_PROJECT_ID', 'proj-operator');
  vi.stubEnv('OPENAI_BASE_URL', 'http://elsewhere.test/v1');
  vi.stubEnv('ANTHROPIC_API_KEY', 'sk-ant-operator-env-key');
  vi.stubEnv('ANTHROPIC_AUTH_TOKEN', 'operator-env-token');
  vi.stubEnv('ANTHROPIC_BASE_URL', 'http://elsewhere.test');
  msw = startFakeProviders();
  server = await startTestServer({ ...PROVIDER_ENV, AI_TIMEOUT_MS: String(TIMEOUT_MS), AI_MAX_OUTPUT_TOKENS: '1000' }, { logger });
  a = await server.workspace();
  for (const name of ['openai', 'anthropic', 'gemini'] as const) {
    await server.cli('ai-key', 'set', '--api-key', a.apiKey, '--provider', name, '--key', KEYS[name]);
  }
  b = await server.workspace();
  clientA = server.client(a);
  clientB = server.client(b);
});
afterEach(() => msw.resetHandlers());
afterAll(async () => {
  await server?.close();
  msw?.close();
  vi.unstubAllEnvs();
});

/** Records every request to every provider; answers as given, or fails the test if one is called unexpectedly. */
function fakes(answers: Partial<Record<Provider, () => Response | Promise<Response>>> = {}) {
  const seen: Record<Provider, Seen[]> = { openai: [], anthropic: [], gemini: [] };
  for (const name of Object.keys(ENDPOINTS) as Provider[]) {
    msw.use(provider(ENDPOINTS[name], seen[name], answers[name] ?? (() => HttpResponse.json({ error: { message: 'unexpected call' } }, { status: 418 }))));
  }
  return seen;
}

describe('Ask AI: the request each provider receives', () => {
  it('gpt-4o-mini: the prompt is the system message, the text the user message, with the application\'s OpenAI key and nothing of the operator\'s environment', async () => {
    const seen = fakes({ openai: () => openAiAnswer('Good day. Could you please send the report?') });
    expect(await ask(clientA, 'gpt-4o-mini')).toEqual({ success: true, text: 'Good day. Could you please send the report?' });
    expect(seen.openai).toHaveLength(1);
    const [request] = seen.openai;
    expect(request!.url).toBe(ENDPOINTS.openai);
    // Exactly these fields: no max-token field (the model's default), no temperature, no stream.
    expect(request!.body).toEqual({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: PROMPT },
        { role: 'user', content: TEXT },
      ],
    });
    expect(request!.headers.authorization).toBe(`Bearer ${KEYS.openai}`);
    expect(request!.headers).not.toHaveProperty('openai-organization');
    expect(request!.headers).not.toHaveProperty('openai-project');
    // maxRetries 0: the SDK announces the try count it would retry with.
    expect(request!.headers['x-stainless-retry-count']).toBe('0');
  });

  it('the result is exactly {success, text}: no status or message, as the specification says', async () => {
    fakes({ openai: () => openAiAnswer('Done.') });
    const res = await server.post(PATH, { data: { model: 'gpt-4.1', prompt: PROMPT, text: TEXT } }, appHeaders(a));
    expect([res.status, res.body]).toEqual([200, { result: { success: true, text: 'Done.' } }]);
  });

  it.each(['o1-preview', 'o3-mini', 'o4-mini'])('%s: no system message; the prompt, a blank line and the text in one user message', async (model) => {
    const seen = fakes({ openai: () => openAiAnswer('Formal.') });
    expect(await ask(clientA, model)).toEqual({ success: true, text: 'Formal.' });
    expect(seen.openai.map((r) => r.body)).toEqual([{ model, messages: [{ role: 'user', content: `${PROMPT}\n\n${TEXT}` }] }]);
    expect(seen.openai[0]!.headers.authorization).toBe(`Bearer ${KEYS.openai}`);
  });

  it('chatgpt-4o-latest goes to OpenAI with a system message', async () => {
    const seen = fakes({ openai: () => openAiAnswer('Formal.') });
    expect(await ask(clientA, 'chatgpt-4o-latest')).toEqual({ success: true, text: 'Formal.' });
    expect(seen.openai.map((r) => r.body)).toEqual([
      {
        model: 'chatgpt-4o-latest',
        messages: [
          { role: 'system', content: PROMPT },
          { role: 'user', content: TEXT },
        ],
      },
    ]);
  });

  it('claude-…: the Messages API with a top-level system, AI_MAX_OUTPUT_TOKENS, the Anthropic key and version headers; the text blocks joined', async () => {
    const seen = fakes({
      anthropic: () =>
        anthropicAnswer([
          { type: 'text', text: 'Good day. ', citations: null },
          { type: 'text', text: 'Could you please send the report?', citations: null },
        ]),
    });
    expect(await ask(clientA, 'claude-haiku-4-5')).toEqual({ success: true, text: 'Good day. Could you please send the report?' });
    expect(seen.anthropic).toHaveLength(1);
    const [request] = seen.anthropic;
    expect(request!.url).toBe(ENDPOINTS.anthropic);
    expect(request!.body).toEqual({ model: 'claude-haiku-4-5', max_tokens: 1000, system: PROMPT, messages: [{ role: 'user', content: TEXT }] });
    // @anthropic-ai/sdk 1.x sends the API key as a bearer token (no x-api-key).
    expect(request!.headers.authorization).toBe(`Bearer ${KEYS.anthropic}`);
    expect(request!.headers).not.toHaveProperty('x-api-key');
    expect(request!.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(request!.headers['x-stainless-retry-count']).toBe('0');
  });

  it('gemini-…: the OpenAI shape at the Gemini base URL with the application\'s Gemini key', async () => {
    const seen = fakes({ gemini: () => openAiAnswer('Good day.') });
    expect(await ask(clientA, 'gemini-2.5-flash')).toEqual({ success: true, text: 'Good day.' });
    expect(seen.gemini).toHaveLength(1);
    const [request] = seen.gemini;
    expect(request!.url).toBe(ENDPOINTS.gemini);
    expect(request!.body).toEqual({
      model: 'gemini-2.5-flash',
      messages: [
        { role: 'system', content: PROMPT },
        { role: 'user', content: TEXT },
      ],
    });
    expect(request!.headers.authorization).toBe(`Bearer ${KEYS.gemini}`);
    expect(request!.headers).not.toHaveProperty('openai-organization');
  });

  it('takes each field at its longest and passes it on unchanged', async () => {
    const seen = fakes({ openai: () => openAiAnswer('ok') });
    const model = `gpt-${'x'.repeat(124)}`;
    const prompt = 'p'.repeat(32_000);
    const text = `${'é'.repeat(50_000)}${'t'.repeat(50_000)}`;
    expect(await ask(clientA, model, prompt, text)).toEqual({ success: true, text: 'ok' });
    expect(seen.openai.map((r) => r.body)).toEqual([{ model, messages: [{ role: 'system', content: prompt }, { role: 'user', content: text }] }]);
  });
});

describe('Ask AI: handled failures: result {success: false, error}', () => {
  it('no key configured for the provider: another application\'s key is never used, and no provider is called', async () => {
    const seen = fakes();
    expect(await ask(clientB, 'gpt-4o-mini')).toEqual({ success: false, error: 'no API key configured for provider openai; set one with `ai-key set --provider openai`' });
    expect(await ask(clientB, 'o3-mini')).toEqual({ success: false, error: 'no API key configured for provider openai; set one with `ai-key set --provider openai`' });
    expect(await ask(clientB, 'claude-haiku-4-5')).toEqual({ success: false, error: 'no API key configured for provider anthropic; set one with `ai-key set --provider anthropic`' });
    expect(await ask(clientB, 'gemini-2.5-pro')).toEqual({ success: false, error: 'no API key configured for provider gemini; set one with `ai-key set --provider gemini`' });
    expect(seen).toEqual({ openai: [], anthropic: [], gemini: [] });
  });

  it('a key for one provider is not used for another', async () => {
    const c = await server.workspace();
    await server.cli('ai-key', 'set', '--api-key', c.apiKey, '--provider', 'anthropic', '--key', `sk-ant-api03-${hex()}`);
    const seen = fakes();
    expect(await ask(server.client(c), 'gemini-2.5-flash')).toMatchObject({ success: false, error: expect.stringMatching(/^no API key configured for provider gemini/) });
    expect(seen.gemini).toEqual([]);
  });

  it('the key set last is the one used', async () => {
    const c = await server.workspace();
    const first = `sk-proj-${hex()}`;
    const second = `sk-proj-${hex()}`;
    await server.cli('ai-key', 'set', '--api-key', c.apiKey, '--provider', 'openai', '--key', first);
    await server.cli('ai-key', 'set', '--api-key', c.apiKey, '--provider', 'openai', '--key', second);
    const seen = fakes({ openai: () => openAiAnswer('ok') });
    await ask(server.client(c), 'gpt-4o-mini');
    expect(seen.openai.map((r) => r.headers.authorization)).toEqual([`Bearer ${second}`]);
  });

  it('the key refused (401, 403): said without the provider\'s text, which echoes part of the key', async () => {
    const masked = `${KEYS.openai.slice(0, 8)}${'*'.repeat(20)}${KEYS.openai.slice(-4)}`;
    fakes({
      openai: () =>
        HttpResponse.json(
          { error: { message: `Incorrect API key provided: ${masked}. You can find your API key at https://platform.openai.com/account/api-keys.`, type: 'invalid_request_error', code: 'invalid_api_key' } },
          { status: 401 },
        ),
      anthropic: () => HttpResponse.json({ type: 'error', error: { type: 'permission_error', message: `Your API key ${KEYS.anthropic} does not have permission` } }, { status: 403 }),
    });
    expect(await ask(clientA, 'gpt-4o-mini')).toEqual({ success: false, error: 'the openai API key was refused (401)' });
    expect(await ask(clientA, 'claude-opus-4-1')).toEqual({ success: false, error: 'the anthropic API key was refused (403)' });
  });

  it('a provider error: its status and message, with any echo of the key removed', async () => {
    fakes({
      openai: () => HttpResponse.json({ error: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error' } }, { status: 500 }),
      anthropic: () => HttpResponse.json({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, { status: 529 }),
      gemini: () => HttpResponse.json({ error: { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED' } }, { status: 429 }),
    });
    expect(await ask(clientA, 'gpt-4o-mini')).toEqual({ success: false, error: 'openai returned 500: The server had an error while processing your request. Sorry about that!' });
    expect(await ask(clientA, 'claude-haiku-4-5')).toEqual({ success: false, error: 'anthropic returned 529: Overloaded' });
    expect(await ask(clientA, 'gemini-2.5-flash')).toEqual({ success: false, error: 'gemini returned 429: Resource has been exhausted (e.g. check quota).' });

    const masked = `${KEYS.openai.slice(0, 7)}****${KEYS.openai.slice(-4)}`;
    fakes({
      openai: () => HttpResponse.json({ error: { message: `Rate limit reached for key ${KEYS.openai} (${masked}) on requests per min.`, type: 'requests' } }, { status: 429 }),
    });
    expect(await ask(clientA, 'gpt-4o-mini')).toEqual({ success: false, error: 'openai returned 429: Rate limit reached for key [redacted] [redacted] on requests per min.' });
  });

  it('a provider error without a JSON body: its status, and its text cut to a readable length', async () => {
    fakes({
      openai: () => new HttpResponse(null, { status: 503 }),
      gemini: () => new HttpResponse(`<html><body>${'Bad gateway '.repeat(100)}</body></html>`, { status: 502, headers: { 'content-type': 'text/html' } }),
    });
    expect(await ask(clientA, 'gpt-4o-mini')).toEqual({ success: false, error: 'openai returned 503' });
    const gemini = await ask(clientA, 'gemini-2.5-flash');
    expect(gemini).toMatchObject({ success: false, error: expect.stringMatching(/^gemini returned 502: <html><body>Bad gateway Bad gateway .*…$/) });
    expect((gemini as { error: string }).error.length).toBeLessThan(400);
  });

  it('no answer within AI_TIMEOUT_MS: the call is abandoned, whether the headers or the body never come', async () => {
    fakes({
      openai: async () => {
        await delay('infinite');
        return HttpResponse.json({});
      },
      // Headers at once, then a body that never ends: the deadline covers the whole answer.
      anthropic: () =>
        new HttpResponse(
          new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode('{"id":"msg_1","content":['));
            },
          }),
          { headers: { 'content-type': 'application/json' } },
        ),
    });
    expect(await ask(clientA, 'gpt-4o-mini')).toEqual({ success: false, error: `openai did not answer within ${TIMEOUT_MS} ms` });
    expect(await ask(clientA, 'claude-haiku-4-5')).toEqual({ success: false, error: `anthropic did not answer within ${TIMEOUT_MS} ms` });
  });

  it('the provider cannot be reached', async () => {
    fakes({ gemini: () => HttpResponse.error(), anthropic: () => HttpResponse.error() });
    expect(await ask(clientA, 'gemini-2.5-flash')).toEqual({ success: false, error: 'could not reach gemini' });
    expect(await ask(clientA, 'claude-haiku-4-5')).toEqual({ success: false, error: 'could not reach anthropic' });
  });

  it('an unknown model prefix, the bare o-series names and other cases included; no provider is called', async () => {
    const seen = fakes();
    const supported = 'supported: gpt-, o1-, o3-, o4-, chatgpt- (openai); claude- (anthropic); gemini- (gemini)';
    expect(await ask(clientA, 'mistral-large-latest')).toEqual({ success: false, error: `unknown model prefix; ${supported}` });
    for (const model of ['o3', 'GPT-4o', 'Claude-3', 'gpt', 'gemini', 'llama-3.1-70b', '__proto__', ' gpt-4o']) {
      expect(await ask(clientA, model)).toEqual({ success: false, error: `unknown model prefix; ${supported}` });
    }
    expect(seen).toEqual({ openai: [], anthropic: [], gemini: [] });
  });

  it('an answer without text: empty, blank, a refusal, no text blocks, no choices', async () => {
    fakes({ openai: () => openAiAnswer(''), anthropic: () => anthropicAnswer([]), gemini: () => openAiAnswer(' \n ') });
    expect(await ask(clientA, 'gpt-4o-mini')).toEqual({ success: false, error: 'openai returned no text' });
    expect(await ask(clientA, 'claude-haiku-4-5')).toEqual({ success: false, error: 'anthropic returned no text' });
    expect(await ask(clientA, 'gemini-2.5-flash')).toEqual({ success: false, error: 'gemini returned no text' });

    fakes({
      openai: () => openAiAnswer(null, { refusal: "I'm sorry, I can't help with that." }),
      anthropic: () => anthropicAnswer([{ type: 'tool_use', id: 't1', name: 'x', input: {} }]),
      gemini: () => HttpResponse.json({ id: 'x', object: 'chat.completion', choices: [] }),
    });
    expect(await ask(clientA, 'gpt-4o-mini')).toEqual({ success: false, error: "openai declined to answer: I'm sorry, I can't help with that." });
    expect(await ask(clientA, 'claude-haiku-4-5')).toEqual({ success: false, error: 'anthropic returned no text' });
    expect(await ask(clientA, 'gemini-2.5-flash')).toEqual({ success: false, error: 'gemini returned no text' });
  });

  it('an answer that is not the JSON it claims to be', async () => {
    fakes({ openai: () => new HttpResponse('{"choices": [', { headers: { 'content-type': 'application/json' } }) });
    expect(await ask(clientA, 'gpt-4o-mini')).toEqual({ success: false, error: 'openai sent an answer that could not be read' });
  });

  it('a client that hangs up cancels the provider call', async () => {
    let started = false;
    msw.use(
      provider(ENDPOINTS.openai, [], async () => {
        started = true;
        await delay('infinite');
        return HttpResponse.json({});
      }),
    );
    const hangUp = new AbortController();
    const call = fetch(`${server.url}${PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...appHeaders(a) },
      body: JSON.stringify({ data: { model: 'gpt-4o-mini', prompt: PROMPT, text: 'cancel me' } }),
      signal: hangUp.signal,
    }).catch(() => 'aborted');
    await eventually(() => started, 'the provider call to start');
    const before = lines.length;
    hangUp.abort();
    expect(await call).toBe('aborted');
    await eventually(() => lines.slice(before).some((line) => line.includes('"status":"cancelled"')), 'the cancelled call to be logged');
  });
});

describe('Ask AI: invalid input: INVALID_ARGUMENT, and no provider is called', () => {
  const valid = { model: 'gpt-4o-mini', prompt: PROMPT, text: TEXT };
  const cases: Array<[string, unknown, RegExp]> = [
    ['no model', { prompt: PROMPT, text: TEXT }, /data\.model is required/],
    ['no prompt', { model: 'gpt-4o-mini', text: TEXT }, /data\.prompt is required/],
    ['no text', { model: 'gpt-4o-mini', prompt: PROMPT }, /data\.text is required/],
    ['an empty model', { ...valid, model: '' }, /data\.model: .*at least 1/],
    ['an empty prompt', { ...valid, prompt: '' }, /data\.prompt: .*at least 1/],
    ['an empty text', { ...valid, text: '' }, /data\.text: .*at least 1/],
    ['a model of 129 characters', { ...valid, model: `gpt-${'x'.repeat(125)}` }, /data\.model: .*at most 128/],
    ['a prompt of 32,001 characters', { ...valid, prompt: 'p'.repeat(32_001) }, /data\.prompt: .*at most 32000/],
    ['a text of 100,001 characters', { ...valid, text: 't'.repeat(100_001) }, /data\.text: .*at most 100000/],
    ['a number as text', { ...valid, text: 42 }, /data\.text must be string, got number/],
    ['an unknown field', { ...valid, temperature: 0.2 }, /unknown field\(s\) data\.temperature/],
  ];
  it.each(cases)('%s', async (_name, data, message) => {
    const seen = fakes();
    const res = await server.post(PATH, { data }, appHeaders(a));
    expect([res.status, res.body.error?.status]).toEqual([400, 'INVALID_ARGUMENT']);
    expect(res.body.error.message).toMatch(message);
    expect(seen).toEqual({ openai: [], anthropic: [], gemini: [] });
  });

  it('a body not wrapped in data', async () => {
    const res = await server.post(PATH, valid, appHeaders(a));
    expect([res.status, res.body.error?.status]).toEqual([400, 'INVALID_ARGUMENT']);
  });

  it('credentials: missing is UNAUTHENTICATED, wrong is PERMISSION_DENIED', async () => {
    const seen = fakes();
    await expectCredentialChecks(server, a, PATH, valid);
    expect(seen).toEqual({ openai: [], anthropic: [], gemini: [] });
  });
});

describe('Ask AI: the provider key stays secret', () => {
  it('appears in no response and no log line; a failure is logged at warn with provider, model (of a known provider) and status only', async () => {
    const secrets = [...Object.values(KEYS), ...Object.values(KEYS).map((key) => key.slice(-12))];
    const responses = JSON.stringify(results);
    const log = lines.join('\n');
    for (const secret of secrets) {
      expect(responses).not.toContain(secret);
      expect(log).not.toContain(secret);
    }
    // The test prompt and text never reach the log either.
    expect(log).not.toContain(TEXT);
    const failures = lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'ask-ai: no answer from the provider');
    expect(failures.length).toBeGreaterThan(10);
    for (const entry of failures) {
      expect(entry.level).toBe(40);
      const { level, time, pid, hostname, msg, reqId, operation, ...fields } = entry;
      expect([typeof reqId, operation]).toEqual(['string', 'askAi']);
      // A model of no known provider is the caller's free text (a key pasted into the wrong field, say): not logged.
      expect(Object.keys(fields).sort()).toEqual(Object.keys({ status: 1, ...(fields.provider === undefined ? {} : { model: 1, provider: 1 }) }).sort());
    }
    expect(failures.map((entry) => entry.status)).toEqual(expect.arrayContaining([401, 403, 429, 500, 'timeout', 'unreachable', 'no-key', 'unknown-prefix', 'no-text']));
    // Each request's access-log line is there too, without the body.
    expect(lines.filter((line) => line.includes(`"url":"${PATH}"`)).length).toBeGreaterThan(10);
  });
});
