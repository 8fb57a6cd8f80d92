import { afterAll, beforeAll } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

/** The server, workspace and documents the document tests share: organization d-org with folder f and seven documents, one server per file. */
export let server: TestServer;
export let ws: WorkspaceCredentials;
export let client: Client;
export const ORG = 'd-org';

/** Registers these hooks in the calling test file (each test file gets its own server). */
export function useDocumentsServer(): void {
  beforeAll(async () => {
    server = await startTestServer();
    ws = await server.workspace();
    client = server.client(ws);
    await client.organizations.addFolder({ organizationId: ORG, folderId: 'f', accessType: 'restricted' });
    for (let i = 0; i < 7; i++) await client.organizations.addDocument({ organizationId: ORG, documentId: `doc-${i}`, documentName: `Doc ${i}`, ...(i % 3 === 0 ? { folderId: 'f' } : {}) });
  });
  afterAll(() => server?.close());
}
