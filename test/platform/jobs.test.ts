// Durable jobs on the real database (SQLite; PostgreSQL when TEST_DATABASE_URL
// is set): enqueue joins the unit of work, claims are exclusive, failures retry
// with backoff and then fail with a reason, and a job whose worker died is
// resumed by another once the lease runs out. Time moves only by a test clock.
import { AsyncLocalStorage } from 'node:async_hooks';
import pino from 'pino';
import { z } from 'zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDatabase, type Database } from '../../server/db/client.js';
import { applyMigrations } from '../../server/db/migrate.js';
import { testClock, type TestClock } from '../../server/lib/clock.js';
import { createIds } from '../../server/lib/ids.js';
import { createJobs, type JobDef, type Jobs } from '../../server/platform/jobs.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let testDb: TestDatabase;
let database: Database;
let clock: TestClock;
const log = pino({ level: 'silent' });

beforeAll(async () => {
  testDb = await createTestDatabase();
  await applyMigrations(testDb.url);
  database = await openDatabase(testDb.url);
});
afterAll(async () => {
  await database?.close();
  await testDb?.drop();
});
beforeEach(async () => {
  clock = testClock();
  await database.db.job.deleteMany({});
});

function worker(): Jobs {
  return createJobs({ db: database.db, uow: database.uow, ids: createIds(clock), clock, log, pollMs: 0 });
}

const Payload = z.object({ n: z.number() });

