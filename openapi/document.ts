import { generateOpenApi } from '@ts-rest/open-api';
import { contract, ERROR_STATUS_HTTP, type Contract, type OperationMeta } from '../contract/index.js';
import { mapOperationSchemas, NamedSchemaHoister, toOpenApi30, type Schema } from './schemas.js';

const SECURITY: Record<OperationMeta['auth'], Record<string, string[]>[]> = {
  application: [{ apiKey: [], authToken: [] }],
  workspace: [{ workspaceId: [], workspaceAuthToken: [] }],
  public: [],
  // The API key names the application; the body's signature (described by the operation) authenticates it.
  signedBody: [{ apiKey: [] }],
};

const ERROR_TABLE = Object.entries(ERROR_STATUS_HTTP)
  .map(([status, http]) => `| ${status} | ${http} |`)
  .join('\n');

/** ts-rest describes a response by its code alone; say what each carries. */
const RESPONSE_DESCRIPTIONS: Record<string, string> = {
  200: 'Success: the result envelope.',
  ...Object.fromEntries(
    [...new Set(Object.values(ERROR_STATUS_HTTP))].map((http) => {
      const statuses = Object.entries(ERROR_STATUS_HTTP).filter(([, code]) => code === http).map(([status]) => status);
      return [http, `The error envelope, with status ${statuses.join(' or ')}.`];
    }),
  ),
};

/** ts-rest tags each operation with the name of its group in the contract. */
const TAGS: Record<keyof Contract, string> = {
  workspace: 'Workspace configuration of the calling application, and workspace-level management.',
  permissions: 'Effective permissions, grants, and user tokens carrying resource permissions.',
  users: 'Users of an organization, folder or document, and user groups.',
  organizations: 'Organizations, their folders and documents, and access to them.',
  comments: 'Comment threads (comment annotations) on documents, their comments and reactions.',
  notifications: 'Notifications (from comment activity and custom ones), their read state, and per-user notification configs.',
  activities: 'Activity logs: records of what users did, written by the service from domain events and by the application.',
  recordings: 'Recordings (recorder annotations) on documents.',
  userData: "A user's data: export (Get All User Data) and erasure (Delete All User Data), the latter as a background job.",
  migrations: 'Document migration: a document and everything keyed to it move to a new ID, as a background job.',
  crdt: 'Collaborative editor (Yjs) data, read and written on the same live documents that clients edit over WebSocket at /crdt.',
  liveState: 'Live state: the latest value per liveStateDataId of a document, delivered to every client connected to it over WebSocket and kept for late joiners.',
  webhooks: 'Advanced webhooks: endpoints that receive every event, signed the Standard Webhooks way, with retries, delivery history and resend.',
  presence: 'Presence: who is on a document, set through the API (seen by connected clients as awareness states) and from WebSocket connections.',
  ai: "AI: text rewriting through the application's own OpenAI, Anthropic or Gemini key (Ask AI).",
  memory: 'Decision memory: past judgments (approve or reject, with reasons) and decision suggestions grounded in them.',
  agents: 'Configurable AI agents: built-in agents in every application, custom agents with versioned behavioral configurations (secrets encrypted and redacted), ordered agent groups, and restoring an earlier version.',
  agentRuns: 'Agent runs: an agent run on a page (or a crawl from it) for a document in the background, its findings left as suggestion threads; reads, counts, cancel and analytics of runs (docs/agents.md).',
  agentPrompts: "Prompt tools: an agent's instructions enhanced, refined or validated by the application's own AI provider.",
  workflowDefinitions: 'Approval workflows: definitions (agent gates, human reviews, notifications, webhooks; edges, quorum groups and loops), versioned and checked as a whole (docs/workflows.md).',
  workflowExecutions: 'Approval workflow executions: dispatch, read, list and cancel runs of a definition, and their event log.',
  workflowSteps: "Approval workflow steps: reviewers' decisions, operators' overrides and cancels, and resolutions of blocking agent steps.",
};

type Operation = Record<string, any>;

