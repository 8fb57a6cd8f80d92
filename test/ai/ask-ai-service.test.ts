// The parts of Ask AI that HTTP tests cannot reach: a bug of ours is not a
// provider failure, and the key scrubbing on its own.
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { scrubKey } from '../../server/domains/ai/failures.js';
import { messagesFor, providerOf } from '../../server/domains/ai/providers.js';
import { createAiService } from '../../server/domains/ai/service.js';
import { Sealer } from '../../server/lib/crypto.js';

const sealer = new Sealer(randomBytes(32));
const input = { model: 'gpt-4o-mini', prompt: 'Shorten.', text: 'A long text.' };
const caller = { apiKeyId: 'k', apiKey: 'ak_test' };

function service(call: () => Promise<never>, sealed: string | null = sealer.seal('sk-proj-unit-test-key-0123')) {
  const fail = () => call();
  return createAiService({
    sealedKeyOf: async () => sealed,
    sealer,
    options: loadConfig({}).ai,
    log: pino({ level: 'silent' }),
    calls: { openai: fail, anthropic: fail, gemini: fail },
  });
}

describe('Ask AI service', () => {
  it('lets an error that is not the provider\'s through (the error envelope says INTERNAL), not success: false', async () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'choices')");
    await expect(service(() => Promise.reject(bug)).askAi(caller, input)).rejects.toThrow(
      "unexpected TypeError during the openai call: Cannot read properties of undefined (reading 'choices')",
    );
  });

  it('the error it lets through holds no part of the key, even where the original quoted the header with it', async () => {
    // What undici throws for a key with a line break in it (stored before `ai-key set` refused such keys).
    const headerError = new TypeError('Headers.append: "Bearer sk-proj-unit-test-key-0123" is an invalid header value.');
    const thrown = await service(() => Promise.reject(headerError))
      .askAi(caller, input)
      .catch((error: Error) => error);
    expect((thrown as Error).message).toMatch(/^unexpected TypeError during the openai call: /);
    expect((thrown as Error).message).not.toContain('sk-proj');
    expect((thrown as Error).message).not.toContain('0123');
  });

  it('a stored key sealed under another master key is a handled failure saying how to fix it', async () => {
    const other = new Sealer(randomBytes(32)).seal('sk-proj-unit-test-key-0123');
    const never = () => Promise.reject(new Error('the provider must not be called'));
    expect(await service(never, other).askAi(caller, input)).toEqual({
      success: false,
      error: 'the stored API key for provider openai cannot be decrypted; set it again with `ai-key set --provider openai`',
    });
  });

  it('defaults: the providers\' public endpoints, 60 s, 4096 output tokens, 60 calls a minute', () => {
    const config = loadConfig({});
    expect(config.ai).toEqual({
      openaiBaseUrl: 'https://api.openai.com/v1',
      anthropicBaseUrl: 'https://api.anthropic.com',
      geminiBaseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai',
      timeoutMs: 60_000,
      maxOutputTokens: 4096,
    });
    expect(config.rateLimits.aiPerApiKey).toBe(60);
  });
});

describe('model prefixes and messages', () => {
  it('resolve as the operator interface lists them, case-sensitively', () => {
    expect(['gpt-4o', 'o1-mini', 'o3-pro', 'o4-mini', 'chatgpt-4o-latest', 'claude-3-5-haiku', 'gemini-2.0-flash'].map(providerOf)).toEqual([
      'openai',
      'openai',
      'openai',
      'openai',
      'openai',
      'anthropic',
      'gemini',
    ]);
    expect(['o3', 'o2-x', 'GPT-4o', 'gpt4', 'gemma-2', 'constructor', '__proto__', ''].map(providerOf)).toEqual(Array(8).fill(undefined));
  });

  it('only o1-, o3-, o4- put the prompt into the user message', () => {
    expect(messagesFor({ ...input, model: 'o1-mini' })).toEqual([{ role: 'user', content: 'Shorten.\n\nA long text.' }]);
    expect(messagesFor({ ...input, model: 'gpt-4o' })).toEqual([
      { role: 'system', content: 'Shorten.' },
      { role: 'user', content: 'A long text.' },
    ]);
  });
});

describe('scrubKey', () => {
  const key = 'sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz012345';
  it('removes the key, masked echoes of it, and anything shaped like a key', () => {
    expect(scrubKey(`bad key ${key}.`, key)).toBe('bad key [redacted]');
    expect(scrubKey(`key sk-proj-Ab****2345 refused`, key)).toBe('key [redacted] refused');
    expect(scrubKey('ends in …2345 here', key)).toBe('ends in [redacted] here');
    expect(scrubKey('someone else: sk-other-1234567890 or AIzaSyABCDEFGH', key)).toBe('someone else: [redacted] or [redacted]');
    expect(scrubKey('Quota exceeded for\n  requests per minute.', key)).toBe('Quota exceeded for requests per minute.');
  });

  it('cuts a long message after scrubbing, so no part of the key survives the cut', () => {
    const long = `${'word '.repeat(55)}${key} ${'tail '.repeat(50)}`;
    const scrubbed = scrubKey(long, key);
    expect(scrubbed.length).toBe(301);
    expect(scrubbed.endsWith('…')).toBe(true);
    expect(scrubbed).not.toMatch(/sk-|AbCdEf/);
  });
});
