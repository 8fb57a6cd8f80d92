import { cursorAt } from '../../db/keyset.js';
import type { OwnedData, UserDataSource } from '../../platform/owned-data.js';
import type { Deleted, JudgmentsRepo } from './repo.js';
import { toJudgment } from './shapes.js';

/**
 * Judgments follow their document to a new ID, go with their document or
 * organization, and with their reviewer (a user ID) on erasure. Every change
 * bumps the application's revision in the same transaction, so no process
 * keeps suggesting from judgments that are gone.
 */
export function memoryOwnedData(repo: JudgmentsRepo): OwnedData {
  const moved = async (apiKeyId: string, count: number) => {
    if (count > 0) await repo.bump(apiKeyId, 0, 0);
  };
  const deleted = async (apiKeyId: string, gone: Deleted) => {
    if (gone.ids.length > 0) await repo.bump(apiKeyId, -gone.ids.length, -gone.postings);
  };
  return {
    name: 'memory',
    models: ['Judgment'],
    async moveDocument(from, to) {
      await moved(from.apiKeyId, await repo.moveDocument(from.apiKeyId, from.organizationId, from.documentId, to));
    },
    async deleteDocuments({ apiKeyId, organizationId, documentIds }) {
      await deleted(apiKeyId, await repo.deleteDocuments(apiKeyId, organizationId, documentIds));
    },
    async deleteOrganization({ apiKeyId, organizationId }) {
      await deleted(apiKeyId, await repo.deleteOrganization(apiKeyId, organizationId));
    },
    async eraseUser({ apiKeyId, userId }) {
      await deleted(apiKeyId, await repo.deleteByReviewer(apiKeyId, userId));
    },
  };
}

/** Get All User Data's `judgments`: those the user made in the organization or for the whole workspace, oldest first. */
export function memoryUserData(repo: JudgmentsRepo): UserDataSource {
  return {
    feature: 'judgments',
    async list(key, after, take) {
      const rows = await repo.listByReviewer(key.apiKeyId, key.organizationId, key.userId, after, take);
      return rows.map((row) => ({ item: toJudgment(row), cursor: cursorAt(row.decidedAt, row.id) }));
    },
  };
}
