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
    // Held first (see holdDocuments): a document migrated or deleted meanwhile is created anew, as a missing one is.
    // A held document's organization exists: deleting an organization deletes its documents, which waits for the hold.
    if ((await deps.documents.holdDocuments(apiKeyId, organizationId, [documentId])).has(documentId)) return;
    await deps.organizations.ensureOrganization(apiKeyId, organizationId);
    await deps.documents.ensureDocument(apiKeyId, organizationId, documentId);
  };
}
