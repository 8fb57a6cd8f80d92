import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { closeReceivers, startReceiver } from '../../helpers/receiver.js';
import { applicationAudience } from '../../../server/domains/permissions/signing-keys.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

/** A real permission provider on loopback: answers with `respond`, records what it was asked. */
let providerUrl: string;
let asked: Array<{ authorization: string | undefined; body: any }> = [];
let respond: (body: any, res: import('node:http').ServerResponse) => void;

let server: TestServer;
let client: Client;
let audience: string;

beforeAll(async () => {
  const provider = await startReceiver((req, res) => {
    const body = JSON.parse(req.body);
    asked.push({ authorization: req.headers.authorization, body });
    respond(body, res);
  }, '/permissions');
  providerUrl = provider.url;
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  const creds = await server.workspace();
  audience = applicationAudience(creds.apiKey);
  client = server.client(creds);
  await client.organizations.addDocument({ organizationId: 'o', documentId: 'shared', accessType: 'restricted' });
  // test/http/workspace/update-permission-provider-config.test.ts tests turning it on.
  await client.workspace.updatePermissionProviderConfig({
    usePermissionProvider: true,
    permissionProviderConfig: { permissionProviderUrl: providerUrl, authToken: 'provider-secret' },
  });
});
afterAll(async () => {
  await server?.close();
  await closeReceivers();
});
beforeEach(() => {
  asked = [];
  // Default provider: u-yes may read documents, nobody else anything.
  respond = (body, res) => {
    const data = body.data.requests.map((r: any) => ({
      userId: r.userId,
      resourceId: r.resource.id,
      type: r.resource.type,
      hasAccess: r.userId === 'u-yes' && r.resource.type === 'document',
      ...(r.userId === 'u-yes' ? { accessRole: 'viewer', expiresAt: 4_000_000_000 } : {}),
    }));
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ data }));
  };
});

describe('with the permission provider on', () => {
  it('Get Permissions asks the provider (Bearer token, spec body) and reports its answers', async () => {
    const { data } = await client.permissions.getPermissions({ organizationId: 'o', userIds: ['u-yes', 'u-no'], documentIds: ['shared'] });
    expect(asked).toHaveLength(1);
    expect(asked[0]!.authorization).toBe('Bearer provider-secret');
    expect(asked[0]!.body.data.requests).toContainEqual({ userId: 'u-yes', resource: { id: 'shared', type: 'document', organizationId: 'o' } });
    expect(data['u-yes']!.documents!.shared).toEqual({ accessRole: 'viewer', accessType: 'restricted', expiresAt: 4_000_000_000 });
    expect(data['u-no']!.documents!.shared!.errorCode).toBe('permission_denied');
    expect(data['u-yes']!.organization!.o!.errorCode).toBe('permission_denied');
  });

  it('caches answers for a short while', async () => {
    await client.permissions.getPermissions({ organizationId: 'o', userIds: ['u-cache'], documentIds: ['shared'] });
    await client.permissions.getPermissions({ organizationId: 'o', userIds: ['u-cache'], documentIds: ['shared'] });
    expect(asked).toHaveLength(1);
  });

  it('Generate Token carries only what the provider grants, with its role', async () => {
    const { data } = await client.permissions.generateToken({
      userId: 'u-yes',
      userProperties: { name: 'Yes', email: 'yes@example.com' },
      permissions: { resources: [{ type: 'organization', id: 'o' }, { type: 'document', id: 'shared', organizationId: 'o' }] },
    });
    const claims = await server.running.verifyUserToken(data.token, { audience });
    expect(claims.permissions.resources).toEqual([{ type: 'document', id: 'shared', organizationId: 'o', accessRole: 'viewer', expiresAt: 4_000_000_000 }]);
  });

  it('an unreachable provider is UNAVAILABLE (503), never a grant', async () => {
    respond = (_body, res) => res.destroy();
    const error = await expectCollabError(client.permissions.getPermissions({ organizationId: 'o', userIds: ['u-down'], documentIds: ['shared'] }), 'UNAVAILABLE');
    expect(error.httpStatus).toBe(503);
  });

  it('a malformed answer is UNAVAILABLE with the reason', async () => {
    respond = (_body, res) => res.end(JSON.stringify({ data: [{ userId: 'u-bad', hasAccess: 'yes' }] }));
    await expectCollabError(client.permissions.getPermissions({ organizationId: 'o', userIds: ['u-bad'], documentIds: ['shared'] }), 'UNAVAILABLE', /malformed/);
  });

  it('a provider error status is UNAVAILABLE', async () => {
    respond = (_body, res) => {
      res.statusCode = 500;
      res.end('boom');
    };
    await expectCollabError(client.permissions.getPermissions({ organizationId: 'o', userIds: ['u-500'], documentIds: ['shared'] }), 'UNAVAILABLE', /HTTP 500/);
  });
});
