import express, { type Express } from 'express';
import helmet from 'helmet';
import type { Logger } from 'pino';
import { createExpressEndpoints, initServer } from '@ts-rest/express';
import { contract } from '../contract/index.js';
import type { Config } from './config.js';
import { providerOf } from './db/adapter.js';
import type { Db } from './db/client.js';
import { createAccountsRepo } from './domains/accounts/repo.js';
import { createFeatureGate } from './domains/accounts/features.js';
import { createAccountsService } from './domains/accounts/service.js';
import { createAccessRepo } from './domains/access/repo.js';
import { organizationsRouter } from './domains/organizations/router.js';
import { createOrganizationsService } from './domains/organizations/service.js';
import { createPermissionProviderClient } from './domains/permission-provider/client.js';
import { permissionsRouter } from './domains/permissions/router.js';
import { createPermissionsService } from './domains/permissions/service.js';
import { createSigningKeys, type SigningKeys } from './domains/permissions/signing-keys.js';
import { usersRouter } from './domains/users/router.js';
import { createUsersService } from './domains/users/service.js';
import { createSettingsRepo } from './domains/workspace/repo.js';
import { workspaceRouter } from './domains/workspace/router.js';
import { createWorkspaceConfigService } from './domains/workspace/service.js';
import { authenticate } from './http/authenticate.js';
import { errorHandler, notFoundHandler, sendError } from './http/error-handler.js';
import { healthRoutes } from './http/health.js';
import { httpLogger } from './http/logging.js';
import { rateLimits, type StoreFactory } from './http/rate-limits.js';
import type { Sealer } from './lib/crypto.js';
import { createPageTokens } from './lib/page-token.js';

export interface AppDeps {
  config: Config;
  db: Db;
  sealer: Sealer;
  logger: Logger;
  rateLimitStore?: StoreFactory;
  now?: () => Date;
  /** Shared with the real-time layer, which verifies the user tokens these keys sign. */
  signingKeys?: SigningKeys;
}

/** The Express app with every operation of the contract mounted; no listen. */
export function createApp(deps: AppDeps): Express {
  const now = deps.now ?? (() => new Date());
  const nowSeconds = () => Math.floor(now().getTime() / 1000);
  const accountsRepo = createAccountsRepo(deps.db);
  const accounts = createAccountsService({
    repo: accountsRepo,
    sealer: deps.sealer,
    now: deps.now,
    unverifiedKeyGraceDays: deps.config.unverifiedKeyGraceDays,
  });
  const provider = createPermissionProviderClient({ allowPrivateUrls: deps.config.allowPrivateUrls });
  const workspaceConfig = createWorkspaceConfigService({
    repo: createSettingsRepo(deps.db),
    sealer: deps.sealer,
    allowPrivateUrls: deps.config.allowPrivateUrls,
    onPermissionProviderChange: (apiKeyId) => provider.invalidate(apiKeyId),
  });
  const accessRepo = createAccessRepo(deps.db);
  const pageTokens = createPageTokens(deps.sealer.deriveKey('page-token'));
  const signingKeys = deps.signingKeys ?? createSigningKeys({ db: deps.db, sealer: deps.sealer, now });
  const organizations = createOrganizationsService({ repo: accessRepo, features: createFeatureGate(accountsRepo), pageTokens });
  const users = createUsersService({ repo: accessRepo, pageTokens, nowSeconds });
  const permissions = createPermissionsService({ repo: accessRepo, config: workspaceConfig, provider, signingKeys, nowSeconds });

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(httpLogger(deps.logger));
  // Before authentication and the POST-only rule: probes carry no credentials.
  app.use(healthRoutes({ db: deps.db, provider: providerOf(deps.config.databaseUrl) }));
  app.use(helmet());
  app.use((req, res, next) => {
    // A body in another format would otherwise be ignored and read as "data is required".
    if (req.method === 'POST' && req.is('json') === false) {
      return sendError(res, 'INVALID_ARGUMENT', 'the request body must be JSON with Content-Type: application/json');
    }
    next();
  });
  app.use(
    express.json({
      limit: deps.config.bodyLimitBytes,
      // PostgreSQL cannot store NUL in text and SQLite would; refuse it up front so both behave alike.
      verify: (_req, _res, raw) => {
        if (raw.includes('\\u0000')) throw Object.assign(new Error('NUL in body'), { type: 'nul.in.body' });
      },
    }),
  );

  // The one GET: token verifiers (the real-time layer, a customer's backend) fetch the public keys here.
  app.get('/.well-known/jwks.json', (_req, res, next) => {
    signingKeys.jwks().then((jwks) => {
      res.setHeader('cache-control', 'public, max-age=300');
      res.json(jwks);
    }, next);
  });

  const router = initServer().router(contract, {
    workspace: workspaceRouter({ config: workspaceConfig, accounts }),
    permissions: permissionsRouter(permissions),
    users: usersRouter(users),
    organizations: organizationsRouter(organizations),
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
