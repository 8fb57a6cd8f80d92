import { afterAll, beforeAll } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

/** The server and workspace the folder tests share, one per file. */
export let server: TestServer;
export let ws: WorkspaceCredentials;
export let client: Client;
export const ORG = 'f-org';

/** Registers these hooks in the calling test file (each test file gets its own server). */
export function useFoldersServer(): void {
  beforeAll(async () => {
    server = await startTestServer();
    ws = await server.workspace();
    client = server.client(ws);
    // a ⊃ b ⊃ c, and d at the top.
    await client.organizations.addFolder({ organizationId: ORG, folderId: 'a', folderName: 'A', accessType: 'public' });
    await client.organizations.addFolder({ organizationId: ORG, folderId: 'b', parentFolderId: 'a' });
    await client.organizations.addFolder({ organizationId: ORG, folderId: 'c', parentFolderId: 'b', inheritAccessFromParent: false, accessType: 'restricted' });
    await client.organizations.addFolder({ organizationId: ORG, folderId: 'd' });
  });
  afterAll(() => server?.close());
}
