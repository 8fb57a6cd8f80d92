import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { contract } from '../../contract/index.js';
import { renderOpenApiDocument } from '../../openapi/document.js';

const checkedIn = readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8');
const doc = JSON.parse(checkedIn);

function routes(node: Record<string, any>): Array<[string, any]> {
  return Object.entries(node).flatMap(([key, value]) => (value.method ? [[key, value] as [string, any]] : routes(value)));
}

describe('openapi/openapi.json', () => {
  it('equals a fresh generation from the contract (run `npm run openapi` when this fails)', () => {
    expect(checkedIn).toBe(renderOpenApiDocument());
  });

  it('has every contract operation, POST only, with operationId, summary, description, request, success and error schemas', () => {
    const all = routes(contract);
    expect(all.length).toBeGreaterThan(0);
    for (const [name, route] of all) {
      const op = doc.paths[route.path]?.post;
      expect(op, route.path).toBeDefined();
      expect(Object.keys(doc.paths[route.path])).toEqual(['post']);
      expect(op.operationId).toBe(name);
      expect(op.summary).toBeTruthy();
      expect(op.description).toBeTruthy();
      const body = op.requestBody.content['application/json'].schema;
      expect(body.required).toEqual(['data']);
      expect(body.additionalProperties).toBe(false);
      expect(op.responses['200'].content['application/json'].schema.properties.result).toBeDefined();
      for (const code of ['400', '401', '403', '404', '409', '429', '500', '503']) {
        expect(op.responses[code].content['application/json'].schema.$ref, `${name} ${code}`).toBe('#/components/schemas/ErrorEnvelope');
      }
    }
  });

  it('declares both credential pairs and applies them per operation', () => {
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['apiKey', 'authToken', 'workspaceAuthToken', 'workspaceId']);
    expect(doc.paths['/v2/workspace/activityconfig/get'].post.security).toEqual([{ apiKey: [], authToken: [] }]);
    expect(doc.paths['/v2/workspace/authtokens/get'].post.security).toEqual([{ workspaceId: [], workspaceAuthToken: [] }]);
    expect(doc.paths['/v2/workspace/email/status'].post.security).toEqual([]);
  });

  it('documents the error envelope once, with every status', () => {
    const envelope = doc.components.schemas.ErrorEnvelope;
    expect(envelope.properties.error.properties.status.enum).toEqual([
      'INVALID_ARGUMENT',
      'FAILED_PRECONDITION',
      'UNAUTHENTICATED',
      'PERMISSION_DENIED',
      'NOT_FOUND',
      'ALREADY_EXISTS',
      'RESOURCE_EXHAUSTED',
      'INTERNAL',
      'UNAVAILABLE',
    ]);
  });
});
