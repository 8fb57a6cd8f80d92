import type { JWK } from 'jose';
import type { Db } from '../../db/client.js';
import { encodeJsonText } from '../../db/json-columns.js';

/** A signing key as stored: the public half as a JWK, the private half sealed (it arrives sealed). */
export interface NewSigningKey {
  kid: string;
  apiKeyId: string;
  publicJwk: JWK;
  privateJwkSealed: string;
}

const newestFirst = [{ createdAt: 'desc' as const }, { kid: 'desc' as const }];
const oldestFirst = [{ createdAt: 'asc' as const }, { kid: 'asc' as const }];

/** Still published: active, or retired after `retiredAfter` (Unix ms). */
const published = (retiredAfter: number) => ({ OR: [{ retiredAt: null }, { retiredAt: { gt: BigInt(retiredAfter) } }] });

const jwkFrom = (text: string) => JSON.parse(text) as JWK;

/** The user-token signing keys of every application; times arrive as Unix ms from the service's clock. */
export function createSigningKeysRepo(db: Db) {
  return {
    async insert(key: NewSigningKey, createdAt: number): Promise<void> {
      await db.signingKey.create({ data: { ...key, publicJwk: encodeJsonText(key.publicJwk), createdAt: BigInt(createdAt) } });
    },

    /** The application's active key (the newest not retired): its ID and sealed private half. */
    active: (apiKeyId: string): Promise<{ kid: string; privateJwkSealed: string } | null> =>
      db.signingKey.findFirst({ where: { apiKeyId, retiredAt: null }, orderBy: newestFirst, select: { kid: true, privateJwkSealed: true } }),

    /** Retires the application's active key(s) at `at`; the caller adds the new one in the same unit of work. */
    async retireActive(apiKeyId: string, at: number): Promise<void> {
      await db.signingKey.updateMany({ where: { apiKeyId, retiredAt: null }, data: { retiredAt: BigInt(at) } });
    },

    /** The public halves still published (of one application, or of all), oldest first. */
    async publishedKeys(retiredAfter: number, apiKeyId?: string): Promise<JWK[]> {
      const rows = await db.signingKey.findMany({
        where: { ...(apiKeyId === undefined ? {} : { apiKeyId }), ...published(retiredAfter) },
        orderBy: oldestFirst,
        select: { publicJwk: true },
      });
      return rows.map((row) => jwkFrom(row.publicJwk));
    },

    /** The public half of one of the application's published keys, or null. */
    async publishedKey(apiKeyId: string, kid: string, retiredAfter: number): Promise<JWK | null> {
      const row = await db.signingKey.findFirst({ where: { kid, apiKeyId, ...published(retiredAfter) } });
      return row === null ? null : jwkFrom(row.publicJwk);
    },
  };
}

export type SigningKeysRepo = ReturnType<typeof createSigningKeysRepo>;
