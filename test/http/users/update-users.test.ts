import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let client: Client;

beforeAll(async () => {
  server = await startTestServer();
  client = server.client(await server.workspace());
  // ann is a member of a-org; dan only of one of its documents; zed does not exist.
  await client.users.addUsers({ organizationId: 'a-org', users: [{ userId: 'ann', name: 'ann smith', email: 'ann@example.com' }] });
  await client.users.addUsers({ organizationId: 'a-org', documentId: 'doc-x', createDocument: true, users: [{ userId: 'dan' }] });
});
afterAll(() => server?.close());

describe('Update Users', () => {
  it('updates profiles and the role at a level; unknown users and non-members get success:false', async () => {
    const result = await client.users.updateUsers({
      organizationId: 'a-org',
      users: [
        { userId: 'ann', email: 'ann@new.example.com', accessRole: 'viewer' },
        { userId: 'dan', accessRole: 'viewer' },
        { userId: 'zed', name: 'Zed' },
      ],
    });
    expect(result.data.ann).toEqual({ success: true, id: 'ann', message: 'User updated.' });
    expect(result.data.dan!.success).toBe(false);
    expect(result.data.dan!.message).toMatch(/not a member of organization a-org/);
    expect(result.data.zed).toEqual({ success: false, id: 'zed', message: 'User zed does not exist.' });
    const ann = (await client.users.getUsers({ organizationId: 'a-org', userIds: ['ann'] })).data[0]!;
    expect([ann.email, ann.accessRole]).toEqual(['ann@new.example.com', 'viewer']);
  });

  it('needs organizationId to change a role', async () => {
    await expectCollabError(client.users.updateUsers({ users: [{ userId: 'ann', accessRole: 'editor' }] }), 'INVALID_ARGUMENT', /organizationId: is required to change accessRole/);
  });
});
