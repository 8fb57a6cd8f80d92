import { beforeAll, describe, expect, it } from 'vitest';
import { expectCollabError } from '../../helpers/credentials.js';
import { applicationAudience } from '../../../server/domains/permissions/signing-keys.js';
import { usePermissionProvider } from '../../helpers/permission-provider.js';

const bed = usePermissionProvider({ turnOn: true });
let audience: string;
beforeAll(() => {
  audience = applicationAudience(bed.creds.apiKey);
});

describe('with the permission provider on', () => {
  it('Get Permissions asks the provider (Bearer token, spec body) and reports its answers', async () => {
    const { data } = await bed.client.permissions.getPermissions({ organizationId: 'o', userIds: ['u-yes', 'u-no'], documentIds: ['shared'] });
    expect(bed.provider.asked).toHaveLength(1);
    expect(bed.provider.asked[0]!.authorization).toBe('Bearer provider-secret');
    expect(bed.provider.asked[0]!.body.data.requests).toContainEqual({ userId: 'u-yes', resource: { id: 'shared', type: 'document', organizationId: 'o' } });
    expect(data['u-yes']!.documents!.shared).toEqual({ accessRole: 'viewer', accessType: 'restricted', expiresAt: 4_000_000_000 });
    expect(data['u-no']!.documents!.shared!.errorCode).toBe('permission_denied');
    expect(data['u-yes']!.organization!.o!.errorCode).toBe('permission_denied');
  });

  it('caches answers for a short while', async () => {
    await bed.client.permissions.getPermissions({ organizationId: 'o', userIds: ['u-cache'], documentIds: ['shared'] });
    await bed.client.permissions.getPermissions({ organizationId: 'o', userIds: ['u-cache'], documentIds: ['shared'] });
    expect(bed.provider.asked).toHaveLength(1);
  });

  it('Generate Token carries only what the provider grants, with its role', async () => {
    const { data } = await bed.client.permissions.generateToken({
      userId: 'u-yes',
      userProperties: { name: 'Yes', email: 'yes@example.com' },
      permissions: { resources: [{ type: 'organization', id: 'o' }, { type: 'document', id: 'shared', organizationId: 'o' }] },
    });
    const claims = await bed.server.running.verifyUserToken(data.token, { audience });
    expect(claims.permissions.resources).toEqual([{ type: 'document', id: 'shared', organizationId: 'o', accessRole: 'viewer', expiresAt: 4_000_000_000 }]);
  });

  it('an unreachable provider is UNAVAILABLE (503), never a grant', async () => {
    bed.provider.respond = (_body, res) => res.destroy();
    const error = await expectCollabError(bed.client.permissions.getPermissions({ organizationId: 'o', userIds: ['u-down'], documentIds: ['shared'] }), 'UNAVAILABLE');
    expect(error.httpStatus).toBe(503);
  });

  it('a malformed answer is UNAVAILABLE with the reason', async () => {
    bed.provider.respond = (_body, res) => res.end(JSON.stringify({ data: [{ userId: 'u-bad', hasAccess: 'yes' }] }));
    await expectCollabError(bed.client.permissions.getPermissions({ organizationId: 'o', userIds: ['u-bad'], documentIds: ['shared'] }), 'UNAVAILABLE', /malformed/);
  });

  it('a provider error status is UNAVAILABLE', async () => {
    bed.provider.respond = (_body, res) => {
      res.statusCode = 500;
      res.end('boom');
    };
    await expectCollabError(bed.client.permissions.getPermissions({ organizationId: 'o', userIds: ['u-500'], documentIds: ['shared'] }), 'UNAVAILABLE', /HTTP 500/);
  });
});
