import { AsyncLocalStorage } from 'node:async_hooks';
import type { Transaction } from '@prisma/driver-adapter-utils';
import type { Db } from './client.js';
import type { TransactionClient } from './generated/sqlite/internal/prismaNamespace.js';

/**
 * One transaction around a change that writes more than one row: either all
 * of it is committed or none. Nested calls join the outer transaction, so a
 * service can call another that opens its own unit of work.
 *
 * The transaction is ambient (AsyncLocalStorage): the database client handed
 * to repos resolves to the open transaction of the current unit of work, so
 * repos are written once against one client and never need a transaction
 * parameter, and no query inside a unit of work can slip past it onto another
 * connection (on SQLite that would wait on the gate for ever; see
 * sqlite-gate.ts).
 *
 * Keep the work short and free of outbound HTTP: on SQLite every other
 * request waits for it.
 */
export interface UnitOfWork {
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Whether the caller runs inside a unit of work (for repos that must not write outside one). */
  active(): boolean;
  /**
   * Runs `effect` once the current unit of work has committed (never when it
   * rolls back); outside a unit of work, at once. For what must not happen
   * before the data is visible: waking the job worker, pushing to sockets.
   * Effects run in order; a failing one is reported to `onEffectError` and
   * does not stop the others.
   */
  afterCommit(effect: () => void | Promise<void>): void;
  /** An object that stands for the current unit of work while it runs (undefined outside one): what it has done can be kept against it. */
  scope(): object | undefined;
}

interface Ambient {
  root: Db;
  tx: TransactionClient;
  /** The driver adapter's own transaction under `tx`: direct statements (db/direct-reads.ts) go to it. */
  adapterTx?: Transaction;
  effects: (() => void | Promise<void>)[];
}

const ambient = new AsyncLocalStorage<Ambient>();
/** The unit of work whose transaction is being opened: the adapter's transaction it starts belongs to it. */
const opening = new AsyncLocalStorage<Ambient>();

// Waiting for the SQLite gate counts against maxWait, so it is generous;
// the timeout bounds a transaction that hangs.
const TRANSACTION_OPTIONS = { maxWait: 15_000, timeout: 20_000 };

/**
 * The client repos use (bound to the ambient transaction when there is one),
 * its unit of work, and the two ends of the adapter's transactions: `opened`
 * is told of each one the driver starts (Driver.onTransaction), and
 * `adapterTransaction` is the current unit of work's, for statements that
 * skip the ORM's per-query work yet must run in the same transaction.
 */
export function transactional(
  root: Db,
  onEffectError: (error: unknown) => void = () => undefined,
): { db: Db; uow: UnitOfWork; opened(tx: Transaction): void; adapterTransaction(): Transaction | undefined } {
  const current = (): Db => {
    const store = ambient.getStore();
    return store !== undefined && store.root === root ? (store.tx as Db) : root;
  };
  const db = new Proxy(root, {
    get(_target, property) {
      const client = current();
      const value = Reflect.get(client, property) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(client) : value;
    },
  });
  const runEffects = async (effects: Ambient['effects']) => {
    for (const effect of effects) {
      try {
        await effect();
      } catch (error) {
        onEffectError(error);
      }
    }
  };
  const uow: UnitOfWork = {
    async run(work) {
      if (uow.active()) return work();
      const store: Ambient = { root, tx: undefined as unknown as TransactionClient, effects: [] };
      const result = await opening.run(store, () =>
        root.$transaction((tx) => {
          store.tx = tx;
          return ambient.run(store, work);
        }, TRANSACTION_OPTIONS),
      );
      // Outside the ambient store: an effect that opens a unit of work gets its own.
      await ambient.exit(() => opening.exit(() => runEffects(store.effects)));
      return result;
    },
    active: () => ambient.getStore()?.root === root,
    scope() {
      const store = ambient.getStore();
      return store?.root === root ? store : undefined;
    },
    afterCommit(effect) {
      const store = ambient.getStore();
      if (store?.root === root) store.effects.push(effect);
      else void runEffects([effect]);
    },
  };
  return {
    db,
    uow,
    opened(tx) {
      const store = opening.getStore();
      // The client's first transaction in this unit of work is its own; a nested run joins it.
      if (store?.root === root && store.adapterTx === undefined) store.adapterTx = tx;
    },
    adapterTransaction() {
      const store = ambient.getStore();
      return store?.root === root ? store.adapterTx : undefined;
    },
  };
}
