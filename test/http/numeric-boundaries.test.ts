// Every number field of every request at its bounds, through the database the
// suite runs on: the minimum and maximum succeed (and read back exactly where
// the operation stores them: Unix seconds past 2038 need 64-bit columns on
// PostgreSQL), one step outside and a fraction are INVALID_ARGUMENT.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract } from '../../contract/index.js';
import { usingPostgres } from '../helpers/database.js';
import { BOUNDS_RUN_DOCUMENTS, BOUNDS_WORKFLOW_UPDATES, boundsAgent, boundsAgentConfig, boundsGraph, boundsRunAgent, boundsRunAgentConfig, boundsWebhook, boundsWorkflow, NUMERIC_FIELDS } from '../helpers/numeric-fields.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';
import { z } from 'zod';

let server: TestServer;
let ws: WorkspaceCredentials;

beforeAll(async () => {
  // Each run case starts runs that no job ends (the test runs none).
  server = await startTestServer({ AGENT_MAX_CONCURRENT_RUNS: '1000' });
  ws = await server.workspace();
  const headers = appHeaders(ws);
  await server.post('/v2/organizations/add', { data: { organizationId: 'bounds-org' } }, headers);
  await server.post('/v2/organizations/documents/add', { data: { organizationId: 'bounds-org', documentId: 'bounds-doc' } }, headers);
  await server.post('/v2/workspace/advancedwebhookconfig/update', { data: { isEnabled: true } }, headers);
  const endpoint = await server.post('/v2/workspace/advancedwebhook/endpoints/create', { data: { url: boundsWebhook.url, disabled: true } }, headers);
  boundsWebhook.endpointId = endpoint.body.result.data.id;
  const agent = await server.post('/v2/agents/create', { data: boundsAgentConfig }, headers);
  boundsAgent.agentId = agent.body.result.data.agentId;
  boundsRunAgent.agentId = (await server.post('/v2/agents/create', { data: boundsRunAgentConfig }, headers)).body.result.data.agentId;
  for (let i = 0; i < BOUNDS_RUN_DOCUMENTS; i++) {
    await server.post('/v2/organizations/documents/add', { data: { organizationId: 'bounds-org', documentId: `bounds-run-${i}` } }, headers);
  }
  const apiKeyId = (await server.cli<{ apiKey: { id: string } }>('workspace', 'get', '--api-key', ws.apiKey)).apiKey.id;
  const first = await server.running.database.db.agentVersion.findFirstOrThrow({ where: { apiKeyId, agentId: boundsAgent.agentId, version: 1 } });
  await server.running.database.db.agentVersion.create({ data: { ...first, version: 2_147_483_647 } });
  // Workflows: the definitions the update cases replace, one at the highest version ifVersion takes, and an execution to read events of.
  for (const definitionId of [...BOUNDS_WORKFLOW_UPDATES, 'bounds-wf-if-1', 'bounds-wf-if-max']) {
    await server.post('/v2/workflow/definitions/create', { data: { definitionId, name: 'bounds', ...boundsGraph('notification') } }, headers);
  }
  const db = server.running.database.db;
  const head = await db.workflowDefinition.findUniqueOrThrow({ where: { apiKeyId_definitionId: { apiKeyId, definitionId: 'bounds-wf-if-max' } } });
  const body = await db.workflowDefinitionVersion.findUniqueOrThrow({ where: { apiKeyId_definitionId_version: { apiKeyId, definitionId: 'bounds-wf-if-max', version: 1 } } });
  await db.workflowDefinitionVersion.create({ data: { ...body, version: 2_147_483_646 } });
  await db.workflowDefinition.update({ where: { apiKeyId_definitionId: { apiKeyId, definitionId: head.definitionId } }, data: { version: 2_147_483_646 } });
  const dispatched = await server.post('/v2/workflow/executions/dispatch', { data: { definitionId: 'bounds-wf-if-1', organizationId: 'bounds-org' } }, headers);
  boundsWorkflow.executionId = dispatched.body.result.data.executionId;
});
afterAll(() => server?.close());

