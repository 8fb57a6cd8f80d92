import { exportJWK, generateKeyPair, importJWK, jwtVerify, decodeProtectedHeader, SignJWT, type JWK, type JWTPayload } from 'jose';
import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/client.js';
import type { Sealer } from '../../lib/crypto.js';

/** User tokens live 48 hours (the specification's JWT lifetime). */
export const USER_TOKEN_TTL_SECONDS = 48 * 60 * 60;
const ALG = 'ES256';
const ISSUER = 'collab-backend';
// A rotated key is picked up by other processes within this time.
const ACTIVE_KEY_CACHE_MS = 60_000;

type KeyLike = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

export interface UserTokenClaims extends JWTPayload {
  /** The application that issued the token (its internal ID, not the API key). */
  app: string;
  user: Record<string, unknown> & { userId: string; name: string; email: string; isAdmin: boolean };
  permissions: { resources: Array<{ type: string; id: string; organizationId?: string; accessRole: string; expiresAt?: number }> };
}

/**
 * ES256 signing keys, one active per application, generated on first use and
 * stored with the private half sealed. Rotation retires the active key; a
 * retired key stays published (and accepted) until every token it signed has
 * expired.
 */
export function createSigningKeys(deps: { db: Db; sealer: Sealer; now?: () => Date }) {
  const { db, sealer } = deps;
  const now = deps.now ?? (() => new Date());
  const active = new Map<string, { kid: string; key: KeyLike; loadedAt: number }>();

  async function createKey(apiKeyId: string) {
    const { publicKey, privateKey } = await generateKeyPair(ALG, { extractable: true });
    const kid = `${apiKeyId}.${randomBytes(6).toString('hex')}`;
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: ALG, use: 'sig' };
    await db.signingKey.create({
      data: { kid, apiKeyId, publicJwk: JSON.stringify(publicJwk), privateJwkSealed: sealer.seal(JSON.stringify(await exportJWK(privateKey))) },
    });
    return { kid, key: privateKey };
  }

  async function activeKey(apiKeyId: string) {
    const cached = active.get(apiKeyId);
    if (cached && Date.now() - cached.loadedAt < ACTIVE_KEY_CACHE_MS) return cached;
    const row = await db.signingKey.findFirst({ where: { apiKeyId, retiredAt: null }, orderBy: [{ createdAt: 'desc' }, { kid: 'desc' }] });
    const loaded = row
      ? { kid: row.kid, key: (await importJWK(JSON.parse(sealer.open(row.privateJwkSealed)) as JWK, ALG)) as KeyLike }
      : await createKey(apiKeyId);
    const entry = { ...loaded, loadedAt: Date.now() };
    active.set(apiKeyId, entry);
    return entry;
  }

  const stillPublished = () => ({ OR: [{ retiredAt: null }, { retiredAt: { gt: new Date(now().getTime() - USER_TOKEN_TTL_SECONDS * 1000) } }] });

  return {
    async sign(apiKeyId: string, claims: Omit<UserTokenClaims, 'app'>, subject: string): Promise<string> {
      const { kid, key } = await activeKey(apiKeyId);
      const issuedAt = Math.floor(now().getTime() / 1000);
      return new SignJWT({ ...claims, app: apiKeyId })
        .setProtectedHeader({ alg: ALG, kid, typ: 'JWT' })
        .setIssuer(ISSUER)
        .setSubject(subject)
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + USER_TOKEN_TTL_SECONDS)
        .sign(key);
    },

    async rotate(apiKeyId: string): Promise<{ kid: string }> {
      await db.signingKey.updateMany({ where: { apiKeyId, retiredAt: null }, data: { retiredAt: now() } });
      const { kid } = await createKey(apiKeyId);
      active.delete(apiKeyId);
      return { kid };
    },

    /** The JSON Web Key Set of every application's published keys. */
    async jwks(): Promise<{ keys: JWK[] }> {
      const rows = await db.signingKey.findMany({ where: stillPublished(), orderBy: [{ createdAt: 'asc' }, { kid: 'asc' }], select: { publicJwk: true } });
      return { keys: rows.map((r) => JSON.parse(r.publicJwk) as JWK) };
    },

    /**
     * Verifies a user token for the real-time layer: signature by a published
     * key of the application named in the token, issuer, expiry. Throws when
     * anything is off.
     */
    async verify(token: string): Promise<UserTokenClaims> {
      const { kid } = decodeProtectedHeader(token);
      if (typeof kid !== 'string') throw new Error('user token has no key ID');
      const row = await db.signingKey.findFirst({ where: { kid, ...stillPublished() } });
      if (!row) throw new Error('user token is signed by an unknown or retired key');
      const publicKey = await importJWK(JSON.parse(row.publicJwk) as JWK, ALG);
      const { payload } = await jwtVerify(token, publicKey, { algorithms: [ALG], issuer: ISSUER, currentDate: now() });
      if (payload.app !== row.apiKeyId) throw new Error('user token names another application than its key');
      return payload as UserTokenClaims;
    },
  };
}

export type SigningKeys = ReturnType<typeof createSigningKeys>;
