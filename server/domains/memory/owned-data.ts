import type { OwnedData, UserDataSource } from '../../platform/owned-data.js';
import type { JudgmentsRepo } from './repo.js';
import { toJudgment } from './shapes.js';

/**
 * Judgments follow their document to a new ID, go with their document or
 * organization, and with their reviewer (a user ID) on erasure. Every change
 * bumps the application's revision in the same transaction, so no process
 * keeps suggesting from judgments that are gone.
 */
export function memoryOwnedData(repo: JudgmentsRepo): OwnedData {
  const changed = async (apiKeyId: string, count: number, sizeDelta: number) => {
    if (count > 0) await repo.bump(apiKeyId, sizeDelta);
  };
  return {
    name: 'memory',
    models: ['Judgment'],
    async moveDocument(from, to) {
      await changed(from.apiKeyId, await repo.moveDocument(from.apiKeyId, from.organizationId, from.documentId, to), 0);
    },
    async deleteDocuments({ apiKeyId, organizationId, documentIds }) {
      const count = await repo.deleteDocuments(apiKeyId, organizationId, documentIds);
      await changed(apiKeyId, count, -count);
    },
    async deleteOrganization({ apiKeyId, organizationId }) {
      const count = await repo.deleteOrganization(apiKeyId, organizationId);
      await changed(apiKeyId, count, -count);
    },
    async eraseUser({ apiKeyId, userId }) {
      const count = await repo.deleteByReviewer(apiKeyId, userId);
      await changed(apiKeyId, count, -count);
    },
  };
}

/** Get All User Data's `judgments`: those the user made in the organization or for the whole workspace, oldest first. */
export function memoryUserData(repo: JudgmentsRepo): UserDataSource {
  return {
    feature: 'judgments',
    async list(key, after, take) {
      const rows = await repo.listByReviewer(key.apiKeyId, key.organizationId, key.userId, after, take);
      return rows.map((row) => ({ item: toJudgment(row), cursor: { at: Number(row.decidedAt), id: row.id } }));
    },
  };
}
