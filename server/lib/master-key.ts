import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
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
  return parseKeyText(text, file ? `the key file ${file} (used when COLLAB_MASTER_KEY is unset)` : 'COLLAB_MASTER_KEY');
}

/** A 32-byte key written as 64 hex characters or base64; `source` names where it came from in the error. */
export function parseKeyText(text: string, source: string): Buffer {
  const candidates = [/^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : null, Buffer.from(text, 'base64')];
  const key = candidates.find((k) => k !== null && k.length === 32);
  if (!key) throw new MasterKeyError(`${source} must hold 32 bytes, as 64 hex characters or base64`);
  return key;
}

/** Replaces the key file with `key` (mode 0600), atomically: a crash leaves the old file or the new one. */
export function replaceKeyFile(dataDir: string, key: Buffer): string {
  const path = keyFilePath(dataDir);
  const partial = `${path}.partial`;
  writeFileSync(partial, `${key.toString('base64')}\n`, { mode: 0o600 });
  chmodSync(partial, 0o600);
  renameSync(partial, path);
  return path;
}

export const CHECK_KEY = 'masterKeyCheck';
export const CHECK_TEXT = 'collab-backend master key check v1';
/** The ServerMeta row of a master-key rotation under way (master-key-rotation.ts). */
export const ROTATION_KEY = 'masterKeyRotation';

/**
 * A rotation under way, as ServerMeta keeps it: each key sealed under the
 * other, so that a server holding either one learns the other. `announce`:
 * servers open with both and still seal with the old one; `reseal`: they
 * seal with the new one while the stored values are sealed again.
 */
export interface RotationRecord {
  /** The new key (base64), sealed under the old one. */
  next: string;
  /** The old key (base64), sealed under the new one. */
  previous: string;
  phase: 'announce' | 'reseal';
  /** When the phase began, Unix ms. */
  since: number;
}

function parseRotation(value: string | undefined): RotationRecord | undefined {
  return value === undefined ? undefined : (JSON.parse(value) as RotationRecord);
}

/** The key sealed in `sealed`, or undefined when `sealer` does not open it. */
export function keyOpenedBy(sealer: Sealer, sealed: string): Buffer | undefined {
  try {
    return Buffer.from(sealer.open(sealed), 'base64');
  } catch {
    return undefined;
  }
}

/**
 * The keys a server holding `known` seals and opens with, given the
 * database's check value and rotation record; undefined when none of them
 * is the database's key (nor, during a rotation, the key it rotates to).
 */
export function resolveKeys(known: readonly Buffer[], check: string, rotation: RotationRecord | undefined): { seal: Buffer; open: Buffer[] } | undefined {
  if (rotation) {
    let old: Buffer | undefined;
    let next: Buffer | undefined;
    for (const key of known) {
      next = keyOpenedBy(new Sealer(key), rotation.next);
      if (next) {
        old = key;
        break;
      }
    }
    for (const key of next ? [] : known) {
      old = keyOpenedBy(new Sealer(key), rotation.previous);
      if (old) {
        next = key;
        break;
      }
    }
    if (old && next) return { seal: rotation.phase === 'reseal' ? next : old, open: [next, old, ...known] };
  }
  const current = known.find((key) => opens(new Sealer(key), check, CHECK_TEXT));
  return current ? { seal: current, open: [current, ...known] } : undefined;
}

/** The check value and the rotation record under way, if any. */
export async function readKeyState(db: Db): Promise<{ check: string | undefined; rotation: RotationRecord | undefined }> {
  const rows = await db.serverMeta.findMany({ where: { key: { in: [CHECK_KEY, ROTATION_KEY] } } });
  const value = (key: string) => rows.find((row) => row.key === key)?.value;
  return { check: value(CHECK_KEY), rotation: parseRotation(value(ROTATION_KEY)) };
}

/**
 * The sealer for a database, after proving the key is the one the database
 * was set up with: the first start seals a known text into ServerMeta, every
 * later start (server or CLI) must open it, or be the key a rotation under
 * way moves to. A database from before the check existed is proven against
 * one of its sealed auth tokens instead.
 */
