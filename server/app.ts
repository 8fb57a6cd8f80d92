import express, { type Express } from 'express';
import helmet from 'helmet';
import { pinoHttp } from 'pino-http';
import type { Logger } from 'pino';
import { createExpressEndpoints, initServer } from '@ts-rest/express';
import { contract } from '../contract/index.js';
import type { Config } from './config.js';
import type { Db } from './db/client.js';
import { createAccountsRepo } from './domains/accounts/repo.js';
import { createAccountsService } from './domains/accounts/service.js';
import { createSettingsRepo } from './domains/workspace/repo.js';
import { workspaceRouter } from './domains/workspace/router.js';
import { createWorkspaceConfigService } from './domains/workspace/service.js';
import { authenticate } from './http/authenticate.js';
import { errorHandler, notFoundHandler, sendError } from './http/error-handler.js';
import { rateLimits, type StoreFactory } from './http/rate-limits.js';
import { requestId } from './http/request-id.js';
import type { Sealer } from './lib/crypto.js';

export interface AppDeps {
  config: Config;
  db: Db;
  sealer: Sealer;
  logger: Logger;
  rateLimitStore?: StoreFactory;
  now?: () => Date;
}

/** The Express app with every operation of the contract mounted; no listen. */
export function createApp(deps: AppDeps): Express {
  const accounts = createAccountsService({
    repo: createAccountsRepo(deps.db),
    sealer: deps.sealer,
    now: deps.now,
    unverifiedKeyGraceDays: deps.config.unverifiedKeyGraceDays,
  });
  const workspaceConfig = createWorkspaceConfigService({ repo: createSettingsRepo(deps.db), sealer: deps.sealer });

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(pinoHttp({ logger: deps.logger, genReqId: requestId, quietReqLogger: true }));
  app.use(helmet());
  app.use((req, res, next) => {
    // A body in another format would otherwise be ignored and read as "data is required".
    if (req.method === 'POST' && req.is('json') === false) {
      return sendError(res, 'INVALID_ARGUMENT', 'the request body must be JSON with Content-Type: application/json');
    }
    next();
  });
  app.use(express.json({ limit: deps.config.bodyLimitBytes }));

  const router = initServer().router(contract, {
    workspace: workspaceRouter({ config: workspaceConfig, accounts }),
  });
  createExpressEndpoints(contract, router, app, {
    responseValidation: true,
    // Rate limits first, so floods of bad credentials are counted too.
    globalMiddleware: [rateLimits(deps.config.rateLimits, deps.rateLimitStore), authenticate(accounts)],
    requestValidationErrorHandler: (err, _req, _res, next) => next(err),
  });

  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
