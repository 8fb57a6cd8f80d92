import { ownedDataOfRepo, type OwnedData } from '../../platform/owned-data.js';
import type { LiveStateRepo } from './repo.js';

/**
 * Live state follows its document and goes with its document or organization.
 * It names no user (a broadcast is the application's, not a user's), so
 * erasure has nothing of it to take.
 */
export function liveStateOwnedData(repo: LiveStateRepo): OwnedData {
  return ownedDataOfRepo('live-state', ['LiveStateData'], {
    moveDocument: (apiKeyId, organizationId, from, to) => repo.moveDocument(apiKeyId, organizationId, from, to),
    deleteDocuments: repo.deleteDocuments,
    deleteOrganization: repo.deleteOrganization,
    deleteByUser: async () => undefined,
  });
}
