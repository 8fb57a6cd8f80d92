import { upsertMany } from '../../../db/bulk.js';
import type { Db } from '../../../db/client.js';
import type { Clock } from '../../../lib/clock.js';
import { created } from './times.js';

export interface UserRecord {
  apiKeyId: string;
  id: string;
  name: string;
  email: string;
  initial: string;
  profile: string;
}

/** User records of an application (users belong to the application, not to one organization). */
export function createUsersRepo(db: Db, clock: Clock) {
  return {
    findUsers: (apiKeyId: string, ids: string[]) => db.user.findMany({ where: { apiKeyId, id: { in: ids } } }),

    upsertUser: (row: UserRecord) =>
      db.user.upsert({
        where: { apiKeyId_id: { apiKeyId: row.apiKeyId, id: row.id } },
        create: { ...row, ...created(clock) },
        update: { name: row.name, email: row.email, initial: row.initial, profile: row.profile, updatedAt: BigInt(clock.nowMs()) },
      }),

    /** Many user records in a few statements (Add Users takes up to thousands). */
    upsertUsers: (rows: UserRecord[]) => {
      const at = BigInt(clock.nowMs());
      return upsertMany(
        db,
        'User',
        rows.map((r) => ({ ...r, createdAt: at, updatedAt: at })),
        { key: ['apiKeyId', 'id'], update: ['name', 'email', 'initial', 'profile', 'updatedAt'] },
      );
    },

    /** A user record for a user known only by ID (granted access before any profile was given). */
    ensureUser: (apiKeyId: string, id: string) =>
      db.user.upsert({ where: { apiKeyId_id: { apiKeyId, id } }, create: { apiKeyId, id, name: '', email: '', initial: '', ...created(clock) }, update: {} }),
  };
}

export type UsersRepo = ReturnType<typeof createUsersRepo>;