export async function openVerifiedSealer(db: Db, source: KeySource, clock: Clock): Promise<Sealer> {
  const { check, rotation } = await readKeyState(db);
  const hint = `set COLLAB_MASTER_KEY to the key this database was set up with (or restore ${keyFilePath(source.dataDir)})`;
  if (check !== undefined) {
    const key = findMasterKey(source);
    if (!key) throw new MasterKeyError(`COLLAB_MASTER_KEY is not set and ${keyFilePath(source.dataDir)} does not exist, but this database holds secrets sealed with a master key: ${hint}`);
    const keys = resolveKeys([key], check, rotation);
    if (!keys) throw new MasterKeyError(`COLLAB_MASTER_KEY is not the master key of this database: ${hint}`);
    const sealer = new Sealer(key);
    sealer.useKeys(keys.seal, keys.open);
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

/** The ServerMeta rows by which each running server says which rotation phase it applies: `masterKeyAck:<instance>`. */
export const ACK_PREFIX = 'masterKeyAck:';

/** What a server acknowledges: the phase (and when it began) it applies, and when it last said so. */
export interface RotationAck {
  phase: RotationRecord['phase'];
  since: number;
  at: number;
}

/**
 * Keeps a running server's sealer in step with a rotation: at once and then
 * every `intervalMs` it reads the check value and the rotation record,
 * switches the keys the sealer seals and opens with, and, while a rotation
 * is under way, acknowledges the phase it applies (the rotation waits for
 * every server that acknowledges). A failed read is retried at the next
 * tick, with the keys unchanged. A rotation that finished to a key this
 * server never learned (it could not read the database through both grace
 * periods) retires the sealer: it seals nothing the others could not open,
 * and `onLost` says to restart it with the new key.
 */
export function watchMasterKey(
  db: Db,
  sealer: Sealer,
  options: { intervalMs: number; clock: Clock; onChange(sealsWithNewKey: boolean): void; onLost(message: string): void; onError(error: unknown): void },
): { stop(): void } {
  const instance = randomBytes(8).toString('hex');
  let running = false;
  const tick = () => {
    if (running || sealer.retired() !== undefined) return;
    running = true;
    void (async () => {
      try {
        const { check, rotation } = await readKeyState(db);
        if (check === undefined) return;
        const before = sealer.keys();
        const keys = resolveKeys(before.open, check, rotation);
        if (!keys) {
          const message = 'the master key was rotated to a key this process never learned: restart it with the new COLLAB_MASTER_KEY';
          sealer.retire(message);
          options.onLost(message);
          return;
        }
        const changed = !keys.seal.equals(before.seal) || keys.open.some((key) => !before.open.some((k) => k.equals(key)));
        if (changed) {
          sealer.useKeys(keys.seal, keys.open);
          options.onChange(!keys.seal.equals(before.seal));
        }
        if (rotation) {
          const ack: RotationAck = { phase: rotation.phase, since: rotation.since, at: options.clock.nowMs() };
          const key = `${ACK_PREFIX}${instance}`;
          await db.serverMeta.upsert({ where: { key }, create: { key, value: JSON.stringify(ack), createdAt: BigInt(ack.at) }, update: { value: JSON.stringify(ack) } });
        }
      } catch (error) {
        options.onError(error);
      } finally {
        running = false;
      }
    })();
  };
  tick();
  const timer = setInterval(tick, options.intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/**
 * Why the configured master key cannot open a database's sealed values (its
 * check value, which a rotation under way lets either of its keys open; or
 * before the check existed one auth token), or undefined
 * when it can or there is nothing sealed: `restore` asks before a backup
 * replaces the database. Never creates a key file.
 */
export function keyRefusal(source: KeySource, sealed: { check: string | undefined; rotation: string | undefined; legacyToken: string | undefined }): string | undefined {
  const value = sealed.check ?? sealed.legacyToken;
  if (value === undefined) return undefined;
  const key = findMasterKey(source);
  if (!key) return `COLLAB_MASTER_KEY is not set and ${keyFilePath(source.dataDir)} does not exist; set COLLAB_MASTER_KEY to the key of the database the backup was taken from`;
  const ok = sealed.check !== undefined ? resolveKeys([key], sealed.check, parseRotation(sealed.rotation)) !== undefined : opens(new Sealer(key), value);
  return ok ? undefined : 'it was sealed with another master key; set COLLAB_MASTER_KEY to the key of the database the backup was taken from';
}

/** Whether `sealer` opens `sealed` (to `expected`, when given). */
export function opens(sealer: Sealer, sealed: string, expected?: string): boolean {
  try {
    const text = sealer.open(sealed);
    return expected === undefined || text === expected;
  } catch {
    return false;
  }
}
