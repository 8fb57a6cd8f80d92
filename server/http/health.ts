import { Router, type Request, type Response } from 'express';
import type { Db } from '../db/client.js';
import { RECORDED_MIGRATIONS_SQL } from '../db/migrate.js';
import { shippedMigrations } from '../db/migrations-folder.js';
import type { Provider } from '../db/adapter.js';
import { untracked } from './logging.js';

/** A probe that cannot answer within this is as good as down to an orchestrator. */
const READY_TIMEOUT_MS = 2000;

/**
 * `GET /healthz`: the process serves HTTP (liveness). `GET /readyz`: the
 * database answers and every migration this build ships is applied
 * (readiness), and the process has not missed a master-key rotation
 * (lib/master-key.ts), else 503. Unauthenticated, outside the POST-only rule, and
 * cheap: liveness touches nothing, readiness is one indexed read.
 *
 * Redis (REDIS_URL) is reported but does not make the process unready: every
 * process loses it at once, so a 503 would take all of them out of rotation,
 * while each can serve alone (rate limits count in memory, real-time
 * messages stay within the process). `degraded` tells the operator.
 */
export function healthRoutes(options: { db: Db; provider: Provider; redisCheck?: () => Promise<boolean>; unready?: () => string | undefined }): Router {
  const expected = shippedMigrations(options.provider);
  const router = Router();
  // Probes are not in the access log nor in the request metrics.
  router.get('/healthz', (_req, res) => {
    untracked(res);
    noStore(res).json({ status: 'ok' });
  });
  router.get('/readyz', (req: Request, res: Response) => {
    untracked(res);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer from the database within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
    });
    // A PING under the Redis client's command timeout: a Redis that still holds the connection but no
    // longer answers (frozen, a partition dropping packets) is as unavailable as one that closed it.
    const redisAnswer = options.redisCheck?.().catch(() => false);
    let redisState: { redis?: 'ok' | 'unavailable' } = {};
    const redis = () => redisState;
    Promise.race([appliedMigrations(options.db), timeout])
      .then(
        async (applied) => {
          if (redisAnswer !== undefined) redisState = { redis: (await redisAnswer) ? 'ok' : 'unavailable' };
          return applied;
        },
        async (error: unknown) => {
          if (redisAnswer !== undefined) redisState = { redis: (await redisAnswer) ? 'ok' : 'unavailable' };
          throw error;
        },
      )
      .then(
        (applied) => {
          const missing = expected.filter((name) => !applied.has(name));
          const checks = { database: 'ok' as const, ...redis() };
          const unready = options.unready?.();
          if (unready !== undefined) return void noStore(res).status(503).json({ status: 'unavailable', reason: unready, checks });
          if (missing.length === 0) return void noStore(res).json({ status: checks.redis === 'unavailable' ? 'degraded' : 'ok', checks });
          noStore(res).status(503).json({ status: 'unavailable', reason: `${missing.length} migration(s) not applied`, checks });
        },
        (error: unknown) => {
          // The cause (host, driver code) is for the operator's log, not for whoever can reach the probe.
          req.log?.warn({ err: error }, 'readiness check failed');
          noStore(res)
            .status(503)
            .json({ status: 'unavailable', reason: 'the database check failed', checks: { database: 'unavailable', ...redis() } });
        },
      )
      .finally(() => clearTimeout(timer));
  });
  return router;
}

async function appliedMigrations(db: Db): Promise<Set<string>> {
  const rows = await db.$queryRawUnsafe<{ name: string }[]>(RECORDED_MIGRATIONS_SQL);
  return new Set(rows.map((row) => row.name));
}

function noStore(res: Response): Response {
  return res.setHeader('cache-control', 'no-store');
}
