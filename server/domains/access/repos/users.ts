import { upsertMany } from '../../../db/bulk.js';
import type { Db } from '../../../db/client.js';
import type { Clock } from '../../../lib/clock.js';
import { created } from './times.js';
import { selectRows } from '../../../db/direct-select.js';

const USER_COLUMNS = { apiKeyId: 'text', id: 'text', name: 'text', email: 'text', initial: 'text', profile: 'text', createdAt: 'bigint', updatedAt: 'bigint' } as const;

export interface UserRecord {
  apiKeyId: string;
  id: string;
  name: string;
  email: string;
  initial: string;
  /** The other profile fields as stored: read with profileOf, written with profileText. */
  profile: string;
}

/** The profile fields a user record keeps besides name, email and initial, in one JSON object. */
export const PROFILE_FIELDS = ['photoUrl', 'color', 'textColor'] as const;
export type UserProfile = Partial<Record<(typeof PROFILE_FIELDS)[number], string>>;

/** The text a profile is stored as. */
export const profileText = (profile: UserProfile): string => JSON.stringify(profile);

/**
 * The profile fields of a stored profile, and nothing else: whatever else the
 * stored JSON might hold (a `userId`, a `__proto__`) never reaches a record.
 * Read where a profile is used, not by findUsers: the lookups of names and
 * emails (comments, the notification audience) never parse it.
 */
export function profileOf(stored: string): UserProfile {
  const parsed = JSON.parse(stored) as Record<string, unknown>;
  const fields: UserProfile = {};
  for (const field of PROFILE_FIELDS) {
    const value = Object.hasOwn(parsed, field) ? parsed[field] : undefined;
    if (typeof value === 'string') fields[field] = value;
  }
  return fields;
}

/** User records of an application (users belong to the application, not to one organization). */
export function createUsersRepo(db: Db, clock: Clock) {
  return {
    // Direct (db/direct-reads.ts): names and emails of every comment's users and every notification's recipients.
    findUsers: (apiKeyId: string, ids: string[]) => selectRows(db, { from: 'User', columns: USER_COLUMNS, where: { apiKeyId, id: { in: ids } } }),

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

    /** Erasure (../owned-data.ts): the user's record and profile. */
    deleteUser: async (apiKeyId: string, id: string): Promise<void> => {
      await db.user.deleteMany({ where: { apiKeyId, id } });
    },
  };
}

export type UsersRepo = ReturnType<typeof createUsersRepo>;
