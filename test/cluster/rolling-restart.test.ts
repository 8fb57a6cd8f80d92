// A rolling restart under load: requests spread over two processes, one of them
// gets SIGTERM, stops, starts again on its port and takes requests again. A
// client that retries a refused connection (never accepted, so safe to send
// elsewhere) on the other process loses nothing: every request completes
// successfully or was refused before it was accepted, the requests in flight on
// the stopping process complete, and kept-alive connections are closed by the
// server in a way no client sends onto.
import { Agent, request } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { killServer, processFixture, spawnServer, type ProcessFixture, type ServerProcess } from '../helpers/server-process.js';
import { clusterEnv, clusterReady, explainSkip, withPg } from './cluster.js';

explainSkip('test/cluster/rolling-restart.test.ts');

let fixture: ProcessFixture | undefined;
const processes: ServerProcess[] = [];
afterAll(async () => {
  for (const p of processes) await killServer(p);
  await fixture?.close();
});

interface Outcome {
  /** Which process answered (0 or 1), and in which phase of the restart. */
  target: number;
  phase: string;
  ok: boolean;
  detail?: string;
}

describe.skipIf(!clusterReady)('a rolling restart of one of two processes', () => {
  it('loses no request: each completes or is refused before being accepted, and the restarted process rejoins', async () => {
    fixture = await processFixture(clusterEnv({ RATE_LIMIT_PER_MINUTE: '1000000', LOG_LEVEL: 'info' }));
    const env = fixture.env;
    const started = await Promise.all([spawnServer(env), spawnServer(env)]);
    processes.push(...started);
    const ports = started.map((p) => Number(new URL(p.url).port));
    const live: (ServerProcess | undefined)[] = [...started];
    const { apiKey, authToken } = fixture.workspace;
    // Kept-alive connections, as a load balancer or an SDK keeps them.
    const WORKERS = 6;
    // A socket per worker (and one for the test's own request), so a request in flight is on the wire, not queued in the agent.
    const agents = ports.map(() => new Agent({ keepAlive: true, maxSockets: WORKERS + 1 }));

    let phase = 'both up';
    let stop = false;
    let refused = 0;
    let sequence = 0;
    const inFlight = [0, 0];
    const outcomes: Outcome[] = [];

    /** One POST; resolves with the status, or rejects with the socket error. */
    const send = (target: number, organizationId: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const body = JSON.stringify({ data: { organizationId } });
        const req = request(
          {
            host: '127.0.0.1',
            port: ports[target],
            path: '/v2/organizations/add',
            method: 'POST',
            agent: agents[target],
            headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-service-api-key': apiKey, 'x-service-auth-token': authToken },
          },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(body);
      });

    /** One request as the client makes it: sent to `first`, and to the other process when a connection is refused. */
    const attempt = async (first: number, organizationId: string) => {
      let target = first;
      for (let tries = 0; ; tries++) {
        const at = phase;
        const to = target;
        inFlight[to]! += 1;
        try {
          const { status, body } = await send(target, organizationId).finally(() => (inFlight[to]! -= 1));
          outcomes.push({ target, phase: at, ok: status === 200, ...(status === 200 ? {} : { detail: `HTTP ${status} ${body.slice(0, 200)}` }) });
          return;
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          // Refused: the connection was never accepted, so nothing of the request ran: send it to the other process.
          if (code === 'ECONNREFUSED' && tries < 10) {
            refused += 1;
            target = 1 - target;
            continue;
          }
          outcomes.push({ target, phase: at, ok: false, detail: `${code ?? ''} ${(error as Error).message}` });
          return;
        }
      }
    };
    const worker = async (first: number) => {
      for (let n = first; !stop; n++) await attempt(n % 2, `org-${++sequence}`);
    };
    const load = Promise.all(Array.from({ length: WORKERS }, (_, i) => worker(i)));
    const answered = (target: number, inPhase: string) => outcomes.filter((o) => o.target === target && o.phase === inPhase && o.ok).length;

    await eventually(() => answered(0, 'both up') >= 100 && answered(1, 'both up') >= 100, 'load on both processes', 60_000);

    // Requests in flight on process 0 when it is told to stop: hold them in the database.
    let inFlightAtStop = 0;
    let pinned: Promise<void> | undefined;
    await withPg(env.DATABASE_URL!, async (locker) => {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE "Organization" IN SHARE MODE');
      // Every request adds an organization, so each one in flight ends up waiting for a lock.
      const waitingInserts = () =>
        withPg(env.DATABASE_URL!, async (observer) =>
          Number((await observer.query(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)).rows[0].n),
        );
      let seen = 0;
      // One more request for process 0, in case every worker happens to wait on process 1.
      pinned = attempt(0, 'org-pinned');
      await eventually(async () => (seen = await waitingInserts()) >= inFlight[0]! + inFlight[1]! && inFlight[0]! >= 1, 'every request in flight waiting on the table', 30_000).catch((error: Error) => {
        throw new Error(`${error.message}: ${seen} statements waiting, in flight ${JSON.stringify(inFlight)}`);
      });
      inFlightAtStop = inFlight[0]!;
      phase = 'stopping';
      live[0]!.child.kill('SIGTERM');
      // It stopped listening (new connections are refused) while its requests still wait.
      await eventually(() => /shutting down/.test(live[0]!.output()), 'process 0 shutting down', 30_000);
      await locker.query('ROLLBACK');
    });
    await pinned;
    const exit = await live[0]!.exited;
    live[0] = undefined;
    const notable = started[0]!.output().split('\n').filter((line) => !line.includes('"request completed"')).slice(-20).join('\n');
    expect(exit, notable).toEqual({ code: 0, signal: null });

    phase = 'one up';
    const before = outcomes.length;
    await eventually(() => outcomes.length >= before + 100, 'load on the remaining process', 60_000);

    // The same port again, as a deployment would restart it.
    const again = await spawnServer({ ...env, PORT: String(ports[0]) });
    processes.push(again);
    live[0] = again;
    phase = 'rejoined';
    await eventually(() => answered(0, 'rejoined') >= 100, 'the restarted process taking requests', 60_000);
    stop = true;
    await load;
    for (const agent of agents) agent.destroy();

    const lost = outcomes.filter((o) => !o.ok);
    const byPhase = Object.fromEntries(['both up', 'stopping', 'one up', 'rejoined'].map((p) => [p, [0, 1].map((t) => answered(t, p))]));
    console.log(
      `rolling restart: ${outcomes.length} requests, ${outcomes.length - lost.length} succeeded, ${lost.length} lost, ${refused} refused connections retried on the other process; ` +
        `${inFlightAtStop} in flight on process 0 when SIGTERM came; successes per phase [process 0, process 1]: ${JSON.stringify(byPhase)}`,
    );
    expect(lost.slice(0, 10), `${lost.length} requests lost`).toEqual([]);
    // Every success is in the database, once.
    const stored = await fixture.database.db.organization.count({ where: { id: { startsWith: 'org-' } } });
    expect(stored).toBe(outcomes.length);
  }, 180_000);
});
