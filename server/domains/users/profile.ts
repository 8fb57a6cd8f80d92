import type { TUserInput } from '../../../contract/access/schemas.js';
import { PROFILE_FIELDS, profileOf, profileText, type UserRecord } from '../access/repos/users.js';
import type { Caller } from '../../platform/caller.js';

/** User records as Add Users, Update Users and Generate Token write them (the repo's row, without the tenancy key). */
export type UserRow = Omit<UserRecord, 'apiKeyId'>;

/** The user record after applying the given fields over the stored ones. */
export function mergeUser(app: Caller, stored: UserRow | undefined, input: TUserInput): UserRecord {
  const name = input.name ?? stored?.name ?? '';
  const email = input.email ?? stored?.email ?? '';
  const profile = stored ? profileOf(stored.profile) : {};
  for (const field of PROFILE_FIELDS) if (input[field] !== undefined) profile[field] = input[field];
  // The spec: initial is derived from the name when omitted.
  const initial = input.initial ?? (input.name !== undefined || !stored ? initialOf(name || email || input.userId) : stored.initial);
  return { apiKeyId: app.apiKeyId, id: input.userId, name, email, initial, profile: profileText(profile) };
}

/** The first character, whole: `[0]` would cut an emoji or other astral character into a lone surrogate. */
function initialOf(text: string): string {
  const [first = ''] = text.trim();
  return first.toUpperCase();
}
