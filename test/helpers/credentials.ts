import { expect } from 'vitest';
import { CollabError } from '../../sdk/index.js';
import type { TestServer, WorkspaceCredentials } from './server.js';

/** Asserts that a promise rejects with a CollabError of this status. */
export async function expectCollabError(promise: Promise<unknown>, status: string, message?: RegExp): Promise<CollabError> {
  const error = await promise.then(
    () => {
      throw new Error(`expected ${status}, but the call succeeded`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CollabError);
  const collab = error as CollabError;
  expect(collab.status).toBe(status);
  if (message) expect(collab.message).toMatch(message);
  return collab;
}

/**
 * The two credential failures every application operation must show: a
 * missing header (UNAUTHENTICATED) and a wrong key (PERMISSION_DENIED).
 */
export async function expectCredentialChecks(server: TestServer, ws: WorkspaceCredentials, path: string, data: unknown) {
  const missing = await server.post(path, { data }, { 'x-service-api-key': ws.apiKey });
  expect([missing.status, missing.body.error?.status]).toEqual([401, 'UNAUTHENTICATED']);
  const wrong = await server.post(path, { data }, { 'x-service-api-key': `${ws.apiKey}x`, 'x-service-auth-token': ws.authToken });
  expect([wrong.status, wrong.body.error?.status]).toEqual([403, 'PERMISSION_DENIED']);
}
