import type { Database } from 'better-sqlite3';
import { cacheStatements } from './sqlite-statements.js';
import type { IsolationLevel, SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery, Transaction } from '@prisma/driver-adapter-utils';

/**
 * The SQLite adapter holds one connection. Its interactive transactions take a
 * mutex that only other transactions respect: a query from another request
 * runs on the same connection inside the open transaction, so it is rolled
 * back with it (an acknowledged write lost) and it sees uncommitted rows
 * (see shared/notes/sqlite-transactions.md). This gate puts every statement
 * and every whole transaction in one FIFO line: while a transaction is open,
 * the rest wait for it. better-sqlite3 runs each statement synchronously, so
 * holding the gate per statement costs no concurrency that SQLite had.
 */
export function gatedSqlite(factory: SqlDriverAdapterFactory): SqlDriverAdapterFactory & { gate(): GateState } {
  let line: FifoLock | undefined;
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    async connect() {
      line = new FifoLock();
      const adapter = await factory.connect();
      // The adapter's better-sqlite3 connection (a public field of its class).
      const client = (adapter as unknown as { client?: Database }).client;
      if (client === undefined || typeof client.prepare !== 'function') throw new Error('the SQLite adapter no longer exposes its connection: see db/sqlite-statements.ts');
      cacheStatements(client);
      return gate(adapter, line);
    },
    gate: () => ({ connected: line !== undefined, held: line?.held ?? false, waiting: line?.waiting ?? 0 }),
  };
}

/** The gate of the connection, for the metrics: whether a statement or transaction holds it, and how many wait. */
export interface GateState {
  connected: boolean;
  held: boolean;
  waiting: number;
}

function gate(inner: SqlDriverAdapter, line: FifoLock): SqlDriverAdapter {
  const exclusive = async <T>(work: () => Promise<T>): Promise<T> => {
    const release = await line.acquire();
    try {
      return await work();
    } finally {
      release();
    }
  };
  return {
    provider: inner.provider,
    adapterName: inner.adapterName,
    queryRaw: (query: SqlQuery) => exclusive(() => inner.queryRaw(query)),
    executeRaw: (query: SqlQuery) => exclusive(() => inner.executeRaw(query)),
    executeScript: (script: string) => exclusive(() => inner.executeScript(script)),
    getConnectionInfo: inner.getConnectionInfo?.bind(inner),
    dispose: () => inner.dispose(),
    async startTransaction(isolationLevel?: IsolationLevel): Promise<Transaction> {
      const release = await line.acquire();
      let tx: Transaction;
      try {
        tx = await inner.startTransaction(isolationLevel);
      } catch (error) {
        release();
        throw error;
      }
      // The gate stays held until the transaction ends either way.
      const end = (finish: () => Promise<void>) => async () => {
        try {
          await finish();
        } finally {
          release();
        }
      };
      return {
        options: tx.options,
        provider: tx.provider,
        adapterName: tx.adapterName,
        queryRaw: (query) => tx.queryRaw(query),
        executeRaw: (query) => tx.executeRaw(query),
        createSavepoint: tx.createSavepoint?.bind(tx),
        rollbackToSavepoint: tx.rollbackToSavepoint?.bind(tx),
        releaseSavepoint: tx.releaseSavepoint?.bind(tx),
        commit: end(() => tx.commit()),
        rollback: end(() => tx.rollback()),
      };
    },
  };
}

/** A mutual-exclusion lock granted in arrival order. */
class FifoLock {
  #held = false;
  readonly #waiting: Array<() => void> = [];

  get held(): boolean {
    return this.#held;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  acquire(): Promise<() => void> {
    if (!this.#held) {
      this.#held = true;
      return Promise.resolve(this.#releaser());
    }
    return new Promise((resolve) => this.#waiting.push(() => resolve(this.#releaser())));
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next) next();
      else this.#held = false;
    };
  }
}
