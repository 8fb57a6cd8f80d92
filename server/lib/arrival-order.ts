import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Which piece of work came first, for what serves work one at a time (the
 * SQLite gate, db/sqlite-gate.ts). A request takes a ticket when it arrives
 * and every statement it runs carries it; work outside a request (jobs,
 * deliveries, the CLI) takes a ticket per statement, so it is ordered by
 * when it asked. One counter for both, so neither can starve the other.
 */
const current = new AsyncLocalStorage<number>();
let last = 0;

/** A ticket later than every ticket given so far. */
export const nextTicket = (): number => ++last;

/** Runs `work` (and everything it starts) under one new ticket. */
export function inArrivalOrder<T>(work: () => T): T {
  return current.run(nextTicket(), work);
}

/** The ticket of the request being served, or a new one outside a request. */
export function arrivalTicket(): number {
  return current.getStore() ?? nextTicket();
}
