import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { contract, type OperationMeta } from '../../contract/index.js';

const doc = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8'));

function routes(node: Record<string, any>): Array<[string, any]> {
  return Object.entries(node).flatMap(([key, value]) => (value.method ? [[key, value] as [string, any]] : routes(value)));
}

const withExamples = routes(contract);

/**
 * The compiler checks an example's shape against the operation's types; the
 * schemas' refinements (ID patterns, lengths, cross-field rules) only run here.
 */
describe('operation examples', () => {
  it('exist for every operation (the compiler requires them; this guards a route built without operation())', () => {
    const missing = withExamples.filter(([, route]) => (route.metadata as OperationMeta).example === undefined).map(([name]) => name);
    expect(missing).toEqual([]);
  });

  it.each(withExamples)('%s: the request example is a valid request and the result example a valid success envelope', (_name, route) => {
    const { example, rawBody } = route.metadata as OperationMeta;
    const request = route.body.safeParse(rawBody ? example.data : { data: example.data });
    expect(request.success, JSON.stringify(request.error?.issues)).toBe(true);
    if (rawBody) {
      const { params, query, headers } = example as unknown as Record<string, unknown>;
      for (const [schema, value] of [[route.pathParams, params], [route.query, query ?? {}], [route.headers, headers ?? {}]]) {
        const parsed = schema.safeParse(value);
        expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
      }
    }
    const response = route.responses[200].safeParse({ result: example.result });
    expect(response.success, JSON.stringify(response.error?.issues)).toBe(true);
  });

  it.each(withExamples)('%s: the OpenAPI document shows both examples', (_name, route) => {
    const { example, rawBody } = route.metadata as OperationMeta;
    const op = doc.paths[route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')].post;
    expect(op.requestBody.content['application/json'].example).toEqual(rawBody ? example.data : { data: example.data });
    expect(op.responses['200'].content['application/json'].example).toEqual({ result: example.result });
  });
});
