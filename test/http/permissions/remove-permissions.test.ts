import { describe, expect, it } from 'vitest';
import { client, ORG, usePermissionsServer } from './fixture.js';

usePermissionsServer();

const docRole = async (userId: string, documentId = 'd1') =>
  (await client.permissions.getPermissions({ organizationId: ORG, userIds: [userId], documentIds: [documentId] })).data[userId]!.documents![documentId]!;

describe('Remove Permissions', () => {
  it('grants and removes a document permission; granting again replaces the role', async () => {
    const added = await client.permissions.addPermissions({ user: { userId: 'p1' }, permissions: { resources: [{ type: 'document', id: 'd1', organizationId: ORG }] } });
    expect(added).toEqual({ status: 'success', message: 'Permissions added successfully.' });
    expect((await docRole('p1')).accessRole).toBe('editor');
    await client.permissions.addPermissions({ user: { userId: 'p1' }, permissions: { resources: [{ type: 'document', id: 'd1', organizationId: ORG, accessRole: 'viewer' }] } });
    expect((await docRole('p1')).accessRole).toBe('viewer');
    await client.permissions.removePermissions({ user: { userId: 'p1' }, permissions: { resources: [{ type: 'document', id: 'd1', organizationId: ORG }] } });
    expect((await docRole('p1')).errorCode).toBe('permission_denied');
    // Removing what is not there is not an error.
    await client.permissions.removePermissions({ user: { userId: 'p1' }, permissions: { resources: [{ type: 'document', id: 'd1', organizationId: ORG }] } });
  });
});
