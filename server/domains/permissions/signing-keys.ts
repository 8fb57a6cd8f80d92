import { exportJWK, generateKeyPair, importJWK, jwtVerify, decodeProtectedHeader, SignJWT, type JWK } from 'jose';
import { randomBytes } from 'node:crypto';
import { USER_TOKEN_ALGORITHM as ALG, USER_TOKEN_ISSUER as ISSUER, type UserTokenBody, type UserTokenClaims } from '../../../contract/permissions/user-token.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import type { Clock } from '../../lib/clock.js';
import { digest, type Sealer } from '../../lib/crypto.js';
import type { SigningKeysRepo } from './repo.js';

/** User tokens live 48 hours (the specification's JWT lifetime). */
export const USER_TOKEN_TTL_SECONDS = 48 * 60 * 60;
// A rotated key is picked up by other processes within this time.
const ACTIVE_KEY_CACHE_MS = 60_000;

type KeyLike = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

/**
 * The `aud` of an application's user tokens and the name of its own JWKS
 * (`/.well-known/jwks/<audience>.json`): the hex SHA-256 of its API key.
 * A client app knows its API key, so it can compute this
 * (`echo -n "$API_KEY" | sha256sum`), while the token, which end users
 * hold, and the JWKS address, which shows up in logs and caches, do not
 * reveal the key. It equals the digest API keys are looked up by.
 */
export function applicationAudience(apiKey: string): string {
  return digest(apiKey);
}

const AUDIENCE = /^[0-9a-f]{64}$/;

/** What a verifier expects of a user token: the application it must be for. */
export interface ExpectedApplication {
  /** applicationAudience(apiKey) of that application. */
  audience: string;
}

export type { UserTokenBody, UserTokenClaims };

/** What the signing keys read of the applications (the accounts domain's): the audience is the API key's digest. */
export interface ApplicationDigests {
  keyDigestOf(apiKeyId: string): Promise<string | null>;
  apiKeyIdOfDigest(keyDigest: string): Promise<string | null>;
}

/**
 * ES256 signing keys, one active per application, generated on first use and
 * stored with the private half sealed. Rotation retires the active key; a
 * retired key stays published (and accepted) until every token it signed has
 * expired.
 */
export function createSigningKeys(deps: { repo: SigningKeysRepo; applications: ApplicationDigests; uow: UnitOfWork; sealer: Sealer; clock: Clock }) {
  const { repo, applications, sealer, clock } = deps;
  const active = new Map<string, { kid: string; key: KeyLike; audience: string; loadedAt: number }>();

  /**
   * A new key pair and what is stored of it; generated before any
   * transaction, which only writes it. The private half is sealed as the
   * JSON text of its JWK: the repo only ever sees the sealed text.
   */
  async function newKey(apiKeyId: string) {
    const { publicKey, privateKey } = await generateKeyPair(ALG, { extractable: true });
    const kid = `${apiKeyId}.${randomBytes(6).toString('hex')}`;
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: ALG, use: 'sig' };
    const stored = { kid, apiKeyId, publicJwk, privateJwkSealed: sealer.seal(JSON.stringify(await exportJWK(privateKey))) };
    return { kid, key: privateKey, stored };
  }

  async function createKey(apiKeyId: string) {
    const { kid, key, stored } = await newKey(apiKeyId);
    await repo.insert(stored, clock.nowMs());
    return { kid, key };
  }

  async function activeKey(apiKeyId: string) {
    const cached = active.get(apiKeyId);
    if (cached && clock.nowMs() - cached.loadedAt < ACTIVE_KEY_CACHE_MS) return cached;
    const keyDigest = await applications.keyDigestOf(apiKeyId);
    if (keyDigest === null) throw new Error(`no application ${apiKeyId}`);
    const row = await repo.active(apiKeyId);
    const loaded = row
      ? { kid: row.kid, key: (await importJWK(JSON.parse(sealer.open(row.privateJwkSealed)) as JWK, ALG)) as KeyLike }
      : await createKey(apiKeyId);
    // The stored digest is applicationAudience(apiKey): the raw key is never at hand here.
    const entry = { ...loaded, audience: keyDigest, loadedAt: clock.nowMs() };
    active.set(apiKeyId, entry);
    return entry;
  }

  /** The application's internal ID for an audience, or null when no application has it. */
  async function applicationOf(audience: string): Promise<string | null> {
    if (!AUDIENCE.test(audience)) return null;
    return applications.apiKeyIdOfDigest(audience);
  }

  /** Keys retired after this (Unix ms) are still published: a token they signed may not have expired yet. */
  const publishedSince = () => clock.nowMs() - USER_TOKEN_TTL_SECONDS * 1000;

  return {
    async sign(apiKeyId: string, claims: UserTokenBody, subject: string): Promise<string> {
      const { kid, key, audience } = await activeKey(apiKeyId);
      const issuedAt = Math.floor(clock.nowMs() / 1000);
      return new SignJWT({ ...claims, app: apiKeyId })
        .setProtectedHeader({ alg: ALG, kid, typ: 'JWT' })
        .setIssuer(ISSUER)
        .setAudience(audience)
        .setSubject(subject)
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + USER_TOKEN_TTL_SECONDS)
        .sign(key);
    },

    async rotate(apiKeyId: string): Promise<{ kid: string }> {
      const { kid, stored } = await newKey(apiKeyId);
      // Retire and replace together: a failure must not leave the application without an active key.
      await deps.uow.run(async () => {
        const at = clock.nowMs();
        await repo.retireActive(apiKeyId, at);
        await repo.insert(stored, at);
      });
      active.delete(apiKeyId);
      return { kid };
    },

    /**
     * The JSON Web Key Set of every application's published keys. A verifier
     * using it must also require its audience, or it accepts any application's tokens.
     */
    async jwks(): Promise<{ keys: JWK[] }> {
      return { keys: await repo.publishedKeys(publishedSince()) };
    },

    /**
     * One application's published keys, so a verifier that fetches only
     * these trusts no other application's; null for an unknown audience.
     */
    async jwksFor(audience: string): Promise<{ keys: JWK[] } | null> {
      const apiKeyId = await applicationOf(audience);
      if (apiKeyId === null) return null;
      return { keys: await repo.publishedKeys(publishedSince(), apiKeyId) };
    },

    /**
     * Verifies a user token for one application (the real-time layer knows
     * which from the API key the client connects with): signature by a
     * published key of that application, audience, issuer, expiry. Throws
     * when anything is off, including a valid token of another application.
     */
    async verify(token: string, expected: ExpectedApplication): Promise<UserTokenClaims> {
      const apiKeyId = await applicationOf(expected.audience);
      if (apiKeyId === null) throw new Error('no application has this audience');
      const { kid } = decodeProtectedHeader(token);
      if (typeof kid !== 'string') throw new Error('user token has no key ID');
      const jwk = await repo.publishedKey(apiKeyId, kid, publishedSince());
      if (!jwk) throw new Error("user token is not signed by a published key of this application");
      const publicKey = await importJWK(jwk, ALG);
      // Signed by this application's key, so the payload is what sign() wrote.
      const { payload } = await jwtVerify<UserTokenClaims>(token, publicKey, {
        algorithms: [ALG],
        issuer: ISSUER,
        audience: expected.audience,
        currentDate: clock.now(),
      });
      if (payload.app !== apiKeyId) throw new Error('user token names another application than its key');
      return payload;
    },
  };
}

export type SigningKeys = ReturnType<typeof createSigningKeys>;
