import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError } from './app-error.js';

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
 *
 * A sealer holds one key to seal with and the keys it opens with: while the
 * master key is rotated (master-key-rotation.ts) it opens values under the
 * old key and the new one. The format names no key, so that a server of the
 * previous version still opens what this one seals; a value under another
 * key fails its tag check, which costs one AES-GCM pass.
 */
export class Sealer {
  #sealKey: Buffer;
  #openKeys: Buffer[];
  /** Derived keys stay with the key the process started with: they are never stored. */
  readonly #startKey: Buffer;
  /** Why this sealer may seal no more (a rotation finished to a key it never learned). */
  #retired: string | undefined;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('the master key must be 32 bytes');
    this.#sealKey = key;
    this.#openKeys = [key];
    this.#startKey = key;
  }

  /** Seals with `seal` from now on and opens with it and `others`; every holder of this sealer sees the change at once. */
  useKeys(seal: Buffer, others: readonly Buffer[]): void {
    this.#sealKey = seal;
    this.#openKeys = [seal, ...others].filter((key, i, all) => all.findIndex((k) => k.equals(key)) === i);
  }

  /** The key it seals with, and every key it opens with (the sealing key first). */
  keys(): { seal: Buffer; open: readonly Buffer[] } {
    return { seal: this.#sealKey, open: [...this.#openKeys] };
  }

  /** A subkey for another purpose (e.g. page-token MACs), so one master key never serves two algorithms. */
  deriveKey(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.#startKey, Buffer.alloc(0), `collab-backend:${purpose}`, 32));
  }

  /** Refuses to seal from now on: what it would seal, no server started with the database's key could open. */
  retire(reason: string): void {
    this.#retired = reason;
  }

  /** Why it refuses to seal, if it does. */
  retired(): string | undefined {
    return this.#retired;
  }

  seal(plaintext: string): string {
    // UNAVAILABLE: another process, started with the new key, can serve the request.
    if (this.#retired !== undefined) throw new AppError('UNAVAILABLE', this.#retired);
    return sealWith(this.#sealKey, plaintext);
  }

  open(sealed: string): string {
    let failure: unknown;
    for (const key of this.#openKeys) {
      try {
        return openWith(key, sealed);
      } catch (error) {
        failure = error;
      }
    }
    throw failure;
  }

  /**
   * A stored value to keep: itself when the sealing key opens it, otherwise
   * opened and sealed again under that key, so that a ciphertext copied
   * forward (an unchanged secret) never carries a retired key along.
   */
  current(sealed: string): string {
    try {
      openWith(this.#sealKey, sealed);
      return sealed;
    } catch {
      return this.seal(this.open(sealed));
    }
  }
}

function sealWith(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${SEAL_VERSION}.${iv.toString('base64url')}.${body.toString('base64url')}`;
}

function openWith(key: Buffer, sealed: string): string {
  const [version, ivText, bodyText] = sealed.split('.');
  if (version !== SEAL_VERSION || !ivText || !bodyText) throw new Error('not a sealed value');
  const body = Buffer.from(bodyText, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(ivText, 'base64url'));
  decipher.setAuthTag(body.subarray(body.length - 16));
  return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString('utf8');
}

/** HMAC-SHA256, base64url: integrity tags for opaque tokens we hand out. */
export function mac(key: Buffer, data: string): string {
  return createHmac('sha256', key).update(data, 'utf8').digest('base64url');
}
