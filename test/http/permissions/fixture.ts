import { afterAll, beforeAll } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

/** The server and workspace the Add Permissions and Remove Permissions tests share: one per file, with the restricted document d1 of org-ar. */
export let server: TestServer;
export let client: Client;
export const ORG = 'org-ar';

/** Registers these hooks in the calling test file (each test file gets its own server). */
export function usePermissionsServer(): void {
  beforeAll(async () => {
    server = await startTestServer();
    client = server.client(await server.workspace());
    await client.organizations.addDocument({ organizationId: ORG, documentId: 'd1', accessType: 'restricted' });
  });
  afterAll(() => server?.close());
}