/** The bounds the contract declares for a field (test/contract/numeric-bounds.test.ts proves they exist). */
function boundsOf(operation: string, path: string): { min: number; max: number } {
  const route = Object.values(contract)
    .flatMap((group) => Object.entries(group as Record<string, { body: z.ZodTypeAny }>))
    .find(([name]) => name === operation)![1];
  const number = unwrap(fieldAt(route.body, path.split('.'))!) as z.ZodNumber;
  return { min: number.minValue!, max: number.maxValue! };
}

/** The schema at a dotted path; through a union (workflow nodes by type), the option the rest of the path is found in. */
function fieldAt(schema: z.ZodTypeAny, parts: string[]): z.ZodTypeAny | undefined {
  if (parts.length === 0) return schema;
  const inner = unwrap(schema);
  if (inner instanceof z.ZodDiscriminatedUnion || inner instanceof z.ZodUnion) {
    for (const option of inner.options as z.ZodTypeAny[]) {
      const found = fieldAt(option, parts);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  const [part, ...rest] = parts as [string, ...string[]];
  const key = part.replace('[]', '').replace('{}', '');
  if (!(inner instanceof z.ZodObject)) return undefined;
  let field = (inner as z.AnyZodObject).shape[key] as z.ZodTypeAny | undefined;
  if (field === undefined) return undefined;
  if (part.endsWith('[]')) field = (unwrap(field) as z.ZodArray<z.ZodTypeAny>).element;
  if (part.endsWith('{}')) field = (unwrap(field) as z.ZodRecord).valueSchema as z.ZodTypeAny;
  return fieldAt(field, rest);
}

function unwrap(schema: z.ZodTypeAny): z.ZodTypeAny {
  for (;;) {
    if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) schema = schema.unwrap();
    else if (schema instanceof z.ZodEffects) schema = schema.innerType();
    // A number among other types (e.g. a string, number or boolean default): its number option.
    else if (schema instanceof z.ZodUnion) schema = (schema.options as z.ZodTypeAny[]).find((option) => unwrap(option) instanceof z.ZodNumber) ?? schema.options[0];
    else return schema;
  }
}

describe(`numbers at their bounds (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  for (const field of NUMERIC_FIELDS) {
    it(`${field.operation} ${field.path}`, async () => {
      const { min, max } = boundsOf(field.operation, field.path);
      const send = (value: number) => {
        const { path, data } = field.request(value);
        return server.post(path, { data }, appHeaders(ws));
      };
      // Unix seconds in the past are refused by the service, so expiry starts at "now".
      const lowest = field.path.endsWith('expiresAt') ? Math.floor(Date.now() / 1000) + 3600 : min;
      const highest = field.highest?.() ?? max;
      for (const value of [lowest, 2 ** 31, highest].filter((v) => v >= lowest && v <= highest)) {
        const res = await send(value);
        expect([value, res.status, res.body.error?.message]).toEqual([value, 200, undefined]);
        if (field.readBack) {
          const read = await server.post(field.readBack.path, { data: field.readBack.data }, appHeaders(ws));
          expect(field.readBack.pick(read.body.result)).toBe(value);
        }
      }
      if (field.fractional) {
        const res = await send(min + 0.5);
        expect([min + 0.5, res.status, res.body.error?.message]).toEqual([min + 0.5, 200, undefined]);
        if (field.readBack) {
          const read = await server.post(field.readBack.path, { data: field.readBack.data }, appHeaders(ws));
          expect(field.readBack.pick(read.body.result)).toBe(min + 0.5);
        }
      }
      for (const value of field.fractional ? [min - 1, max + 1] : [min - 1, max + 1, min + 0.5]) {
        const res = await send(value);
        expect([value, res.status, res.body.error?.status]).toEqual([value, 400, 'INVALID_ARGUMENT']);
      }
    });
  }
});
