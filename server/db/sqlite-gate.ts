import type { Database } from 'better-sqlite3';
import { arrivalTicket } from '../lib/arrival-order.js';
import { cacheStatements } from './sqlite-statements.js';
import type { IsolationLevel, SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery, Transaction } from '@prisma/driver-adapter-utils';

/**
 * The SQLite adapter holds one connection. Its interactive transactions take a
 * mutex that only other transactions respect: a query from another request
 * runs on the same connection inside the open transaction, so it is rolled
 * back with it (an acknowledged write lost) and it sees uncommitted rows
 * (see shared/notes/sqlite-transactions.md). This gate puts every statement
 * and every whole transaction in one line: while a transaction is open,
 * the rest wait for it. better-sqlite3 runs each statement synchronously, so
 * holding the gate per statement costs no concurrency that SQLite had.
 *
 * The line is in order of the requests' arrival, not of the statements': a
 * request's second statement goes ahead of a later request's first
 * (lib/arrival-order.ts). In arrival order of statements, each statement of
 * a request waited behind every request that had come in meanwhile, so under
 * load a request of six statements waited six turns of the whole line while a
 * newcomer of one statement waited one: at 64 connections the p99 of Get
 * Permissions was 13 times its mean. In the requests' order they finish in
 * the order they came, and the tail is the line's length, once.
 *
 * Another connection holding the file's write lock (another process: the
 * CLI, a backup, a script) is waited out here, not in SQLite: its busy
 * timeout spins inside the synchronous call and would freeze the whole
 * process (probes included) for every statement in line, one after the
 * other. So the connection's busy timeout is 0, and a statement refused with
 * SQLITE_BUSY gives the gate up, waits without blocking, and tries again
 * until `busyWaitMs` has passed; then its error stands (UNAVAILABLE). A
 * transaction takes the write lock when it begins (BEGIN IMMEDIATE), where
 * it can still be retried the same way; once begun, its writes cannot be
 * refused by another writer.
 */
export function gatedSqlite(factory: SqlDriverAdapterFactory, options: { busyWaitMs: number }): SqlDriverAdapterFactory & { gate(): GateState } {
  let line: OrderedLock | undefined;
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    async connect() {
      line = new OrderedLock();
      const adapter = await factory.connect();
      // The adapter's better-sqlite3 connection (a public field of its class).
      const client = (adapter as unknown as { client?: Database }).client;
      if (client === undefined || typeof client.prepare !== 'function') throw new Error('the SQLite adapter no longer exposes its connection: see db/sqlite-statements.ts');
      cacheStatements(client);
      return gate(adapter, line, options.busyWaitMs);
    },
    gate: () => ({ connected: line !== undefined, held: line?.held ?? false, waiting: line?.waiting ?? 0 }),
  };
}

/** The adapter's SQLITE_BUSY (its `SocketTimeout`): another connection holds the lock. */
function isBusy(error: unknown): boolean {
  const cause = (error as { name?: unknown; cause?: { kind?: unknown } } | null)?.cause;
  return (error as { name?: unknown } | null)?.name === 'DriverAdapterError' && cause?.kind === 'SocketTimeout';
}

/** 5, 10, 20, 40 ms, then every 50 ms. */
const backoff = (attempt: number) => Math.min(5 * 2 ** attempt, 50);

/** The gate of the connection, for the metrics: whether a statement or transaction holds it, and how many wait. */
export interface GateState {
  connected: boolean;
  held: boolean;
  waiting: number;
}

