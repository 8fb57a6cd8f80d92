import { ownedDataOfRepo, type OwnedData } from '../../platform/owned-data.js';
import type { ActivitiesRepo } from './repo.js';

/**
 * Activity records in the owned-data registry. They follow their document
 * and go with their document or organization. Erasing a user deletes the
 * records they acted in, also when the log is immutable: erasure is the law's
 * requirement, immutability only the application's setting. Records were not
 * anonymized instead: their message data is the application's free JSON and
 * may name the user anywhere in it.
 */
export function activitiesOwnedData(repo: ActivitiesRepo): OwnedData {
  return ownedDataOfRepo('activities', ['Activity'], repo);
}
