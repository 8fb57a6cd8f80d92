/**
 * The SQLite gate serves statements in the order their requests arrived
 * (server/db/sqlite-gate.ts): a request's next statement goes ahead of the
 * first statement of a request that came later, so a request of several
 * statements does not wait a whole turn of the line for each.
 */
import { describe, expect, it } from 'vitest';
import type { SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery } from '@prisma/driver-adapter-utils';
import { gatedSqlite } from '../../server/db/sqlite-gate.js';
import { inArrivalOrder } from '../../server/lib/arrival-order.js';

/** An adapter whose statements finish when the test says, recording the order they started in. */
function heldAdapter() {
  const started: string[] = [];
  const finish = new Map<string, () => void>();
  const inner = {
    provider: 'sqlite',
    adapterName: 'held',
    client: { prepare: () => ({}) },
    queryRaw: (query: SqlQuery) => {
      started.push(query.sql);
      return new Promise((resolve) => finish.set(query.sql, () => resolve({ columnNames: [], columnTypes: [], rows: [] })));
    },
    dispose: async () => {},
  } as unknown as SqlDriverAdapter;
  const factory = { provider: 'sqlite', adapterName: 'held', connect: async () => inner } as unknown as SqlDriverAdapterFactory;
  return { factory, started, finish: (sql: string) => finish.get(sql)!() };
}

const query = (sql: string): SqlQuery => ({ sql, args: [], argTypes: [] });
const turns = () => new Promise((resolve) => setImmediate(resolve));

describe('the SQLite gate', () => {
  it("serves a request's next statement before a later request's first", async () => {
    const held = heldAdapter();
    const gated = gatedSqlite(held.factory, { busyWaitMs: 0 });
    const adapter = await gated.connect();

    let second!: Promise<unknown>;
    const first = inArrivalOrder(() => {
      const one = adapter.queryRaw(query('A1'));
      // A's second statement is asked for once its first has run, after B, C and D came in (below).
      void one.then(() => (second = adapter.queryRaw(query('A2'))));
      return one;
    });
    const others = ['B1', 'C1', 'D1'].map((sql) => inArrivalOrder(() => adapter.queryRaw(query(sql))));
    await turns();
    expect(held.started).toEqual(['A1']);
    expect(gated.gate()).toMatchObject({ held: true, waiting: 3 });

    // When A1 ends the gate goes to the next in line (B1) at once; A2 is asked for a little later,
    // and then goes ahead of C1 and D1, which came after A. In the statements' order it would be last.
    held.finish('A1');
    await first;
    await turns();
    expect(held.started).toEqual(['A1', 'B1']);
    held.finish('B1');
    await turns();
    expect(held.started).toEqual(['A1', 'B1', 'A2']);
    held.finish('A2');
    await second;
    for (const sql of ['C1', 'D1']) {
      await turns();
      held.finish(sql);
    }
    await Promise.all(others);
    expect(held.started).toEqual(['A1', 'B1', 'A2', 'C1', 'D1']);
    expect(gated.gate()).toMatchObject({ held: false, waiting: 0 });
  });

  it('serves work outside requests in the order it asked', async () => {
    const held = heldAdapter();
    const adapter = await gatedSqlite(held.factory, { busyWaitMs: 0 }).connect();
    const all = ['J1', 'J2', 'J3'].map((sql) => adapter.queryRaw(query(sql)));
    for (const sql of ['J1', 'J2', 'J3']) {
      await turns();
      held.finish(sql);
    }
    await Promise.all(all);
    expect(held.started).toEqual(['J1', 'J2', 'J3']);
  });
});
