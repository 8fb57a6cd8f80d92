import type { OwnedData } from '../../platform/owned-data.js';
import type { AccessRepos } from './repos/index.js';

/**
 * The access tables in the owned-data registry: a document's own row and its
 * grants follow it to a new ID; a user's profile, grants and group
 * memberships are their personal data and go with them. A move is a change
 * of the document and of its grants: their updatedAt becomes the present.
 */
export function accessOwnedData(repos: Pick<AccessRepos, 'documents' | 'grants' | 'groups' | 'users'>): OwnedData {
  const { documents, grants, groups, users } = repos;
  return {
    name: 'access',
    models: ['Document', 'Grant', 'UserGroupMember', 'User'],
    async moveDocument(from, to) {
      await grants.moveDocumentGrants(from.apiKeyId, from.organizationId, from.documentId, to);
      await documents.moveDocument(from.apiKeyId, from.organizationId, from.documentId, to);
    },
    async deleteDocuments({ apiKeyId, organizationId, documentIds }) {
      await grants.deleteDocumentGrants(apiKeyId, organizationId, documentIds);
      await documents.deleteDocuments(apiKeyId, organizationId, documentIds);
    },
    async deleteOrganization({ apiKeyId, organizationId }) {
      // The organization's own rows (folders, groups, the organization) are its repo's; see deleteOrganization in repos/organizations.ts.
      await grants.deleteOrganizationGrants(apiKeyId, organizationId);
      await groups.deleteOrganizationMembers(apiKeyId, organizationId);
      await documents.deleteOrganizationDocuments(apiKeyId, organizationId);
    },
    async eraseUser({ apiKeyId, userId }) {
      await grants.deleteUserGrants(apiKeyId, userId);
      await groups.deleteUserMemberships(apiKeyId, userId);
      await users.deleteUser(apiKeyId, userId);
    },
  };
}
