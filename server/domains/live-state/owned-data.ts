import type { OwnedData } from '../../platform/owned-data.js';
import type { LiveStateRepo } from './repo.js';

/**
 * Live state follows its document and goes with its document or organization.
 * It names no user (a broadcast is the application's, not a user's), so
 * erasure has nothing of it to take.
 */
export function liveStateOwnedData(repo: LiveStateRepo): OwnedData {
  return {
    name: 'live-state',
    models: ['LiveStateData'],
    async moveDocument(from, to) {
      await repo.moveDocument(from.apiKeyId, from.organizationId, from.documentId, to);
    },
    async deleteDocuments({ apiKeyId, organizationId, documentIds }) {
      await repo.deleteDocuments(apiKeyId, organizationId, documentIds);
    },
    async deleteOrganization({ apiKeyId, organizationId }) {
      await repo.deleteOrganization(apiKeyId, organizationId);
    },
    async eraseUser() {
      // Nothing keyed by a user.
    },
  };
}
