import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { contract } from '../../contract/index.js';
import { renderOpenApiDocument } from '../../openapi/document.js';

const checkedIn = readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8');
const doc = JSON.parse(checkedIn);

function routes(node: Record<string, any>): Array<[string, any]> {
  return Object.entries(node).flatMap(([key, value]) => (value.method ? [[key, value] as [string, any]] : routes(value)));
}

/** A route's path as OpenAPI writes it: `:name` parameters as `{name}`. */
const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

describe('openapi/openapi.json', () => {
  it('equals a fresh generation from the contract (run `npm run openapi` when this fails)', () => {
    expect(checkedIn).toBe(renderOpenApiDocument());
  });

  it('has every contract operation, POST only, with operationId, summary, description, request, success and error schemas', () => {
    const all = routes(contract);
    expect(all.length).toBeGreaterThan(0);
    for (const [name, route] of all) {
      const path = openApiPath(route.path);
      const op = doc.paths[path]?.post;
      expect(op, route.path).toBeDefined();
      expect(Object.keys(doc.paths[path])).toEqual(['post']);
      expect(op.operationId).toBe(name);
      expect(op.summary).toBeTruthy();
      expect(op.description).toBeTruthy();
      const body = op.requestBody.content['application/json'].schema;
      if (route.metadata.rawBody) {
        // A third party's own JSON object (Inbound Workflow Trigger), with its path parameters declared.
        expect(body.type).toBe('object');
        for (const [, param] of route.path.matchAll(/:([A-Za-z0-9_]+)/g)) expect(op.parameters.some((p: any) => p.in === 'path' && p.name === param && p.required)).toBe(true);
      } else {
        expect(body.required).toEqual(['data']);
        expect(body.additionalProperties).toBe(false);
      }
      expect(op.responses['200'].content['application/json'].schema.properties.result).toBeDefined();
      const envelope = route.metadata.numericErrorCode ? 'ErrorEnvelopeWithCode' : 'ErrorEnvelope';
      for (const code of ['400', '401', '403', '404', '409', '429', '500', '503']) {
        expect(op.responses[code].content['application/json'].schema.$ref, `${name} ${code}`).toBe(`#/components/schemas/${envelope}`);
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
    expect(envelope.properties.error.properties.status.allOf).toEqual([{ $ref: '#/components/schemas/ErrorStatus' }]);
    // The variant of the operations whose envelope carries the numeric code: the same fields, plus `code`.
    const withCode = doc.components.schemas.ErrorEnvelopeWithCode.properties.error;
    expect(withCode.properties.status.allOf).toEqual([{ $ref: '#/components/schemas/ErrorStatus' }]);
    expect(withCode.properties.code.type).toBe('integer');
    expect(withCode.required).toEqual(['message', 'status', 'code']);
    expect(Object.keys(withCode.properties).sort()).toEqual([...Object.keys(envelope.properties.error.properties), 'code'].sort());
    expect(doc.components.schemas.ErrorStatus.enum).toEqual([
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

  it('names the resources of the specification as components, referenced by the operations', () => {
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    const data = (path: string) => doc.paths[path].post.responses['200'].content['application/json'].schema.properties.result.properties.data;
    const body = (path: string) => doc.paths[path].post.requestBody.content['application/json'].schema.properties.data.properties;
    expect(data('/v2/organizations/add')).toEqual(ref('Organization'));
    expect(data('/v2/organizations/get').items).toEqual(ref('Organization'));
    expect(data('/v2/organizations/folders/add')).toEqual(ref('Folder'));
    expect(data('/v2/organizations/folders/get').items).toEqual(ref('Folder'));
    expect(doc.components.schemas.Folder.properties.subFolders.items).toEqual(ref('Folder'));
    expect(data('/v2/organizations/documents/get').items).toEqual(ref('Document'));
    expect(data('/v2/users/get').items).toEqual(ref('User'));
    expect(data('/v2/organizations/usergroups/add')).toEqual(ref('UserGroup'));
    expect(data('/v2/auth/permissions/get').additionalProperties).toEqual(ref('PermissionResult'));
    expect(doc.components.schemas.PermissionResult.properties.documents.additionalProperties).toEqual(ref('PermissionEntry'));
    expect(body('/v2/auth/generate_token').permissions.properties.resources.items).toEqual(ref('ResourcePermission'));
    expect(body('/v2/users/add').users.items).toEqual(ref('UserInput'));
    expect(doc.components.schemas.ResourcePermission.properties.type).toEqual(ref('ResourceType'));
  });

  it('inlines no copy of a named schema: every use is a $ref', () => {
    // A name lost on the way (e.g. a schema rebuilt instead of reused) leaves
    // an anonymous duplicate that clients would turn into a second type.
    const strip = ({ title: _t, description: _d, ...rest }: Record<string, unknown>) => JSON.stringify(rest);
    const named = new Map(Object.entries(doc.components.schemas as Record<string, Record<string, unknown>>).map(([name, schema]) => [strip(schema), name]));
    const copies: string[] = [];
    const visit = (node: unknown, at: string, root: boolean) => {
      if (typeof node !== 'object' || node === null) return;
      if (!root && !Array.isArray(node) && named.has(strip(node as Record<string, unknown>))) copies.push(`${at} copies ${named.get(strip(node as Record<string, unknown>))}`);
      for (const [key, child] of Object.entries(node)) visit(child, `${at}/${key}`, false);
    };
    visit(doc.paths, '#/paths', true);
    for (const [name, schema] of Object.entries(doc.components.schemas)) visit(schema, `#/components/schemas/${name}`, true);
    expect(copies).toEqual([]);
  });

  it('names its servers, license and tags', () => {
    expect(doc.openapi).toBe('3.0.3');
    expect(doc.info.license.name).toBe(JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).license);
    expect(doc.servers[0].variables.base_url.default).toBe('http://localhost:8080');
    expect(doc.tags.map((tag: { name: string }) => tag.name).sort()).toEqual(Object.keys(contract).sort());
  });
});
