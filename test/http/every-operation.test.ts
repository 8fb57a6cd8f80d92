import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract, type OperationMeta } from '../../contract/index.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';

/**
 * The checks every operation owes, run over the whole contract so a new
 * operation cannot skip them: a missing credential is UNAUTHENTICATED, a wrong
 * one PERMISSION_DENIED, an unknown field INVALID_ARGUMENT naming it — each as
 * the error envelope with the table's HTTP code.
 */
const routes = Object.entries(contract).flatMap(([, group]) =>
  Object.entries(group as Record<string, { path: string; metadata: OperationMeta }>).map(([name, route]) => ({ name, ...route })),
);

let server: TestServer;
let ws: WorkspaceCredentials;
beforeAll(async () => {
  server = await startTestServer();
  ws = await server.workspace();
});
afterAll(() => server?.close());

function headersFor(auth: OperationMeta['auth'], c: WorkspaceCredentials, wrong = false): Record<string, string> {
  if (auth === 'workspace') return { 'x-service-workspace-id': c.workspaceId, 'x-service-workspace-auth-token': wrong ? 'wat_wrong' : c.workspaceAuthToken };
  if (auth === 'application') return { 'x-service-api-key': c.apiKey, 'x-service-auth-token': wrong ? 'at_wrong' : c.authToken };
  // The API key alone names the application; the operation checks the body's signature itself.
  if (auth === 'signedBody') return { 'x-service-api-key': wrong ? 'ak_wrong' : c.apiKey };
  return {};
}

/** The path with a value for each `:name` parameter. */
const filled = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, 'some-id');

describe.each(routes)('$name ($path)', (route) => {
  it.skipIf(route.metadata.auth === 'public')('is UNAUTHENTICATED without credentials and PERMISSION_DENIED with wrong ones', async () => {
    const missing = await server.post(filled(route.path), { data: {} });
    expect([missing.status, missing.body.error?.status]).toEqual([401, 'UNAUTHENTICATED']);
    const wrong = await server.post(filled(route.path), { data: {} }, headersFor(route.metadata.auth, ws, true));
    expect([wrong.status, wrong.body.error?.status]).toEqual([403, 'PERMISSION_DENIED']);
  });

  // A third party's raw body has no `data` and no fields of ours: its checks are in test/http/workflows/triggers.test.ts.
  it.skipIf(route.metadata.rawBody === true)('rejects an unknown field as INVALID_ARGUMENT naming it', async () => {
    const res = await server.post(route.path, { data: { notAField: 1 } }, headersFor(route.metadata.auth, ws));
    expect([res.status, res.body.error?.status]).toEqual([400, 'INVALID_ARGUMENT']);
    expect(res.body.error.message).toMatch(/notAField|is required/);
  });

  it.skipIf(route.metadata.rawBody === true)('rejects a body without data', async () => {
    const res = await server.post(route.path, {}, headersFor(route.metadata.auth, ws));
    expect([res.status, res.body.error?.status]).toEqual([400, 'INVALID_ARGUMENT']);
  });
});
