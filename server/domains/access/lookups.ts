import { notFound } from '../../lib/app-error.js';
import type { DocumentsRepo } from './repos/documents.js';
import type { FoldersRepo } from './repos/folders.js';
import type { GroupsRepo } from './repos/groups.js';
import type { OrganizationsRepo } from './repos/organizations.js';

/** Reads that must find their row, with the one NOT_FOUND message each kind of resource has. */
export function createAccessLookups(repos: {
  organizations: Pick<OrganizationsRepo, 'findOrganization'>;
  folders: Pick<FoldersRepo, 'findFolder'>;
  documents: Pick<DocumentsRepo, 'findDocument' | 'holdDocuments'>;
  groups: Pick<GroupsRepo, 'findGroup'>;
}) {
  return {
    async organization(apiKeyId: string, organizationId: string) {
      const organization = await repos.organizations.findOrganization(apiKeyId, organizationId);
      if (!organization) throw notFound(`organization ${organizationId} does not exist`);
      return organization;
    },

    async folder(apiKeyId: string, organizationId: string, folderId: string) {
      const folder = await repos.folders.findFolder(apiKeyId, organizationId, folderId);
      if (!folder) throw notFound(`folder ${folderId} does not exist in organization ${organizationId}`);
      return folder;
    },

    async document(apiKeyId: string, organizationId: string, documentId: string) {
      const document = await repos.documents.findDocument(apiKeyId, organizationId, documentId);
      if (!document) throw notFound(`document ${documentId} does not exist in organization ${organizationId}`);
      return document;
    },

    /** For a write that adds content to documents: they must exist, and are held until the unit of work ends (see holdDocuments). */
    async heldDocuments(apiKeyId: string, organizationId: string, documentIds: readonly string[]): Promise<void> {
      const held = await repos.documents.holdDocuments(apiKeyId, organizationId, documentIds);
      const missing = documentIds.find((id) => !held.has(id));
      if (missing !== undefined) throw notFound(`document ${missing} does not exist in organization ${organizationId}`);
    },

    async group(apiKeyId: string, organizationId: string, groupId: string) {
      const group = await repos.groups.findGroup(apiKeyId, organizationId, groupId);
      if (!group) throw notFound(`user group ${groupId} does not exist in organization ${organizationId}`);
      return group;
    },
  };
}

export type AccessLookups = ReturnType<typeof createAccessLookups>;
