import { creationCursor } from '../../db/keyset.js';
import { ownedDataOfRepo, type OwnedData, type UserDataSource } from '../../platform/owned-data.js';
import type { RecordingsRepo } from './repo.js';
import { toRecording } from './shapes.js';

/** Recordings follow their document, go with their document or organization, and with the user who recorded them. */
export function recordingsOwnedData(repo: RecordingsRepo): OwnedData {
  return ownedDataOfRepo('recordings', ['Recording'], repo);
}

/** Get All User Data's `recordings`: what the user recorded in the organization, oldest first. */
export function recordingsUserData(repo: RecordingsRepo): UserDataSource {
  return {
    feature: 'recordings',
    async list(key, after, take) {
      const rows = await repo.listByUser(key.apiKeyId, key.organizationId, key.userId, after, take);
      return rows.map((row) => ({ item: toRecording(row, key.apiKey), cursor: creationCursor(row) }));
    },
  };
}
