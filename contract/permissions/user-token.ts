import type { z } from 'zod';
import type { TAccessRole, TResourcePermission } from '../access/schemas.js';
import type { ZGenerateTokenData } from './generate-token.js';

/**
 * The user token Generate Token issues, as its verifiers see it: the server
 * signs it, the real-time layer and the SDK's verifyUserToken check it. Kept
 * here, beside the operation, so signer and verifiers share one definition.
 */

/** The only signature algorithm of user tokens: a verifier that allows others accepts forgeries (e.g. `alg: none`). */
export const USER_TOKEN_ALGORITHM = 'ES256';
/** The `iss` of every user token. */
export const USER_TOKEN_ISSUER = 'collab-backend';

/** Generate Token's `userProperties` as the token carries them: `initial` always present, `isAdmin` defaulted. */
type TokenUser = Omit<z.infer<typeof ZGenerateTokenData>['userProperties'], 'organizationId' | 'isAdmin' | 'initial'> & {
  userId: string;
  initial: string;
  isAdmin: boolean;
};

/** A resource entry as granted: the role defaulted, and (with the permission provider) as the provider answered. */
type TokenResource = Omit<TResourcePermission, 'accessRole'> & { accessRole: TAccessRole };

/** What the issuer decides: the user and their permissions. */
export interface UserTokenBody {
  user: TokenUser;
  permissions: { resources: TokenResource[] };
}

/** Every claim of a verified user token. */
export interface UserTokenClaims extends UserTokenBody {
  /** USER_TOKEN_ISSUER. */
  iss: string;
  /** The user ID. */
  sub: string;
  /** The application's audience: the hex SHA-256 of its API key. */
  aud: string;
  /** The application that issued the token (its internal ID, not the API key). */
  app: string;
  /** Unix seconds. */
  iat: number;
  /** Unix seconds; 48 hours after `iat`. */
  exp: number;
}
