import type { UpgradeCase } from '../../helpers/migration-upgrade.js';

const at = (iso: string) => new Date(iso);

/**
 * 20261127123708_access_times_ms: the access tables' DateTime columns become
 * BigInt Unix ms. Two rows a table, each time distinct with non-zero
 * milliseconds; among them times past 2038 (32 bits) and before 1970
 * (negative). The access tables have no foreign keys, so no parents.
 */
export const accessTimesMs: UpgradeCase = {
  migration: '20261127123708_access_times_ms',
  rows: [
    { table: 'Organization', values: { apiKeyId: 'app_1', id: 'org-1', name: 'One', disabled: false, createdAt: at('2026-01-02T03:04:05.006Z'), updatedAt: at('2026-01-02T03:04:05.007Z') } },
    { table: 'Organization', values: { apiKeyId: 'app_2', id: 'org-1', name: 'Other app', disabled: true, createdAt: at('1969-12-31T23:59:59.999Z'), updatedAt: at('2100-01-01T00:00:00.001Z') } },
    { table: 'Folder', values: { apiKeyId: 'app_1', organizationId: 'org-1', id: 'f-1', name: 'Top', parentId: null, accessType: 'organizationPrivate', inheritAccessFromParent: true, createdAt: at('2026-02-03T04:05:06.070Z'), updatedAt: at('2026-02-03T04:05:06.080Z') } },
    { table: 'Folder', values: { apiKeyId: 'app_1', organizationId: 'org-1', id: 'f-2', name: 'Child', parentId: 'f-1', accessType: 'restricted', inheritAccessFromParent: false, createdAt: at('2038-01-19T03:14:08.123Z'), updatedAt: at('2038-01-19T03:14:09.456Z') } },
    { table: 'Document', values: { apiKeyId: 'app_1', organizationId: 'org-1', id: 'doc-1', name: 'Doc', folderId: null, accessType: 'organizationPrivate', disabled: false, createdAt: at('2026-03-04T05:06:07.089Z'), updatedAt: at('2026-03-05T05:06:07.001Z') } },
    { table: 'Document', values: { apiKeyId: 'app_1', organizationId: 'org-1', id: 'doc-2', name: 'In a folder', folderId: 'f-2', accessType: 'public', disabled: true, createdAt: at('1999-12-31T23:59:59.990Z'), updatedAt: at('2000-01-01T00:00:00.010Z') } },
    { table: 'User', values: { apiKeyId: 'app_1', id: 'u-1', name: 'Ann', email: 'ann@example.com', initial: 'A', profile: '{"color":"red"}', createdAt: at('2026-04-05T06:07:08.009Z'), updatedAt: at('2026-04-05T06:07:08.010Z') } },
    { table: 'User', values: { apiKeyId: 'app_2', id: 'u-1', name: '', email: '', initial: '', profile: '{}', createdAt: at('2026-04-06T00:00:00.999Z'), updatedAt: at('2099-12-31T23:59:59.999Z') } },
    { table: 'Grant', values: { apiKeyId: 'app_1', organizationId: 'org-1', resourceType: 'organization', resourceId: 'org-1', principalType: 'user', principalId: 'u-1', accessRole: 'editor', expiresAt: null, accessFields: null, createdAt: at('2026-05-06T07:08:09.101Z'), updatedAt: at('2026-05-06T07:08:09.102Z') } },
    { table: 'Grant', values: { apiKeyId: 'app_1', organizationId: 'org-1', resourceType: 'document', resourceId: 'doc-1', principalType: 'group', principalId: 'g-1', accessRole: 'viewer', expiresAt: 4102444800n, accessFields: '["team:red"]', createdAt: at('2026-05-07T00:00:00.001Z'), updatedAt: at('2026-05-08T00:00:00.002Z') } },
    { table: 'UserGroup', values: { apiKeyId: 'app_1', organizationId: 'org-1', id: 'g-1', name: 'Group', createdAt: at('2026-06-07T08:09:10.111Z') } },
    { table: 'UserGroup', values: { apiKeyId: 'app_1', organizationId: 'org-1', id: 'g-2', name: 'Old group', createdAt: at('1970-01-01T00:00:00.001Z') } },
    { table: 'UserGroupMember', values: { apiKeyId: 'app_1', organizationId: 'org-1', groupId: 'g-1', userId: 'u-1', createdAt: at('2026-06-08T00:00:00.222Z') } },
    { table: 'UserGroupMember', values: { apiKeyId: 'app_1', organizationId: 'org-1', groupId: 'g-2', userId: 'u-1', createdAt: at('2040-06-08T00:00:00.333Z') } },
  ],
  toMs: {
    Organization: ['createdAt', 'updatedAt'],
    Folder: ['createdAt', 'updatedAt'],
    Document: ['createdAt', 'updatedAt'],
    User: ['createdAt', 'updatedAt'],
    Grant: ['createdAt', 'updatedAt'],
    UserGroup: ['createdAt'],
    UserGroupMember: ['createdAt'],
  },
};
