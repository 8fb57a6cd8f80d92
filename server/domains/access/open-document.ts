import type { DocumentsRepo } from './repos/documents.js';
import type { OrganizationsRepo } from './repos/organizations.js';

/**
 * Ensures the organization and the document exist and holds the document row
 * until the unit of work ends; call it inside one. For a client app that
 * creates a document by opening it (adding comments, joining it live), as Add
 * Permissions creates what it names.
 */
export type EnsureHeldDocument = (apiKeyId: string, organizationId: string, documentId: string) => Promise<void>;

export function createEnsureHeldDocument(deps: {
  organizations: Pick<OrganizationsRepo, 'ensureOrganization'>;
  documents: Pick<DocumentsRepo, 'holdDocuments' | 'ensureDocument'>;
}): EnsureHeldDocument {
  return async (apiKeyId, organizationId, documentId) => {
    await deps.organizations.ensureOrganization(apiKeyId, organizationId);
    // Held first (see holdDocuments): a document migrated or deleted meanwhile is created anew, as a missing one is.
    const held = await deps.documents.holdDocuments(apiKeyId, organizationId, [documentId]);
    if (!held.has(documentId)) await deps.documents.ensureDocument(apiKeyId, organizationId, documentId);
  };
}
