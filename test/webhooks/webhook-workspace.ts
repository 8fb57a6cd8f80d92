import { expect } from 'vitest';
import { contract } from '../../contract/index.js';
import { appHeaders, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';

/** The path of each webhook operation, from the contract. */
export const paths = Object.fromEntries(Object.entries(contract.webhooks).map(([name, route]) => [name, route.path])) as Record<
  keyof typeof contract.webhooks,
  string
>;

/** Sends `data` as is (what the SDK's types would not let through) and expects the error envelope. */
export async function expectError(
  server: TestServer,
  ws: WorkspaceCredentials,
  path: string,
  data: unknown,
  status: string,
  message?: RegExp,
): Promise<string> {
  const res = await server.post(path, { data }, appHeaders(ws));
  const http = { INVALID_ARGUMENT: 400, FAILED_PRECONDITION: 400, NOT_FOUND: 404, ALREADY_EXISTS: 409 }[status];
  expect({ data, status: res.status, error: res.body.error?.status }).toEqual({ data, status: http, error: status });
  if (message) expect(res.body.error.message).toMatch(message);
  return res.body.error.message as string;
}
