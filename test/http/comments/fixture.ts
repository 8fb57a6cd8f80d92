import { afterAll, beforeAll } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { testClock } from '../../../server/lib/clock.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

/** The server, workspace and users the comment tests share, one server per file on a test clock. */
export let server: TestServer;
export let ws: WorkspaceCredentials;
export let client: Client;
export const clock = testClock(Date.UTC(2026, 3, 1));
export const thread = { organizationId: 'org', documentId: 'doc' };
export const ann = { userId: 'ann' };
export const bob = { userId: 'bob' };

/** Registers these hooks in the calling test file (each test file gets its own server). */
export function useCommentsServer(): void {
  beforeAll(async () => {
    server = await startTestServer({}, { overrides: { clock } });
    ws = await server.workspace();
    client = server.client(ws);
    await client.users.addUsers({ organizationId: 'org', users: [{ userId: 'bob', name: 'Bob', email: 'bob@example.com' }] });
  });
  afterAll(() => server?.close());
}
