import { afterAll, beforeAll } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

/** The server and workspace the Add Users and Delete Users tests share, one per file, and who is a member where. */
export let server: TestServer;
export let client: Client;

/** The IDs of an organization's members, or of a document's or folder's. */
export const memberIds = async (organizationId: string, level: { documentId?: string; folderId?: string } = {}) =>
  (await client.users.getUsers({ organizationId, ...level })).data.map((u) => u.userId);

/** Registers these hooks in the calling test file (each test file gets its own server). */
export function useUsersServer(): void {
  beforeAll(async () => {
    server = await startTestServer();
    client = server.client(await server.workspace());
  });
  afterAll(() => server?.close());
}
