// Every table keyed by a document or a user must be in the owned-data
// registry, or Migrate Documents and Delete All User Data would leave its rows
// behind. The models file is the source: a new model with a `documentId` or
// `userId` column fails here until it registers how it moves and is erased.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

function modelsWithColumns(columns: string[]): string[] {
  const schema = readFileSync(new URL('../../prisma/models.prisma', import.meta.url), 'utf8');
  const found: string[] = [];
  for (const match of schema.matchAll(/^model (\w+) \{([\s\S]*?)^\}/gm)) {
    const fields = match[2]!.split('\n').map((line) => line.trim().split(/\s+/)[0]);
    if (fields.some((field) => field !== undefined && columns.includes(field))) found.push(match[1]!);
  }
  return found;
}

it('registers every model with a documentId or userId column', () => {
  const keyed = modelsWithColumns(['documentId', 'userId']);
  expect(keyed.length).toBeGreaterThan(0);
  const registered = server.running.services.owned.models();
  expect(keyed.filter((model) => !registered.includes(model))).toEqual([]);
});

it('registers the access tables that hold documents and users under other column names', () => {
  expect(server.running.services.owned.models()).toEqual(expect.arrayContaining(['Document', 'Grant', 'UserGroupMember', 'User']));
});

it('refuses to walk the registry outside a unit of work', async () => {
  await expect(server.running.services.owned.eraseUser({ apiKeyId: 'a', userId: 'u' })).rejects.toThrow(/unit of work/);
});