describe(`durable jobs (${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('runs an enqueued job once and stores its result', async () => {
    const jobs = worker();
    const ran: number[] = [];
    const def = jobs.define<{ n: number }>({ kind: 'double', payload: Payload, run: async ({ payload }) => (ran.push(payload.n), payload.n * 2) });
    const id = await jobs.enqueue(def, { n: 21 });
    expect((await jobs.get(id))?.state).toBe('pending');
    expect(await jobs.runDue()).toBe(1);
    expect(await jobs.runDue()).toBe(0);
    expect(ran).toEqual([21]);
    expect(await jobs.get(id)).toMatchObject({ state: 'completed', result: 42, attempts: 1, lastError: null });
  });

  it('leaves no job behind when the unit of work that enqueued it rolls back', async () => {
    const jobs = worker();
    const def = jobs.define({ kind: 'noop', payload: Payload, run: async () => null });
    await expect(
      database.uow.run(async () => {
        await jobs.enqueue(def, { n: 1 });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await database.db.job.count()).toBe(0);
  });

  it('does not run a job before its runAt', async () => {
    const jobs = worker();
    const def = jobs.define({ kind: 'later', payload: Payload, run: async () => 'ran' });
    const id = await jobs.enqueue(def, { n: 1 }, { runAt: clock.nowMs() + 60_000 });
    expect(await jobs.runDue()).toBe(0);
    clock.advance(60_000);
    expect(await jobs.runDue()).toBe(1);
    expect((await jobs.get(id))?.state).toBe('completed');
  });

  it('retries a failing job with backoff, then fails it with the last error as its reason', async () => {
    const jobs = worker();
    let calls = 0;
    const def = jobs.define({
      kind: 'flaky',
      payload: Payload,
      maxAttempts: 3,
      retryIn: (attempt) => attempt * 10_000,
      run: async () => {
        calls += 1;
        throw new Error(`boom ${calls}`);
      },
    });
    const id = await jobs.enqueue(def, { n: 1 });
    expect(await jobs.runDue()).toBe(1);
    expect(await jobs.get(id)).toMatchObject({ state: 'pending', attempts: 1, lastError: 'boom 1' });
    // Not due until the backoff has passed.
    clock.advance(9_999);
    expect(await jobs.runDue()).toBe(0);
    clock.advance(1);
    expect(await jobs.runDue()).toBe(1);
    clock.advance(20_000);
    expect(await jobs.runDue()).toBe(1);
    expect(await jobs.get(id)).toMatchObject({ state: 'failed', attempts: 3, lastError: 'boom 3' });
    clock.advance(1_000_000);
    expect(await jobs.runDue()).toBe(0);
    expect(calls).toBe(3);
  });

  it('succeeds on a retry after a failure', async () => {
    const jobs = worker();
    let calls = 0;
    const def = jobs.define({
      kind: 'second-time-lucky',
      payload: Payload,
      retryIn: () => 1000,
      run: async () => {
        calls += 1;
        if (calls === 1) throw new Error('transient');
        return 'ok';
      },
    });
    const id = await jobs.enqueue(def, { n: 1 });
    await jobs.runDue();
    clock.advance(1000);
    await jobs.runDue();
    expect(await jobs.get(id)).toMatchObject({ state: 'completed', result: 'ok', attempts: 2, lastError: null });
  });

  it('resumes a job whose worker died once its lease runs out, and the dead worker cannot overwrite the outcome', async () => {
    const dying = worker();
    const survivor = worker();
    let release!: () => void;
    const stuck = new Promise<void>((resolve) => (release = resolve));
    let claimed!: () => void;
    const claimedByDying = new Promise<void>((resolve) => (claimed = resolve));
    const runs: string[] = [];
    const spec = (who: string, wait: boolean): JobDef<{ n: number }> => ({
      kind: 'resumable',
      payload: Payload,
      leaseMs: 30_000,
      run: async () => {
        runs.push(who);
        if (wait) {
          claimed();
          await stuck;
          return 'late';
        }
        return who;
      },
    });
    const def = dying.define(spec('dying', true));
    survivor.define(spec('survivor', false));
    const id = await dying.enqueue(def, { n: 1 });

    const dyingRun = dying.runDue();
    await claimedByDying;
    // While the lease holds, nobody else takes the job.
    expect(await survivor.runDue()).toBe(0);
    clock.advance(30_001);
    expect(await survivor.runDue()).toBe(1);
    expect(await survivor.get(id)).toMatchObject({ state: 'completed', result: 'survivor', attempts: 2 });

    // The "dead" worker comes back: its outcome is refused because it no longer holds the lease.
    release();
    await dyingRun;
    expect(await survivor.get(id)).toMatchObject({ state: 'completed', result: 'survivor' });
    expect(runs).toEqual(['dying', 'survivor']);
  });

  it('never runs one job twice when several workers race for it', async () => {
    const workers = Array.from({ length: 5 }, () => worker());
    const runs = new Map<number, number>();
    const def = workers.map((w) =>
      w.define({
        kind: 'contended',
        payload: Payload,
        run: async ({ payload }) => {
          runs.set(payload.n, (runs.get(payload.n) ?? 0) + 1);
          return null;
        },
      }),
    )[0]!;
    for (let n = 0; n < 20; n++) await workers[0]!.enqueue(def, { n });
    const ran = await Promise.all(workers.map((w) => w.runDue()));
    expect(ran.reduce((a, b) => a + b, 0)).toBe(20);
    expect([...runs.values()].every((count) => count === 1)).toBe(true);
    expect(runs.size).toBe(20);
  });

  it('fails a job whose worker keeps dying instead of claiming it for ever', async () => {
    const dying = worker();
    const def = dying.define({ kind: 'deadly', payload: Payload, maxAttempts: 2, leaseMs: 10_000, run: () => new Promise<never>(() => undefined) });
    const id = await dying.enqueue(def, { n: 1 });
    // Each "crash": a worker claims the job and never reports back; the lease runs out.
    // A dead worker sends no heartbeat either: its lease renewal (a real-time
    // setInterval) must not fire, or on a loaded machine it would renew the
    // lease from the test clock after the advance below and keep the job.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      for (let crash = 0; crash < 2; crash++) {
        const w = worker();
        w.define({ ...def });
        void w.runDue();
        // A wait bound, not a speed claim: the claim can take over a second on a loaded machine.
        await expect.poll(async () => (await w.get(id))?.attempts, { timeout: 15_000 }).toBe(crash + 1);
        clock.advance(10_001);
      }
    } finally {
      vi.useRealTimers();
    }
    const last = worker();
    last.define({ ...def, run: async () => 'must not run' });
    expect(await last.runDue()).toBe(1);
    expect(await last.get(id)).toMatchObject({ state: 'failed', lastError: expect.stringMatching(/stopped before it finished/) });
    clock.advance(1_000_000);
    expect(await last.runDue()).toBe(0);
  });

  it('keeps idempotency keys apart per application', async () => {
    const jobs = worker();
    const def = jobs.define({ kind: 'keyed-per-app', payload: Payload, run: async () => null });
    const a = await jobs.enqueue(def, { n: 1 }, { apiKeyId: 'app-a', key: 'same' });
    const b = await jobs.enqueue(def, { n: 2 }, { apiKeyId: 'app-b', key: 'same' });
    expect(b).not.toBe(a);
    expect(await jobs.enqueue(def, { n: 3 }, { apiKeyId: 'app-a', key: 'same' })).toBe(a);
  });

  it('returns the first job for an idempotency key enqueued twice', async () => {
    const jobs = worker();
    const def = jobs.define({ kind: 'keyed', payload: Payload, run: async () => null });
    const first = await jobs.enqueue(def, { n: 1 }, { key: 'same' });
    const second = await jobs.enqueue(def, { n: 2 }, { key: 'same' });
    expect(second).toBe(first);
    expect(await database.db.job.count()).toBe(1);
  });

  it('refuses a payload its schema does not accept', async () => {
    const jobs = worker();
    const def = jobs.define({ kind: 'typed', payload: Payload, run: async () => null });
    await expect(jobs.enqueue(def, { n: 'x' } as unknown as { n: number })).rejects.toThrow();
  });

  it('runs a job woken by the commit of a request in the async context of the worker, not of that request', async () => {
    const jobs = createJobs({ db: database.db, uow: database.uow, ids: createIds(clock), clock, log, pollMs: 3_600_000 });
    const request = new AsyncLocalStorage<string>();
    let ran!: (store: string | undefined) => void;
    const seen = new Promise<string | undefined>((resolve) => (ran = resolve));
    const def = jobs.define({ kind: 'context', payload: Payload, run: async () => ran(request.getStore()) });
    jobs.start();
    try {
      // The first poll runs and finds nothing; the next is an hour away, so only the commit below wakes the worker.
      await new Promise((resolve) => setTimeout(resolve, 0));
      await jobs.runDue();
      await request.run('request-1', () => database.uow.run(() => jobs.enqueue(def, { n: 1 })));
      expect(await seen).toBeUndefined();
    } finally {
      await jobs.stop();
    }
  });
  it('runs a kind with its own concurrency beside the other kinds, never holding them up', async () => {
    const jobs = worker();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started = 0;
    let bothStarted!: () => void;
    const both = new Promise<void>((resolve) => (bothStarted = resolve));
    const long = jobs.define({
      kind: 'long',
      payload: Payload,
      concurrency: 2,
      run: async () => {
        if (++started === 2) bothStarted();
        await held;
        return 'long';
      },
    });
    const quick = jobs.define({ kind: 'quick', payload: Payload, run: async ({ payload }) => payload.n });
    const a = await jobs.enqueue(long, { n: 1 });
    const b = await jobs.enqueue(long, { n: 2 });
    const running = jobs.runDue();
    // Two long jobs at once, and a quick job enqueued meanwhile runs while they are held.
    await both;
    const q = await jobs.enqueue(quick, { n: 7 });
    const second = jobs.runDue();
    await expect.poll(async () => (await jobs.get(q))?.state).toBe('completed');
    expect((await jobs.get(a))?.state).toBe('running');
    release();
    await running;
    await second;
    expect((await jobs.get(a))?.state).toBe('completed');
    expect((await jobs.get(b))?.state).toBe('completed');
  });

  it('calls the failure hook once when a job fails for good', async () => {
    const jobs = worker();
    const failed: Array<[number, string]> = [];
    const def = jobs.define({
      kind: 'hooked',
      payload: Payload,
      maxAttempts: 2,
      retryIn: () => 0,
      run: async () => {
        throw new Error('nope');
      },
      failed: async (payload, reason) => void failed.push([payload.n, reason]),
    });
    const id = await jobs.enqueue(def, { n: 5 });
    await jobs.runDue();
    await jobs.runDue();
    expect((await jobs.get(id))?.state).toBe('failed');
    expect(failed).toEqual([[5, 'nope']]);
  });
});
