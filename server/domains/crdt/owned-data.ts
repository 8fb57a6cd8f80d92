import type { OwnedData } from '../../platform/owned-data.js';
import type { LiveDocuments } from './live-documents.js';
import type { CrdtRepo } from './repo.js';

/**
 * Editor documents follow their document (Migrate Documents merges them into
 * the target's), go with their document or organization, and lose their
 * last-editor attribution when that user is erased (Yjs content names no
 * user, and others wrote it too). Loaded copies of moved or deleted documents
 * are dropped from every process once the change commits, so they are never
 * saved back under the old ID.
 */
export function crdtOwnedData(repo: CrdtRepo, live: Pick<LiveDocuments, 'evictAfterCommit' | 'evictOrganizationAfterCommit'>): OwnedData {
  return {
    name: 'crdt',
    models: ['CrdtDocument'],
    async moveDocument(from, to) {
      await repo.moveDocument(from.apiKeyId, from.organizationId, from.documentId, to);
      live.evictAfterCommit(from.apiKeyId, from.organizationId, [from.documentId], to);
    },
    async deleteDocuments({ apiKeyId, organizationId, documentIds }) {
      await repo.deleteDocuments(apiKeyId, organizationId, documentIds);
      live.evictAfterCommit(apiKeyId, organizationId, documentIds);
    },
    async deleteOrganization({ apiKeyId, organizationId }) {
      await repo.deleteOrganization(apiKeyId, organizationId);
      live.evictOrganizationAfterCommit(apiKeyId, organizationId);
    },
    async eraseUser({ apiKeyId, userId }) {
      await repo.forgetEditor(apiKeyId, userId);
    },
  };
}
