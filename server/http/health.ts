import { Router, type Request, type Response } from 'express';
import type { Db } from '../db/client.js';
import { migrationsDirFor, readMigrationsList } from '../db/migration-engine.js';
import type { Provider } from '../db/adapter.js';
import { untracked } from './logging.js';

/** A probe that cannot answer within this is as good as down to an orchestrator. */
const READY_TIMEOUT_MS = 2000;

/**
 * `GET /healthz`: the process serves HTTP (liveness). `GET /readyz`: the
 * database answers and every migration this build ships is applied
 * (readiness), else 503. Unauthenticated, outside the POST-only rule, and
 * cheap: liveness touches nothing, readiness is one indexed read.
 */
export function healthRoutes(options: { db: Db; provider: Provider }): Router {
  const expected = readMigrationsList(migrationsDirFor(options.provider)).migrationDirectories.map((d) => d.path);
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
    Promise.race([appliedMigrations(options.db), timeout])
      .then(
        (applied) => {
          const missing = expected.filter((name) => !applied.has(name));
          if (missing.length === 0) return void noStore(res).json({ status: 'ok' });
          noStore(res).status(503).json({ status: 'unavailable', reason: `${missing.length} migration(s) not applied` });
        },
        (error: unknown) => {
          // The cause (host, driver code) is for the operator's log, not for whoever can reach the probe.
          req.log?.warn({ err: error }, 'readiness check failed');
          noStore(res).status(503).json({ status: 'unavailable', reason: 'the database check failed' });
        },
      )
      .finally(() => clearTimeout(timer));
  });
  return router;
}

async function appliedMigrations(db: Db): Promise<Set<string>> {
  const rows = await db.$queryRawUnsafe<{ name: string }[]>(
    'SELECT migration_name AS name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
  );
  return new Set(rows.map((row) => row.name));
}

function noStore(res: Response): Response {
  return res.setHeader('cache-control', 'no-store');
}