/** The request example goes in the body's media type, as renderers (Redoc, Scalar) show it. */
function withExample(operation: Operation, meta: OperationMeta): Operation {
  const media = operation.requestBody?.content?.['application/json'];
  if (meta.example === undefined || media === undefined) return operation;
  return {
    ...operation,
    // A raw-body operation's example is the whole body (no `data` envelope).
    requestBody: { ...operation.requestBody, content: { 'application/json': { ...media, example: meta.rawBody ? meta.example.data : { data: meta.example.data } } } },
  };
}

function withResultExample(responses: Operation, meta: OperationMeta): Operation {
  const media = responses[200]?.content?.['application/json'];
  if (meta.example === undefined || media === undefined) return responses;
  return { ...responses, 200: { ...responses[200], content: { 'application/json': { ...media, example: { result: meta.example.result } } } } };
}

/**
 * The OpenAPI document, derived from the contract alone. Deterministic: a drift test compares bytes.
 *
 * OpenAPI 3.0 rather than 3.1: ts-rest's converter writes 3.0 (`nullable`), and
 * 3.0 is what client generators and gateways accept most widely; the converter's
 * few 3.1-only forms are rewritten (see toOpenApi30).
 */
export function buildOpenApiDocument() {
  const generated = generateOpenApi(
    contract,
    {
      info: {
        title: 'Collab Backend REST interface',
        version: '2.0.0',
        description: [
          'Every operation is POST with a JSON body `{"data": {...}}`, but Inbound Workflow Trigger, which takes a third party\'s own JSON with the definition in its path.',
          '',
          '**Credentials.** The operator creates a workspace with the operator CLI on the server machine: `npm run --silent cli -- workspace create --owner-email you@example.com` prints `workspaceId`, `workspaceAuthToken`, `apiKey` and `authToken` (shown once). Send `x-service-api-key: <apiKey>` and `x-service-auth-token: <authToken>` with every operation, except the few workspace management operations whose authorization lists `workspaceId` and `workspaceAuthToken` (e.g. Get Auth Tokens), which take `x-service-workspace-id: <workspaceId>` and `x-service-workspace-auth-token: <workspaceAuthToken>`. `auth-token create --api-key <apiKey>` makes more auth tokens. Two operations are called by third parties without these: Record Workflow Step Callback (its `token` is the credential) and Inbound Workflow Trigger (the API key names the application, a signature of the body authenticates it).',
          '',
          'Success: `{"result": {"status": "success", "message", "data"}}`. Failure: `{"error": {"message", "status", "details?"}}`.',
          '',
          'Error statuses and their HTTP codes:',
          '',
          '| status | HTTP |',
          '|---|---|',
          ERROR_TABLE,
        ].join('\n'),
        license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
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
        const responses = Object.fromEntries(
          Object.entries(operation.responses).map(([code, response]) => [code, { ...response, description: RESPONSE_DESCRIPTIONS[code] ?? code }]),
        );
        return { ...withExample(operation, meta), responses: withResultExample(responses, meta), security: [...SECURITY[meta.auth]] };
      },
    },
  );
  const { openapi: _, paths, components = {}, ...rest } = generated;
  if (components.schemas !== undefined) {
    throw new Error('ts-rest hoisted titled schemas: name schemas with named() (contract/common/named.ts) instead of a title');
  }
  const hoister = new NamedSchemaHoister();
  mapOperationSchemas(paths, (schema) => toOpenApi30(hoister.hoist(schema as Schema)));
  const schemas = Object.fromEntries(Object.entries(hoister.schemas()).map(([name, schema]) => [name, toOpenApi30(schema)]));
  return {
    openapi: '3.0.3',
    ...rest,
    // Self-hosted: the base address is each deployment's own, as the
    // specification's {base_url}. The default is a local server on the default
    // PORT (server/config.ts), so generated clients work out of the box.
    servers: [
      {
        url: '{base_url}',
        description: 'Your deployment of the service.',
        variables: { base_url: { default: 'http://localhost:8080', description: 'Scheme, host and port the server listens on (PORT, default 8080).' } },
      },
    ],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: { ...components, schemas },
  };
}

export function renderOpenApiDocument(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}
