// The in-process worker of a running server: a job enqueued by a committed
// unit of work runs without anyone calling runDue (the commit wakes the
// worker), and stopping the server waits for the running job.
import { z } from 'zod';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  // A long poll interval: only the wake-up after the commit can make the job run in time.
  server = await startTestServer({ JOB_POLL_INTERVAL_MS: '3600000' });
});
afterAll(() => server?.close());

it('runs a job right after the unit of work that enqueued it commits', async () => {
  const { jobs } = server.running.services;
  let ran!: (value: number) => void;
  const done = new Promise<number>((resolve) => (ran = resolve));
  const def = jobs.define({ kind: 'test.worker-wakeup', payload: z.object({ n: z.number() }), run: async ({ payload }) => ran(payload.n) });
  const id = await server.running.database.uow.run(() => jobs.enqueue(def, { n: 7 }));
  expect(await done).toBe(7);
  await expect.poll(async () => (await jobs.get(id))?.state, { timeout: 15_000 }).toBe('completed');
});
