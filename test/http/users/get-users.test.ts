import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let client: Client;

beforeAll(async () => {
  server = await startTestServer();
  client = server.client(await server.workspace());
  await client.users.addUsers({ organizationId: 'a-org', users: [{ userId: 'ann' }] });
});
afterAll(() => server?.close());

describe('Get Users', () => {
  it('pages the contact list with an opaque token', async () => {
    await client.users.addUsers({ organizationId: 'p-org', users: ['u1', 'u2', 'u3', 'u4', 'u5'].map((userId) => ({ userId })) });
    const first = await client.users.getUsers({ organizationId: 'p-org', pageSize: 2 });
    expect(first.data.map((u) => u.userId)).toEqual(['u1', 'u2']);
    const second = await client.users.getUsers({ organizationId: 'p-org', pageSize: 2, pageToken: first.pageToken! });
    const third = await client.users.getUsers({ organizationId: 'p-org', pageSize: 2, pageToken: second.pageToken! });
    expect([...second.data, ...third.data].map((u) => u.userId)).toEqual(['u3', 'u4', 'u5']);
    expect(third.pageToken).toBeNull();
    await expectCollabError(client.users.getUsers({ organizationId: 'p-org', pageToken: `${first.pageToken}x` }), 'INVALID_ARGUMENT', /pageToken/);
    await expectCollabError(client.users.getUsers({ organizationId: 'a-org', pageToken: first.pageToken! }), 'INVALID_ARGUMENT', /pageToken/);
  });

  it('is NOT_FOUND for an unknown organization or document', async () => {
    await expectCollabError(client.users.getUsers({ organizationId: 'nope' }), 'NOT_FOUND');
    await expectCollabError(client.users.getUsers({ organizationId: 'a-org', documentId: 'nope' }), 'NOT_FOUND');
  });
});
