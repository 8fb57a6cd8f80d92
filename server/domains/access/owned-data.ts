import type { Db } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import type { OwnedData } from '../../platform/owned-data.js';

/**
 * The access tables in the owned-data registry: a document's own row and its
 * grants follow it to a new ID; a user's profile, grants and group
 * memberships are their personal data and go with them. A move is a change
 * of the document and of its grants: their updatedAt becomes the present.
 */
export function accessOwnedData(db: Db, clock: Clock): OwnedData {
  return {
    name: 'access',
    models: ['Document', 'Grant', 'UserGroupMember', 'User'],
    async moveDocument(from, to) {
      const scope = { apiKeyId: from.apiKeyId, organizationId: from.organizationId };
      const updatedAt = BigInt(clock.nowMs());
      await db.grant.updateMany({ where: { ...scope, resourceType: 'document', resourceId: from.documentId }, data: { resourceId: to, updatedAt } });
      await db.document.updateMany({ where: { ...scope, id: from.documentId }, data: { id: to, updatedAt } });
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
