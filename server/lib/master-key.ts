import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from '../db/client.js';
import { isUniqueViolation } from '../db/errors.js';
import type { Clock } from './clock.js';
import { Sealer } from './crypto.js';

/** A start-up failure caused by the master key; its message is one line naming COLLAB_MASTER_KEY. */
export class MasterKeyError extends Error {}

interface KeySource {
  envValue: string | undefined;
  dataDir: string;
}

/**
 * The 32-byte master key that seals secrets at rest. `COLLAB_MASTER_KEY`
 * (base64 or hex) wins; otherwise the embedded default keeps a key file,
 * created once with mode 0600, in the data directory. Losing the key makes
 * sealed secrets unreadable, so it is never regenerated over an existing file.
 */
export function loadMasterKey(options: KeySource): Buffer {
  const existing = findMasterKey(options);
  if (existing) return existing;
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  const path = keyFilePath(options.dataDir);
  try {
    // `wx` fails if another process created the file first; then use theirs.
    writeFileSync(path, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(path, 0o600);
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return parseKey(readFileSync(path, 'utf8').trim(), path);
  }
}

/** The configured key, or undefined when neither the variable nor the key file exists. */
function findMasterKey(options: KeySource): Buffer | undefined {
  if (options.envValue !== undefined && options.envValue !== '') return parseKey(options.envValue, undefined);
  const path = keyFilePath(options.dataDir);
  try {
    return parseKey(readFileSync(path, 'utf8').trim(), path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return undefined;
  }
}

function keyFilePath(dataDir: string): string {
  return join(dataDir, 'master.key');
}

function parseKey(text: string, file: string | undefined): Buffer {
  const candidates = [/^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : null, Buffer.from(text, 'base64')];
  const key = candidates.find((k) => k !== null && k.length === 32);
  if (!key) {
    throw new MasterKeyError(`${file ? `the key file ${file} (used when COLLAB_MASTER_KEY is unset)` : 'COLLAB_MASTER_KEY'} must hold 32 bytes, as 64 hex characters or base64`);
  }
  return key;
}

const CHECK_KEY = 'masterKeyCheck';
const CHECK_TEXT = 'collab-backend master key check v1';

/**
 * The sealer for a database, after proving the key is the one the database
 * was set up with: the first start seals a known text into ServerMeta, every
 * later start (server or CLI) must open it. A database from before the check
 * existed is proven against one of its sealed auth tokens instead.
 */
export async function openVerifiedSealer(db: Db, source: KeySource, clock: Clock): Promise<Sealer> {
  const stored = await db.serverMeta.findUnique({ where: { key: CHECK_KEY } });
  const hint = `set COLLAB_MASTER_KEY to the key this database was set up with (or restore ${keyFilePath(source.dataDir)})`;
  if (stored) {
    const key = findMasterKey(source);
    if (!key) throw new MasterKeyError(`COLLAB_MASTER_KEY is not set and ${keyFilePath(source.dataDir)} does not exist, but this database holds secrets sealed with a master key: ${hint}`);
    const sealer = new Sealer(key);
    if (!opens(sealer, stored.value, CHECK_TEXT)) throw new MasterKeyError(`COLLAB_MASTER_KEY is not the master key of this database: ${hint}`);
    return sealer;
  }
  const sealer = new Sealer(loadMasterKey(source));
  const legacy = await db.authToken.findFirst({ select: { tokenSealed: true } });
  if (legacy && !opens(sealer, legacy.tokenSealed)) throw new MasterKeyError(`COLLAB_MASTER_KEY is not the master key of this database: ${hint}`);
  try {
    await db.serverMeta.create({ data: { key: CHECK_KEY, value: sealer.seal(CHECK_TEXT), createdAt: BigInt(clock.nowMs()) } });
  } catch (error) {
    // Another process wrote the check first: it must open with this key too.
    if (!isUniqueViolation(error)) throw error;
    return openVerifiedSealer(db, source, clock);
  }
  return sealer;
}

/**
 * Why the configured master key cannot open a database's sealed values (its
 * check value, or before the check existed one auth token), or undefined
 * when it can or there is nothing sealed: `restore` asks before a backup
 * replaces the database. Never creates a key file.
 */
export function keyRefusal(source: KeySource, sealed: { check: string | undefined; legacyToken: string | undefined }): string | undefined {
  const value = sealed.check ?? sealed.legacyToken;
  if (value === undefined) return undefined;
  const key = findMasterKey(source);
  if (!key) return `COLLAB_MASTER_KEY is not set and ${keyFilePath(source.dataDir)} does not exist; set COLLAB_MASTER_KEY to the key of the database the backup was taken from`;
  const sealer = new Sealer(key);
  const ok = sealed.check !== undefined ? opens(sealer, sealed.check, CHECK_TEXT) : opens(sealer, value);
  return ok ? undefined : 'it was sealed with another master key; set COLLAB_MASTER_KEY to the key of the database the backup was taken from';
}

function opens(sealer: Sealer, sealed: string, expected?: string): boolean {
  try {
    const text = sealer.open(sealed);
    return expected === undefined || text === expected;
  } catch {
    return false;
  }
}
