import type { OwnedData, UserDataSource } from '../../platform/owned-data.js';
import type { RecordingsRepo } from './repo.js';
import { toRecording } from './shapes.js';

/** Recordings follow their document, go with their document or organization, and with the user who recorded them. */
export function recordingsOwnedData(repo: RecordingsRepo): OwnedData {
  return {
    name: 'recordings',
    models: ['Recording'],
    async moveDocument(from, to) {
      await repo.moveDocument(from.apiKeyId, from.organizationId, from.documentId, to);
    },
    async deleteDocuments({ apiKeyId, organizationId, documentIds }) {
      await repo.deleteDocuments(apiKeyId, organizationId, documentIds);
    },
    async deleteOrganization({ apiKeyId, organizationId }) {
      await repo.deleteOrganization(apiKeyId, organizationId);
    },
    async eraseUser({ apiKeyId, userId }) {
      await repo.deleteByUser(apiKeyId, userId);
    },
  };
}

/** Get All User Data's `recordings`: what the user recorded in the organization, oldest first. */
export function recordingsUserData(repo: RecordingsRepo): UserDataSource {
  return {
    feature: 'recordings',
    async list(key, after, take) {
      const rows = await repo.listByUser(key.apiKeyId, key.organizationId, key.userId, after, take);
      return rows.map((row) => ({ item: toRecording(row, key.apiKey), cursor: { at: Number(row.createdAt), id: row.id } }));
    },
  };
}
