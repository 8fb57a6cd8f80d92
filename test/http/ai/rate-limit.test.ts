// The `ai` rate-limit tier: per application, counted on top of the standard
// tier. No fake provider here: the one provider call goes to a closed port.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

const PATH = '/v2/rewriter/ask-ai';
const AI_LIMIT = 3;
const STANDARD_LIMIT = 6;
const data = { model: 'gemini-2.5-flash', prompt: 'Summarize.', text: 'Some text.' };

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    AI_RATE_LIMIT_PER_MINUTE: String(AI_LIMIT),
    RATE_LIMIT_PER_MINUTE: String(STANDARD_LIMIT),
    // Nothing listens on port 9 (discard): a real refused connection.
    OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
  });
});
afterAll(() => server?.close());

const askAi = (ws: WorkspaceCredentials) => server.post(PATH, { data }, appHeaders(ws));
const standardCall = (ws: WorkspaceCredentials) => server.post('/v2/workspace/advancedwebhookconfig/get', { data: {} }, appHeaders(ws));

describe('the ai tier', () => {
  it('refuses the call past the limit with RESOURCE_EXHAUSTED (429); another application is unaffected, and so are the application\'s other operations', async () => {
    const [a, b] = [await server.workspace(), await server.workspace()];
    for (let i = 0; i < AI_LIMIT; i++) {
      const res = await askAi(a);
      // No key: a handled failure, counted like any call.
      expect([res.status, res.body.result?.success]).toEqual([200, false]);
    }
    const refused = await askAi(a);
    expect([refused.status, refused.body.error?.status]).toEqual([429, 'RESOURCE_EXHAUSTED']);
    expect(refused.body.error.message).toBe(`Ask AI rate limit exceeded (${AI_LIMIT} requests per 60 s); retry after the time in the RateLimit header`);
    expect(refused.headers.get('ratelimit')).toMatch(/limit=3, remaining=0/);

    const other = await askAi(b);
    expect([other.status, other.body.result?.success]).toEqual([200, false]);
    expect((await standardCall(a)).status).toBe(200);
  });

  it('an Ask AI call counts against the standard tier too', async () => {
    const ws = await server.workspace();
    for (let i = 0; i < AI_LIMIT; i++) expect((await askAi(ws)).status).toBe(200);
    for (let i = AI_LIMIT; i < STANDARD_LIMIT; i++) expect((await standardCall(ws)).status).toBe(200);
    const refused = await standardCall(ws);
    expect([refused.status, refused.body.error?.status]).toEqual([429, 'RESOURCE_EXHAUSTED']);
    expect(refused.body.error.message).toMatch(new RegExp(`^rate limit exceeded \\(${STANDARD_LIMIT} requests`));
  });

  it('and an exhausted standard tier refuses Ask AI although its own tier has room', async () => {
    const ws = await server.workspace();
    for (let i = 0; i < STANDARD_LIMIT; i++) expect((await standardCall(ws)).status).toBe(200);
    const refused = await askAi(ws);
    expect([refused.status, refused.body.error?.status]).toEqual([429, 'RESOURCE_EXHAUSTED']);
    expect(refused.body.error.message).toMatch(new RegExp(`^rate limit exceeded \\(${STANDARD_LIMIT} requests`));
  });
});

describe('a provider that cannot be reached', () => {
  it('is a handled failure naming the provider', async () => {
    const ws = await server.workspace();
    await server.cli('ai-key', 'set', '--api-key', ws.apiKey, '--provider', 'openai', '--key', 'sk-proj-unreachable-0123456789abcdef');
    const res = await server.post(PATH, { data: { ...data, model: 'gpt-4o-mini' } }, appHeaders(ws));
    expect([res.status, res.body]).toEqual([200, { result: { success: false, error: 'could not reach openai' } }]);
  });
});
