import { createRemoteJWKSet, customFetch, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { USER_TOKEN_ALGORITHM, USER_TOKEN_ISSUER, type UserTokenClaims } from '../contract/permissions/user-token.js';
import { UserTokenError } from './errors.js';
import { checkedUrl } from './transport.js';

export type { UserTokenClaims } from '../contract/permissions/user-token.js';

export type VerifyUserTokenOptions = {
  /**
   * The application the token must be for: `await applicationAudience(apiKey)`,
   * the hex SHA-256 of its API key (never the key itself). Required: the
   * signature alone would accept another application's tokens.
   */
  audience: string;
  /** A fetch for the key set; defaults to the global one. */
  fetch?: typeof fetch;
  /** The time to check `exp` against; defaults to now. For tests. */
  currentDate?: Date;
} & (
  | {
      /** The server's address: the key set is its `/.well-known/jwks/<audience>.json`, which holds only this application's keys. */
      baseUrl: string;
      jwksUrl?: never;
    }
  | {
      /** A key set elsewhere, e.g. a cache or the server's all-applications `/.well-known/jwks.json`. */
      jwksUrl: string;
      baseUrl?: never;
    }
);

const AUDIENCE = /^[0-9a-f]{64}$/;

/** The `aud` of an application's user tokens: the hex SHA-256 of its API key (see server/domains/permissions/signing-keys.ts). */
export async function applicationAudience(apiKey: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(apiKey));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The key set could not be had; the token was not judged. */
class KeySetUnavailable extends Error {}

/** Fetches the key set, turning every way of not getting one into KeySetUnavailable. */
function keySetFetch(fetchImpl: typeof fetch) {
  return async (url: string, init: RequestInit): Promise<Response> => {
    let response: Response;
    let text: string;
    try {
      response = await fetchImpl(url, init);
      text = await response.text();
    } catch (error) {
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      throw new KeySetUnavailable(timedOut ? 'the key set request timed out' : 'the key set request failed without a response', { cause: error });
    }
    if (response.status !== 200) {
      // The server answers 404 for an audience no application has.
      const hint = response.status === 404 ? ': is the audience applicationAudience(apiKey) of an application of this server?' : '';
      throw new KeySetUnavailable(`the key set request was answered HTTP ${response.status}${hint}`);
    }
    try {
      JSON.parse(text);
    } catch (error) {
      throw new KeySetUnavailable('the key set response is not JSON', { cause: error });
    }
    return new Response(text, { status: 200, headers: { 'content-type': 'application/json' } });
  };
}

// One key set per fetch and URL for the process: jose caches its keys and
// refetches on an unknown key ID (after a rotation), so a verifier fetches
// the keys once, not per token.
const keySets = new WeakMap<typeof fetch, Map<string, JWTVerifyGetKey>>();
const globalFetch: typeof fetch = (input, init) => fetch(input, init);

function keySetFor(url: URL, fetchImpl: typeof fetch = globalFetch): JWTVerifyGetKey {
  let byUrl = keySets.get(fetchImpl);
  if (byUrl === undefined) keySets.set(fetchImpl, (byUrl = new Map()));
  let keySet = byUrl.get(url.href);
  if (keySet === undefined) {
    keySet = createRemoteJWKSet(url, { [customFetch]: keySetFetch(fetchImpl) });
    byUrl.set(url.href, keySet);
  }
  return keySet;
}

/**
 * Verifies a user token (from Generate Token) the way the server does: an
 * ES256 signature by a published key of the application, its audience, the
 * issuer and expiry. Resolves to the token's claims; throws UserTokenError.
 */
export async function verifyUserToken(token: string, options: VerifyUserTokenOptions): Promise<UserTokenClaims> {
  if (typeof options.audience !== 'string' || !AUDIENCE.test(options.audience)) {
    // Not repeated: a caller who passed the API key by mistake must not see it in a log.
    throw new TypeError('audience must be applicationAudience(apiKey): 64 lower-case hex digits, not the API key itself');
  }
  const url = new URL(
    options.jwksUrl !== undefined
      ? checkedUrl(options.jwksUrl, 'jwksUrl')
      : `${checkedUrl(options.baseUrl, 'baseUrl')}/.well-known/jwks/${options.audience}.json`,
  );
  try {
    const keySet = keySetFor(url, options.fetch);
    // The service names the signing key in every token, and its own verifier refuses a token that does not:
    // so does this one, rather than trying whichever key of the set fits.
    const namedKey: JWTVerifyGetKey = (header, input) => {
      if (typeof header.kid !== 'string') throw new errors.JWSInvalid('the user token names no key (kid)');
      return keySet(header, input);
    };
    const { payload } = await jwtVerify<UserTokenClaims>(token, namedKey, {
      algorithms: [USER_TOKEN_ALGORITHM],
      issuer: USER_TOKEN_ISSUER,
      audience: options.audience,
      typ: 'JWT',
      requiredClaims: ['sub', 'iat', 'exp'],
      ...(options.currentDate ? { currentDate: options.currentDate } : {}),
    });
    return payload;
  } catch (error) {
    if (error instanceof KeySetUnavailable) throw new UserTokenError('ERR_JWKS_UNAVAILABLE', error.message, error.cause);
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_JWKS_TIMEOUT' || code === 'ERR_JWKS_INVALID') throw new UserTokenError('ERR_JWKS_UNAVAILABLE', `the key set could not be used (${code})`, error);
    if (typeof code === 'string') throw new UserTokenError(code, `the user token is refused: ${(error as Error).message}`, error);
    throw error;
  }
}
