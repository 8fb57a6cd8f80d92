import type { Db } from '../db/client.js';
import { isUniqueViolation } from '../db/errors.js';
import type { UnitOfWork } from '../db/unit-of-work.js';
import { failedPrecondition } from '../lib/app-error.js';
import type { Clock } from '../lib/clock.js';
import { Sealer } from '../lib/crypto.js';
import { CHECK_KEY, CHECK_TEXT, MasterKeyError, opens, readKeyState, ROTATION_KEY, type RotationRecord } from '../lib/master-key.js';
import { columnName, resealColumn, type SealedColumn } from './sealed-columns.js';

/**
 * `master-key rotate`: every value sealed with the master key is sealed
 * again with a new one while the servers keep serving, whichever of the two
 * keys they were started with.
 *
 * 1. `announce`: a rotation record in ServerMeta holds each key sealed under
 *    the other. Servers read it within MASTER_KEY_REFRESH_MS
 *    (watchMasterKey) and open values under both keys; they still seal
 *    with the old one, which every server can open.
 * 2. After a grace period (two refresh intervals and a second), `reseal`:
 *    servers seal new values with the new key; after another grace period
 *    none seals with the old one any more.
 * 3. Every sealed column (the modules' DomainModule.sealed) is walked in
 *    batches, each in one transaction, sealing again what the new key does
 *    not open. Passes repeat until one rewrites nothing.
 * 4. In one transaction the check value is sealed with the new key and the
 *    record deleted: from then on a server started with the old key refuses
 *    to start, and nothing stored reveals the new key to the old one.
 *
 * Each step is idempotent, so running the command again after a crash
 * resumes where it stopped: a phase's grace period counts from when the
 * phase began, and a pass skips what the new key already opens.
 */

export interface RotationDeps {
  db: Db;
  uow: UnitOfWork;
  clock: Clock;
  columns: readonly SealedColumn[];
  /** How long a phase waits for every running server to have read it. */
  graceMs: number;
  batchSize?: number;
  sleep?: (ms: number) => Promise<void>;
  progress?: (line: string) => void;
  /** Test seam: runs after each batch (a crash injected here must leave a resumable rotation). */
  afterBatch?: (column: SealedColumn) => void | Promise<void>;
}

export interface RotationResult {
  /** False when the database's key was the new key already (a rotation that finished before). */
  rotated: boolean;
  /** Rows sealed again, per `Table.column`. */
  resealed: Record<string, number>;
  /** Stored values neither key opens (left as they are: no key can read them), per `Table.column`. */
  unreadable: Record<string, number>;
  passes: number;
}

const MAX_PASSES = 5;

/** The grace period for servers that read the key state every `refreshMs`. */
export const graceFor = (refreshMs: number) => 2 * refreshMs + 1000;

export async function rotateMasterKey(deps: RotationDeps, keys: { current: Buffer; next: Buffer }): Promise<RotationResult> {
  const { db, clock } = deps;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const progress = deps.progress ?? (() => undefined);
  const [oldSealer, newSealer] = [new Sealer(keys.current), new Sealer(keys.next)];
  if (keys.current.equals(keys.next)) throw failedPrecondition('the new master key is the one in use: nothing to rotate');

  let { check, rotation } = await readKeyState(db);
  if (check === undefined) throw failedPrecondition('this database holds no master-key check yet: start the server once, then rotate');
  if (opens(newSealer, check, CHECK_TEXT)) return { rotated: false, resealed: {}, unreadable: {}, passes: 0 };
  if (!opens(oldSealer, check, CHECK_TEXT)) {
    throw new MasterKeyError('COLLAB_MASTER_KEY is not the master key of this database: set it to the current key, and give the new one with --new-key-file or COLLAB_NEW_MASTER_KEY');
  }

  if (rotation === undefined) {
    const record: RotationRecord = {
      next: oldSealer.seal(keys.next.toString('base64')),
      previous: newSealer.seal(keys.current.toString('base64')),
      phase: 'announce',
      since: clock.nowMs(),
    };
    try {
      await db.serverMeta.create({ data: { key: ROTATION_KEY, value: JSON.stringify(record), createdAt: BigInt(record.since) } });
      rotation = record;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      // Another rotate started at the same moment: continue with it if it rotates to this key.
      rotation = (await readKeyState(db)).rotation;
    }
  }
  if (rotation === undefined || !opens(oldSealer, rotation.next, keys.next.toString('base64'))) {
    throw failedPrecondition('a rotation to another master key is under way: run master-key rotate again with that key to finish it');
  }

  if (rotation.phase === 'announce') {
    await waitOut(rotation, 'servers open values under either key', deps.graceMs, clock, sleep, progress);
    rotation = { ...rotation, phase: 'reseal', since: clock.nowMs() };
    await db.serverMeta.update({ where: { key: ROTATION_KEY }, data: { value: JSON.stringify(rotation) } });
  }
  await waitOut(rotation, 'servers seal with the new key', deps.graceMs, clock, sleep, progress);

  const resealed: Record<string, number> = Object.create(null) as Record<string, number>;
  let unreadable: Record<string, number> = Object.create(null) as Record<string, number>;
  let passes = 0;
  for (let rewritten = -1; rewritten !== 0; ) {
    if (passes === MAX_PASSES) throw new Error(`values were still sealed with the old key after ${MAX_PASSES} passes: run master-key rotate again`);
    passes += 1;
    rewritten = 0;
    // Only the last pass's count is current: an earlier pass may have met values that a server sealed again since.
    unreadable = Object.create(null) as Record<string, number>;
    for (const column of deps.columns) {
      const name = columnName(column);
      const reseal = (sealed: string): string => {
        if (opens(newSealer, sealed)) return sealed;
        if (!opens(oldSealer, sealed)) {
          unreadable[name] = (unreadable[name] ?? 0) + 1;
          return sealed;
        }
        return newSealer.seal(oldSealer.open(sealed));
      };
      const count = await resealColumn(db, deps.uow, column, reseal, { batchSize: deps.batchSize ?? 200, afterBatch: () => deps.afterBatch?.(column) });
      resealed[name] = (resealed[name] ?? 0) + count;
      rewritten += count;
      if (count > 0) progress(`pass ${passes}: ${name}: ${count} sealed again`);
    }
  }

  await deps.uow.run(async () => {
    await db.serverMeta.update({ where: { key: CHECK_KEY }, data: { value: newSealer.seal(CHECK_TEXT) } });
    await db.serverMeta.delete({ where: { key: ROTATION_KEY } });
  });
  return { rotated: true, resealed: { ...resealed }, unreadable: { ...unreadable }, passes };
}

async function waitOut(rotation: RotationRecord, what: string, graceMs: number, clock: Clock, sleep: (ms: number) => Promise<void>, progress: (line: string) => void) {
  const left = rotation.since + graceMs - clock.nowMs();
  if (left <= 0) return;
  progress(`${rotation.phase}: waiting ${Math.ceil(left / 1000)} s until every server has read it (${what})`);
  await sleep(left);
}
