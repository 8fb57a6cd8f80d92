import { exportJWK, generateKeyPair, importJWK, jwtVerify, decodeProtectedHeader, SignJWT, type JWK } from 'jose';
import { randomBytes } from 'node:crypto';
import { USER_TOKEN_ALGORITHM as ALG, USER_TOKEN_ISSUER as ISSUER, type UserTokenBody, type UserTokenClaims } from '../../../contract/permissions/user-token.js';
import type { Db } from '../../db/client.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import type { Clock } from '../../lib/clock.js';
import { digest, type Sealer } from '../../lib/crypto.js';

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

/**
 * ES256 signing keys, one active per application, generated on first use and
 * stored with the private half sealed. Rotation retires the active key; a
 * retired key stays published (and accepted) until every token it signed has
 * expired.
 */
export function createSigningKeys(deps: { db: Db; uow: UnitOfWork; sealer: Sealer; clock: Clock }) {
  const { db, sealer, clock } = deps;
  const active = new Map<string, { kid: string; key: KeyLike; audience: string; loadedAt: number }>();

  /** A new key pair and its row; generated before any transaction, which only writes it. */
  async function newKey(apiKeyId: string) {
    const { publicKey, privateKey } = await generateKeyPair(ALG, { extractable: true });
    const kid = `${apiKeyId}.${randomBytes(6).toString('hex')}`;
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: ALG, use: 'sig' };
    const row = { kid, apiKeyId, publicJwk: JSON.stringify(publicJwk), privateJwkSealed: sealer.seal(JSON.stringify(await exportJWK(privateKey))) };
    return { kid, key: privateKey, row };
  }

  async function createKey(apiKeyId: string) {
    const { kid, key, row } = await newKey(apiKeyId);
    await db.signingKey.create({ data: { ...row, createdAt: BigInt(clock.nowMs()) } });
    return { kid, key };
  }

  async function activeKey(apiKeyId: string) {
    const cached = active.get(apiKeyId);
    if (cached && clock.nowMs() - cached.loadedAt < ACTIVE_KEY_CACHE_MS) return cached;
    const app = await db.apiKey.findUnique({ where: { id: apiKeyId }, select: { keyDigest: true } });
    if (!app) throw new Error(`no application ${apiKeyId}`);
    const row = await db.signingKey.findFirst({ where: { apiKeyId, retiredAt: null }, orderBy: [{ createdAt: 'desc' }, { kid: 'desc' }] });
    const loaded = row
      ? { kid: row.kid, key: (await importJWK(JSON.parse(sealer.open(row.privateJwkSealed)) as JWK, ALG)) as KeyLike }
      : await createKey(apiKeyId);
    // The stored digest is applicationAudience(apiKey): the raw key is never at hand here.
    const entry = { ...loaded, audience: app.keyDigest, loadedAt: clock.nowMs() };
    active.set(apiKeyId, entry);
    return entry;
  }

  /** The application's internal ID for an audience, or null when no application has it. */
  async function applicationOf(audience: string): Promise<string | null> {
    if (!AUDIENCE.test(audience)) return null;
    const app = await db.apiKey.findUnique({ where: { keyDigest: audience }, select: { id: true } });
    return app?.id ?? null;
  }

  const stillPublished = () => ({ OR: [{ retiredAt: null }, { retiredAt: { gt: BigInt(clock.nowMs() - USER_TOKEN_TTL_SECONDS * 1000) } }] });

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
      const { kid, row } = await newKey(apiKeyId);
      // Retire and replace together: a failure must not leave the application without an active key.
      await deps.uow.run(async () => {
        const at = BigInt(clock.nowMs());
        await db.signingKey.updateMany({ where: { apiKeyId, retiredAt: null }, data: { retiredAt: at } });
        await db.signingKey.create({ data: { ...row, createdAt: at } });
      });
      active.delete(apiKeyId);
      return { kid };
    },

    /**
     * The JSON Web Key Set of every application's published keys. A verifier
     * using it must also require its audience, or it accepts any application's tokens.
     */
    async jwks(): Promise<{ keys: JWK[] }> {
      const rows = await db.signingKey.findMany({ where: stillPublished(), orderBy: [{ createdAt: 'asc' }, { kid: 'asc' }], select: { publicJwk: true } });
      return { keys: rows.map((r) => JSON.parse(r.publicJwk) as JWK) };
    },

    /**
     * One application's published keys, so a verifier that fetches only
     * these trusts no other application's; null for an unknown audience.
     */
    async jwksFor(audience: string): Promise<{ keys: JWK[] } | null> {
      const apiKeyId = await applicationOf(audience);
      if (apiKeyId === null) return null;
      const rows = await db.signingKey.findMany({
        where: { apiKeyId, ...stillPublished() },
        orderBy: [{ createdAt: 'asc' }, { kid: 'asc' }],
        select: { publicJwk: true },
      });
      return { keys: rows.map((r) => JSON.parse(r.publicJwk) as JWK) };
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
      const row = await db.signingKey.findFirst({ where: { kid, apiKeyId, ...stillPublished() } });
      if (!row) throw new Error("user token is not signed by a published key of this application");
      const publicKey = await importJWK(JSON.parse(row.publicJwk) as JWK, ALG);
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
