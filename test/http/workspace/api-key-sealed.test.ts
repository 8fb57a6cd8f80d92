// The API key is kept sealed (webhook payloads carry it as metadata.apiKey):
// never in clear in the database, and kept for keys created before it was.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

it('stores the key sealed at creation and opens it for payloads', async () => {
  const ws = await server.workspace();
  const db = server.running.database.db;
  const row = await db.apiKey.findFirstOrThrow({ where: { workspaceId: ws.workspaceId } });
  expect(row.keySealed).not.toBeNull();
  expect(row.keySealed).not.toContain(ws.apiKey);
  expect(await server.running.services.accounts.apiKeyOf(row.id)).toBe(ws.apiKey);
});

it('fills in the sealed key of an older key on its next authenticated request', async () => {
  const ws = await server.workspace();
  const db = server.running.database.db;
  const { id } = await db.apiKey.findFirstOrThrow({ where: { workspaceId: ws.workspaceId } });
  await db.apiKey.update({ where: { id }, data: { keySealed: null } });
  await server.restart(); // forget opened keys
  expect(await server.running.services.accounts.apiKeyOf(id)).toBe('');
  await server.client(ws).workspace.getEmailConfig({});
  const row = await server.running.database.db.apiKey.findUniqueOrThrow({ where: { id } });
  expect(row.keySealed).not.toBeNull();
  expect(await server.running.services.accounts.apiKeyOf(id)).toBe(ws.apiKey);
});
