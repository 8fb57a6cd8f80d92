import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../server/lib/app-error.js';
import { createPageTokens } from '../../server/lib/page-token.js';

const tokens = createPageTokens(randomBytes(32));
const refused = (run: () => unknown) => {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(AppError);
  expect((caught as AppError).status).toBe('INVALID_ARGUMENT');
};

describe('page tokens', () => {
  it('seal any JSON value for a scope and open it there, checked against a schema', () => {
    const schema = z.object({ a: z.tuple([z.number(), z.string()]).nullable(), b: z.tuple([z.number(), z.string()]).nullable() });
    const token = tokens.seal('scope', { a: [1, 'x'], b: null });
    expect(tokens.open('scope', token, schema)).toEqual({ a: [1, 'x'], b: null });
    refused(() => tokens.open('other scope', token, schema));
    // Genuinely sealed, but not of the shape asked for (e.g. another kind of token of the same scope).
    refused(() => tokens.open('scope', tokens.seal('scope', { a: 'x' }), schema));
    refused(() => tokens.open('scope', `${token}x`, schema));
  });

  it('keep cursor tokens as they were: encode/decode round-trips, and a cursor token is one sealed [at, id]', () => {
    const token = tokens.encode('q', { at: 5, id: 'i' });
    expect(tokens.decode('q', token)).toEqual({ at: 5, id: 'i' });
    expect(tokens.decode('q', tokens.seal('q', [5, 'i']))).toEqual({ at: 5, id: 'i' });
    expect(tokens.decode('q', undefined)).toBeUndefined();
    refused(() => tokens.decode('q', tokens.seal('q', { at: 5, id: 'i' })));
    refused(() => tokens.decode('other', token));
  });
});
