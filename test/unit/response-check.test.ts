/**
 * The strict response check (server/http/response-check.ts) that every test
 * runs with: an answer that breaks the contract fails, and so does one that
 * the contract's parse would change, since production sends answers unparsed.
 */
import { describe, expect, it } from 'vitest';
import { initContract, ResponseValidationError } from '@ts-rest/core';
import { z } from 'zod';
import { checkResponses, ResponseChangedByContract } from '../../server/http/response-check.js';
import { loadConfig, ConfigError } from '../../server/config.js';

const c = initContract();
const contract = c.router({
  inner: c.router({
    get: { method: 'POST', path: '/get', body: z.object({}), responses: { 200: z.object({ id: z.string(), tags: z.array(z.string()).default([]) }) } },
  }),
});

type Answer = { status: 200; body: unknown };
const routerAnswering = (body: unknown) => ({ inner: { get: async (): Promise<Answer> => ({ status: 200, body }) } });
const call = (router: ReturnType<typeof routerAnswering>) => router.inner.get();

describe('checkResponses', () => {
  it('passes an answer of exactly the contract shape, and leaves the router alone when off', async () => {
    const router = routerAnswering({ id: 'a', tags: ['x'] });
    await expect(call(checkResponses(contract, router, 'strict'))).resolves.toEqual({ status: 200, body: { id: 'a', tags: ['x'] } });
    expect(checkResponses(contract, router, 'off')).toBe(router);
  });

  it('refuses an answer the contract refuses', async () => {
    await expect(call(checkResponses(contract, routerAnswering({ id: 7, tags: [] }), 'strict'))).rejects.toBeInstanceOf(ResponseValidationError);
  });

  it('refuses an answer with a field the contract would strip (production would send it)', async () => {
    const checked = checkResponses(contract, routerAnswering({ id: 'a', tags: [], apiKeyId: 'secret-owner' }), 'strict');
    await expect(call(checked)).rejects.toThrow(ResponseChangedByContract);
    await expect(call(checked)).rejects.toThrow(/body\.apiKeyId/);
  });

  it('refuses an answer the contract would fill in with a default', async () => {
    await expect(call(checkResponses(contract, routerAnswering({ id: 'a' }), 'strict'))).rejects.toThrow(/body\.tags/);
  });

  it('is off unless RESPONSE_VALIDATION says strict, and refuses other values', () => {
    expect(loadConfig({}).responseValidation).toBe('off');
    expect(loadConfig({ RESPONSE_VALIDATION: 'strict' }).responseValidation).toBe('strict');
    expect(() => loadConfig({ RESPONSE_VALIDATION: 'on' })).toThrow(ConfigError);
  });
});
