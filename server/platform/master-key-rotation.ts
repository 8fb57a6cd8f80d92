import type { Db } from '../db/client.js';
import { isUniqueViolation } from '../db/errors.js';
import type { UnitOfWork } from '../db/unit-of-work.js';
import { failedPrecondition } from '../lib/app-error.js';
import type { Clock } from '../lib/clock.js';
import { Sealer } from '../lib/crypto.js';
import { ACK_PREFIX, CHECK_KEY, CHECK_TEXT, keyOpenedBy, MasterKeyError, opens, readKeyState, ROTATION_KEY, type RotationAck, type RotationRecord } from '../lib/master-key.js';
import { columnName, resealColumn, type SealedColumn } from './sealed-columns.js';

/**
 * `master-key rotate`: every value sealed with the master key is sealed
 * again with a new one while the servers keep serving, whichever of the two
 * keys they were started with.
 *
 * 1. `announce`: a rotation record in ServerMeta holds each key sealed under
 *    the other. Servers read it within MASTER_KEY_REFRESH_MS
 *    (watchMasterKey), open values under both keys and acknowledge; they
 *    still seal with the old one, which every server can open.
 * 2. After a grace period (two refresh intervals and a second) and once
 *    every server that acknowledges has acknowledged it, `reseal`: servers
 *    seal new values with the new key; after another such wait none seals
 *    with the old one any more.
 * 3. Every sealed column (the modules' DomainModule.sealed) is walked in
 *    batches, each in one transaction, sealing again what the new key does
 *    not open. Passes repeat until one rewrites nothing.
 * 4. In one transaction the check value is sealed with the new key and the
 *    record and the acknowledgements are deleted: from then on a server
 *    started with the old key refuses to start. (The deleted record, the
 *    new key sealed under the old one, may linger in the database's free
 *    pages and logs: docs/operations.md says so.)
 *
 * Each step is idempotent, so running the command again after a crash
 * resumes where it stopped, with either key configured: a phase's grace
 * period counts from when the phase began, and a pass skips what the new
 * key already opens.
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
  /** Runs just before the final commit (the CLI replaces the key file there: either key works until the commit). */
  beforeCommit?: () => void | Promise<void>;
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
  let { check, rotation } = await readKeyState(db);
  if (check === undefined) throw failedPrecondition('this database holds no master-key check yet: start the server once, then rotate');
  const newSealer = new Sealer(keys.next);
  // Run again once servers have the new key configured: the record still knows the old one.
  const current = keys.current.equals(keys.next) && rotation ? keyOpenedBy(newSealer, rotation.previous) ?? keys.current : keys.current;
  const oldSealer = new Sealer(current);
  if (opens(newSealer, check, CHECK_TEXT) && rotation === undefined) return { rotated: false, resealed: {}, unreadable: {}, passes: 0 };
  if (current.equals(keys.next)) throw failedPrecondition('the new master key is the one in use: nothing to rotate');
  if (!opens(oldSealer, check, CHECK_TEXT)) {
    throw new MasterKeyError('COLLAB_MASTER_KEY is not the master key of this database: set it to the current key, and give the new one with --new-key-file or COLLAB_NEW_MASTER_KEY');
  }

  if (rotation === undefined) {
    const record: RotationRecord = {
      next: oldSealer.seal(keys.next.toString('base64')),
      previous: newSealer.seal(current.toString('base64')),
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

  const wait = { db, graceMs: deps.graceMs, clock, sleep, progress };
  if (rotation.phase === 'announce') {
    await waitOut(rotation, 'servers open values under either key', wait);
    rotation = { ...rotation, phase: 'reseal', since: clock.nowMs() };
    await db.serverMeta.update({ where: { key: ROTATION_KEY }, data: { value: JSON.stringify(rotation) } });
  }
  await waitOut(rotation, 'servers seal with the new key', wait);

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

  await deps.beforeCommit?.();
  await deps.uow.run(async () => {
    await db.serverMeta.update({ where: { key: CHECK_KEY }, data: { value: newSealer.seal(CHECK_TEXT) } });
    // deleteMany: a second rotate that ran beside this one may have committed first.
    await db.serverMeta.deleteMany({ where: { OR: [{ key: ROTATION_KEY }, { key: { startsWith: ACK_PREFIX } }] } });
  });
  return { rotated: true, resealed: { ...resealed }, unreadable: { ...unreadable }, passes };
}

/**
 * Waits out a phase's grace period from when the phase began, then until
 * every server that acknowledges (one that did within a grace period, so
 * it runs) applies this phase; refuses after ten grace periods more, naming
 * how many lag (run the command again once they do).
 */
async function waitOut(
  rotation: RotationRecord,
  what: string,
  { db, graceMs, clock, sleep, progress }: { db: Db; graceMs: number; clock: Clock; sleep: (ms: number) => Promise<void>; progress: (line: string) => void },
) {
  const left = rotation.since + graceMs - clock.nowMs();
  if (left > 0) {
    progress(`${rotation.phase}: waiting ${Math.ceil(left / 1000)} s until every server has read it (${what})`);
    await sleep(left);
  }
  const deadline = clock.nowMs() + 10 * graceMs;
  for (;;) {
    const now = clock.nowMs();
    const acks = await db.serverMeta.findMany({ where: { key: { startsWith: ACK_PREFIX } }, select: { value: true } });
    const lagging = acks
      .map((row) => JSON.parse(row.value) as RotationAck)
      .filter((ack) => ack.at >= now - graceMs && (ack.phase !== rotation.phase || ack.since !== rotation.since));
    if (lagging.length === 0) return;
    if (now >= deadline) {
      throw failedPrecondition(`${lagging.length} running server(s) have not applied the rotation's ${rotation.phase} phase: see their logs, then run master-key rotate again`);
    }
    progress(`${rotation.phase}: ${lagging.length} server(s) have not applied it yet`);
    await sleep(Math.max(100, Math.floor(graceMs / 4)));
  }
}
