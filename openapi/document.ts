import { generateOpenApi } from '@ts-rest/open-api';
import { contract, ERROR_STATUS_HTTP, type OperationMeta } from '../contract/index.js';

const SECURITY: Record<OperationMeta['auth'], Record<string, string[]>[]> = {
  application: [{ apiKey: [], authToken: [] }],
  workspace: [{ workspaceId: [], workspaceAuthToken: [] }],
  public: [],
};

const ERROR_TABLE = Object.entries(ERROR_STATUS_HTTP)
  .map(([status, http]) => `| ${status} | ${http} |`)
  .join('\n');

/** The OpenAPI document, derived from the contract alone. Deterministic: a drift test compares bytes. */
export function buildOpenApiDocument() {
  return generateOpenApi(
    contract,
    {
      info: {
        title: 'Collab Backend REST interface',
        version: '2.0.0',
        description: [
          'Every operation is POST with a JSON body `{"data": {...}}`.',
          'Success: `{"result": {"status": "success", "message", "data"}}`. Failure: `{"error": {"message", "status", "details?"}}`.',
          '',
          'Error statuses and their HTTP codes:',
          '',
          '| status | HTTP |',
          '|---|---|',
          ERROR_TABLE,
        ].join('\n'),
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'x-service-api-key', description: 'Application API key.' },
          authToken: { type: 'apiKey', in: 'header', name: 'x-service-auth-token', description: 'An auth token of that API key.' },
          workspaceId: { type: 'apiKey', in: 'header', name: 'x-service-workspace-id', description: 'Workspace ID (workspace management only).' },
          workspaceAuthToken: {
            type: 'apiKey',
            in: 'header',
            name: 'x-service-workspace-auth-token',
            description: 'Workspace auth token (workspace management only).',
          },
        },
      },
    },
    {
      setOperationId: true,
      operationMapper: (operation, route) => {
        const meta = route.metadata as OperationMeta;
        return { ...operation, security: [...SECURITY[meta.auth]] };
      },
    },
  );
}

export function renderOpenApiDocument(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}
