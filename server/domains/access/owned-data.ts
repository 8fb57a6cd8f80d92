import type { Db } from '../../db/client.js';
import type { OwnedData } from '../../platform/owned-data.js';

/**
 * The access tables in the owned-data registry: a document's own row and its
 * grants follow it to a new ID; a user's profile, grants and group
 * memberships are their personal data and go with them.
 */
export function accessOwnedData(db: Db): OwnedData {
  return {
    name: 'access',
    models: ['Document', 'Grant', 'UserGroupMember', 'User'],
    async moveDocument(from, to) {
      const scope = { apiKeyId: from.apiKeyId, organizationId: from.organizationId };
      await db.grant.updateMany({ where: { ...scope, resourceType: 'document', resourceId: from.documentId }, data: { resourceId: to } });
      await db.document.updateMany({ where: { ...scope, id: from.documentId }, data: { id: to } });
    },
    async deleteDocuments({ apiKeyId, organizationId, documentIds }) {
      await db.grant.deleteMany({ where: { apiKeyId, organizationId, resourceType: 'document', resourceId: { in: [...documentIds] } } });
      await db.document.deleteMany({ where: { apiKeyId, organizationId, id: { in: [...documentIds] } } });
    },
    async deleteOrganization({ apiKeyId, organizationId }) {
      // The organization's own rows (folders, groups, the organization) are its repo's; see deleteOrganization in repos/organizations.ts.
      await db.grant.deleteMany({ where: { apiKeyId, organizationId } });
      await db.userGroupMember.deleteMany({ where: { apiKeyId, organizationId } });
      await db.document.deleteMany({ where: { apiKeyId, organizationId } });
    },
    async eraseUser({ apiKeyId, userId }) {
      await db.grant.deleteMany({ where: { apiKeyId, principalType: 'user', principalId: userId } });
      await db.userGroupMember.deleteMany({ where: { apiKeyId, userId } });
      await db.user.deleteMany({ where: { apiKeyId, id: userId } });
    },
  };
}
