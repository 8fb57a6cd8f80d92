// Enhance, Refine and Validate Agent Prompt against a fake provider (msw):
// what is sent, what comes back, and the errors of a missing key and of a
// provider in trouble.
import { HttpResponse } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError, expectCredentialChecks } from '../../helpers/credentials.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';
import { ENDPOINTS, openAiAnswer, provider, PROVIDER_ENV, startFakeProviders, type Seen } from '../ai/fake-providers.js';

let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;
let keyless: Client;
let msw: ReturnType<typeof startFakeProviders>;

beforeAll(async () => {
  msw = startFakeProviders();
  server = await startTestServer(PROVIDER_ENV);
  ws = await server.workspace();
  client = server.client(ws);
  keyless = server.client(await server.workspace());
  await server.cli('ai-key', 'set', '--api-key', ws.apiKey, '--provider', 'openai', '--key', 'sk-test-prompts-0123456789');
});
afterEach(() => msw.resetHandlers());
afterAll(async () => {
  msw?.close();
  await server?.close();
});

type Messages = { model: string; messages: Array<{ role: string; content: string }> };

describe('Enhance Agent Prompt and Refine Agent Prompt', () => {
  it('send the instructions (and purpose or feedback) to the model and return its text as the new instructions', async () => {
    const seen: Seen[] = [];
    msw.use(provider(ENDPOINTS.openai, seen, () => openAiAnswer('  Find every misspelt word and give its correct spelling.\n')));
    const { data } = await client.agentPrompts.enhanceAgentPrompt({ instructions: 'check spelling', purpose: 'Proofreads posts.' });
    expect(data).toEqual({ instructions: 'Find every misspelt word and give its correct spelling.' });
    const sent = seen[0]!.body as Messages;
    expect(sent.model).toBe('gpt-4o-mini');
    expect(sent.messages[0]!.content).toMatch(/improve the instructions/);
    expect(sent.messages[1]!.content).toContain('Proofreads posts.');
    expect(sent.messages[1]!.content).toContain('check spelling');

    await client.agentPrompts.refineAgentPrompt({ instructions: 'Check body text.', feedback: 'Headings too.', model: 'gpt-4.1' });
    const refined = seen[1]!.body as Messages;
    expect(refined.model).toBe('gpt-4.1');
    expect(refined.messages[1]!.content).toContain('Headings too.');
  });
});

describe('Validate Agent Prompt', () => {
  it('returns the problems the model lists, valid unless one is an error', async () => {
    msw.use(provider(ENDPOINTS.openai, [], () => openAiAnswer('```json\n{"problems": [{"severity": "error", "message": "No criteria."}, {"severity": "warning", "message": "Long."}]}\n```')));
    expect((await client.agentPrompts.validateAgentPrompt({ instructions: 'Make it better.' })).data).toEqual({
      valid: false,
      problems: [
        { severity: 'error', message: 'No criteria.' },
        { severity: 'warning', message: 'Long.' },
      ],
    });
    msw.use(provider(ENDPOINTS.openai, [], () => openAiAnswer('{"problems": []}')));
    expect((await client.agentPrompts.validateAgentPrompt({ instructions: 'Find typos.' })).data).toEqual({ valid: true, problems: [] });
  });

  it('is UNAVAILABLE when the answer is not a list of problems', async () => {
    msw.use(provider(ENDPOINTS.openai, [], () => openAiAnswer('Looks fine to me!')));
    await expectCollabError(client.agentPrompts.validateAgentPrompt({ instructions: 'Find typos.' }), 'UNAVAILABLE');
  });
});

describe('the prompt tools refuse', () => {
  it('FAILED_PRECONDITION without a provider key or for an unknown model, UNAVAILABLE when the provider fails, INVALID_ARGUMENT for empty instructions', async () => {
    await expectCollabError(keyless.agentPrompts.enhanceAgentPrompt({ instructions: 'x' }), 'FAILED_PRECONDITION', /ai-key set/);
    await expectCollabError(client.agentPrompts.enhanceAgentPrompt({ instructions: 'x', model: 'llama-3' }), 'FAILED_PRECONDITION');
    msw.use(provider(ENDPOINTS.openai, [], () => HttpResponse.json({ error: { message: 'overloaded' } }, { status: 503 })));
    const error = await expectCollabError(client.agentPrompts.refineAgentPrompt({ instructions: 'x', feedback: 'y' }), 'UNAVAILABLE');
    expect(error.message).not.toContain('sk-test-prompts');
    await expectCollabError(client.agentPrompts.validateAgentPrompt({ instructions: '' }), 'INVALID_ARGUMENT');
  });

  it('checks credentials', async () => {
    await expectCredentialChecks(server, ws, '/v2/agents/prompt/enhance', { instructions: 'x' });
  });
});