function gate(inner: SqlDriverAdapter, line: OrderedLock, busyWaitMs: number): SqlDriverAdapter {
  const exclusive = async <T>(work: () => Promise<T>): Promise<T> => {
    const deadline = Date.now() + busyWaitMs;
    // Taken once: a statement that waited out a lock on the file keeps its place.
    const ticket = arrivalTicket();
    for (let attempt = 0; ; attempt++) {
      const release = await line.acquire(ticket);
      try {
        return await work();
      } catch (error) {
        // A statement refused with SQLITE_BUSY did nothing: trying it again is safe.
        if (!isBusy(error) || Date.now() >= deadline) throw error;
      } finally {
        release();
      }
      await line.waitOutside(backoff(attempt));
    }
  };
  const noArgs = (sql: string): SqlQuery => ({ sql, args: [], argTypes: [] });
  return {
    provider: inner.provider,
    adapterName: inner.adapterName,
    queryRaw: (query: SqlQuery) => exclusive(() => inner.queryRaw(query)),
    executeRaw: (query: SqlQuery) => exclusive(() => inner.executeRaw(query)),
    executeScript: (script: string) => exclusive(() => inner.executeScript(script)),
    getConnectionInfo: inner.getConnectionInfo?.bind(inner),
    dispose: () => inner.dispose(),
    async startTransaction(isolationLevel?: IsolationLevel): Promise<Transaction> {
      const deadline = Date.now() + busyWaitMs;
      const ticket = arrivalTicket();
      let tx!: Transaction;
      let release!: () => void;
      for (let attempt = 0; ; attempt++) {
        release = await line.acquire(ticket);
        try {
          tx = await inner.startTransaction(isolationLevel);
        } catch (error) {
          release();
          throw error;
        }
        try {
          // The adapter's BEGIN is deferred: swap it for one that takes the write lock now, while a refusal can be waited out.
          await tx.executeRaw(noArgs('ROLLBACK'));
          await tx.executeRaw(noArgs('BEGIN IMMEDIATE'));
          break;
        } catch (error) {
          // No transaction is open (BEGIN IMMEDIATE failed): this only frees the adapter's own mutex.
          await tx.rollback();
          release();
          if (!isBusy(error) || Date.now() >= deadline) throw error;
        }
        await line.waitOutside(backoff(attempt));
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

/** A mutual-exclusion lock granted in ticket order (the requests' arrival order). */
class OrderedLock {
  #held = false;
  readonly #waiting = new TicketHeap();

  get held(): boolean {
    return this.#held;
  }

  #outside = 0;

  /** Callers in line, and those out of it waiting for another connection's lock on the file. */
  get waiting(): number {
    return this.#waiting.length + this.#outside;
  }

  /** Waits `ms` out of line (the caller gave the lock up, and will acquire it again). */
  async waitOutside(ms: number): Promise<void> {
    this.#outside++;
    try {
      await new Promise<void>((resolve) => setTimeout(resolve, ms));
    } finally {
      this.#outside--;
    }
  }

  /** Granted at once when free; else when every holder of an earlier ticket has been served. */
  acquire(ticket: number): Promise<() => void> {
    if (!this.#held) {
      this.#held = true;
      return Promise.resolve(this.#releaser());
    }
    return new Promise((resolve) => this.#waiting.push(ticket, () => resolve(this.#releaser())));
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

/** Waiters by ticket, then by when they joined (a request's statements in parallel keep their order). */
class TicketHeap {
  readonly #items: Array<{ ticket: number; seq: number; wake: () => void }> = [];
  #seq = 0;

  get length(): number {
    return this.#items.length;
  }

  push(ticket: number, wake: () => void): void {
    const items = this.#items;
    items.push({ ticket, seq: this.#seq++, wake });
    for (let i = items.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!this.#before(i, parent)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  shift(): (() => void) | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top?.wake;
    items[0] = last;
    for (let i = 0; ; ) {
      const left = 2 * i + 1;
      const right = left + 1;
      let first = i;
      if (left < items.length && this.#before(left, first)) first = left;
      if (right < items.length && this.#before(right, first)) first = right;
      if (first === i) break;
      [items[i], items[first]] = [items[first]!, items[i]!];
      i = first;
    }
    return top.wake;
  }

  #before(a: number, b: number): boolean {
    const x = this.#items[a]!;
    const y = this.#items[b]!;
    return x.ticket < y.ticket || (x.ticket === y.ticket && x.seq < y.seq);
  }
}
