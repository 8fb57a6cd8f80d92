import { describe, expect, it } from 'vitest';
import { checkAnswer, ROUTES } from './suite.js';

/** The fuzz suite's oracle must be able to fail: each kind of wrong answer it exists to catch is caught. */

const route = (path: string) => ROUTES.find((r) => r.path === path)!;
const getOrganizations = route('/v2/organizations/get');
const getAllUserData = ROUTES.find((r) => r.metadata.numericErrorCode)!;
const JSON_TYPE = 'application/json; charset=utf-8';
const error = (status: string, message = 'm', extra: Record<string, unknown> = {}) => JSON.stringify({ error: { message, status, ...extra } });

describe('the fuzz oracle', () => {
  it('accepts the success envelope and the error envelope with the table code', () => {
    const ok = JSON.stringify({ result: { status: 'success', message: 'x', data: [], pageToken: null } });
    expect(checkAnswer(getOrganizations, 200, JSON_TYPE, ok)).toBe('success');
    expect(checkAnswer(getOrganizations, 400, JSON_TYPE, error('INVALID_ARGUMENT'))).toBe('INVALID_ARGUMENT');
    expect(checkAnswer(getOrganizations, 404, JSON_TYPE, error('NOT_FOUND'))).toBe('NOT_FOUND');
    expect(checkAnswer(getAllUserData, 404, JSON_TYPE, error('NOT_FOUND', 'm', { code: 404 }))).toBe('NOT_FOUND');
  });

  it.each([
    ['INTERNAL', 500, JSON_TYPE, error('INTERNAL'), /5xx/],
    ['UNAVAILABLE (the database is up)', 503, JSON_TYPE, error('UNAVAILABLE'), /5xx/],
    ['a status with another HTTP code than the table', 404, JSON_TYPE, error('INVALID_ARGUMENT'), /table says 400/],
    ['HTML', 400, 'text/html', '<h1>Bad</h1>', /not JSON/],
    ['unparsable JSON', 400, JSON_TYPE, '{"error":', /unparsable/],
    ['a 200 that is not the success envelope', 200, JSON_TYPE, JSON.stringify({ result: { status: 'success', message: 'x', data: {} } }), /not the success envelope/],
    ['a bare error', 400, JSON_TYPE, JSON.stringify({ message: 'm', status: 'INVALID_ARGUMENT' }), /not the error envelope/],
    ['extra top-level keys', 400, JSON_TYPE, JSON.stringify({ error: { message: 'm', status: 'INVALID_ARGUMENT' }, stack: 'x' }), /not the error envelope/],
    ['extra error fields', 400, JSON_TYPE, error('INVALID_ARGUMENT', 'm', { stack: 'at x' }), /extra fields stack/],
    ['internals in the message', 400, JSON_TYPE, error('INVALID_ARGUMENT', 'PrismaClientKnownRequestError: ...'), /internals/],
  ])('rejects %s', (_, http, contentType, body, message) => {
    expect(() => checkAnswer(getOrganizations, http, contentType, body)).toThrow(message);
  });

  it('rejects an error without the numeric code where the operation carries it, or with another code', () => {
    expect(() => checkAnswer(getAllUserData, 404, JSON_TYPE, error('NOT_FOUND'))).toThrow(/not the error envelope/);
    expect(() => checkAnswer(getAllUserData, 404, JSON_TYPE, error('NOT_FOUND', 'm', { code: 400 }))).toThrow(/differs from HTTP 404/);
  });
});

it('rejects a success envelope with an undeclared field', () => {
  const leaky = JSON.stringify({ result: { status: 'success', message: 'x', data: [], pageToken: null, apiKeyId: 'k' } });
  expect(() => checkAnswer(getOrganizations, 200, JSON_TYPE, leaky)).toThrow(/does not declare/);
});
