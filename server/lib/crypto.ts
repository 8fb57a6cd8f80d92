import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * SHA-256 digest used to look credentials up. API keys and auth tokens are
 * 192+ bits of randomness, so an unsalted digest is as strong as a slow hash
 * and keeps the lookup a single indexed read.
 */
export function digest(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Equality that takes the same time wherever the inputs first differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  // Compare against itself on a length mismatch so the time does not reveal it.
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

/** A random secret with a readable prefix, e.g. `ak_…` for an API key. */
export function randomSecret(prefix: string, bytes = 24): string {
  return `${prefix}_${randomBytes(bytes).toString('base64url')}`;
}

/** A random opaque identifier, e.g. `ws_…` for a workspace. */
export function randomId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

const SEAL_VERSION = 'v1';

/**
 * AES-256-GCM authenticated encryption for secrets that must be returned or
 * used later (auth tokens, provider keys, signing keys). Output:
 * `v1.<iv>.<ciphertext+tag>`, base64url. A tampered value fails to open.
 */
export class Sealer {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('the master key must be 32 bytes');
    this.#key = key;
  }

  /** A subkey for another purpose (e.g. page-token MACs), so one master key never serves two algorithms. */
  deriveKey(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.#key, Buffer.alloc(0), `collab-backend:${purpose}`, 32));
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${SEAL_VERSION}.${iv.toString('base64url')}.${body.toString('base64url')}`;
  }

  open(sealed: string): string {
    const [version, ivText, bodyText] = sealed.split('.');
    if (version !== SEAL_VERSION || !ivText || !bodyText) throw new Error('not a sealed value');
    const body = Buffer.from(bodyText, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(ivText, 'base64url'));
    decipher.setAuthTag(body.subarray(body.length - 16));
    return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString('utf8');
  }
}

/** HMAC-SHA256, base64url: integrity tags for opaque tokens we hand out. */
export function mac(key: Buffer, data: string): string {
  return createHmac('sha256', key).update(data, 'utf8').digest('base64url');
}
