import express, { type Express } from 'express';
import helmet from 'helmet';
import type { Logger } from 'pino';
import { createExpressEndpoints, initServer } from '@ts-rest/express';
import { contract } from '../contract/index.js';
import type { Config } from './config.js';
import { providerOf } from './db/adapter.js';
import type { Db } from './db/client.js';
import { commentsRouter } from './domains/comments/router.js';
import { notificationsRouter } from './domains/notifications/router.js';
import { activitiesRouter } from './domains/activities/router.js';
import { migrationsRouter } from './domains/migrations/router.js';
import { organizationsRouter } from './domains/organizations/router.js';
import { permissionsRouter } from './domains/permissions/router.js';
import { recordingsRouter } from './domains/recordings/router.js';
import { crdtRouter } from './domains/crdt/router.js';
import { liveStateRouter } from './domains/live-state/router.js';
import { presenceRouter } from './domains/presence/router.js';
import { userDataRouter } from './domains/user-data/router.js';
import { usersRouter } from './domains/users/router.js';
import { workspaceRouter } from './domains/workspace/router.js';
import { webhooksRouter } from './domains/webhooks/router.js';
import { aiRouter } from './domains/ai/router.js';
import { memoryRouter } from './domains/memory/router.js';
import { agentPromptsRouter, agentRunsRouter, agentsRouter } from './domains/agents/router.js';
import { workflowDefinitionsRouter, workflowExecutionsRouter, workflowStepsRouter } from './domains/workflows/router.js';
import { MAX_INBOUND_BODY_BYTES } from '../contract/workflows/triggers.js';
import { authenticate } from './http/authenticate.js';
import { routeMeta } from './http/context.js';
import { refuseUnstorableValues, verifyBodyStrings } from './http/body-strings.js';
import { errorHandler, notFoundHandler, sendError } from './http/error-handler.js';
import { matchOperation, operationDispatch } from './http/operation.js';
import { docsRoutes } from './http/docs.js';
import { checkResponses } from './http/response-check.js';
import { healthRoutes } from './http/health.js';
import { httpLogger } from './http/logging.js';
import { inArrivalOrder } from './lib/arrival-order.js';
import { metricsRoute, requestMetrics } from './http/metrics.js';
import { rateLimits, type StoreFactory } from './http/rate-limits.js';
import type { Services } from './services.js';

export interface AppDeps {
  config: Config;
  db: Db;
  logger: Logger;
  services: Services;
  rateLimitStore?: StoreFactory;
  /** Whether Redis answers a PING in time (REDIS_URL set), for /readyz. */
  redisCheck?: () => Promise<boolean>;
  /** Why this process may not serve (a master-key rotation it missed), for /readyz. */
  unready?: () => string | undefined;
}

/** The Express app with every operation of the contract mounted; no listen. */
export function createApp(deps: AppDeps): Express {
  const { accounts, workspaceConfig, signingKeys, permissions, users, organizations } = deps.services;

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // req.ip, which the per-address limits key by: the TCP peer unless TRUST_PROXY names the proxies in front.
  app.set('trust proxy', deps.config.trustProxy);
  app.use(httpLogger(deps.logger));
  // Each request's statements wait in line by when the request came (db/sqlite-gate.ts).
  app.use((_req, _res, next) => inArrivalOrder(next));
  app.use(requestMetrics(deps.services.metrics));
  // Before authentication and the POST-only rule: probes carry no credentials.
  app.use(healthRoutes({ db: deps.db, provider: providerOf(deps.config.databaseUrl), redisCheck: deps.redisCheck, unready: deps.unready }));
  app.use(helmet());
  // The API reference: public GETs like the probes, with its own content security policy.
  app.use(docsRoutes());

  // Who is calling is settled from method, path and headers before the body is
  // read: an anonymous client must not make us inflate and parse up to
  // BODY_LIMIT_BYTES. Limits keyed by a body field wait for the parse below.
  const limits = rateLimits(deps.config.rateLimits, deps.rateLimitStore);
  app.use(matchOperation(contract));
  app.use(limits.beforeAuth);
  app.use(authenticate(accounts, limits.failedAuth));
  app.use(limits.afterAuth);

  app.use((req, res, next) => {
    // A body in another format would otherwise be ignored and read as "data is required".
    if (req.method === 'POST' && req.is('json') === false) {
      return sendError(res, 'INVALID_ARGUMENT', 'the request body must be JSON with Content-Type: application/json');
    }
    next();
  });
  // A third party's body whose signature the operation checks (Inbound Workflow Trigger): its exact bytes are kept,
  // and its own, smaller limit applies. The general parser below then finds the body read and does nothing.
  const signedJson = express.json({
    limit: Math.min(MAX_INBOUND_BODY_BYTES, deps.config.bodyLimitBytes),
    verify: (req, res, raw, encoding) => {
      verifyBodyStrings(req, res, raw, encoding);
      (req as express.Request).rawBody = raw;
    },
    reviver: refuseUnstorableValues,
  });
  app.use((req, res, next) => (req.operation !== undefined && routeMeta(req).rawBody === true ? signedJson(req, res, next) : next()));
  app.use(
    express.json({
      limit: deps.config.bodyLimitBytes,
      // NUL, lone surrogates and non-UTF-8 bytes: refused in every string, keys included, on both databases alike.
      verify: verifyBodyStrings,
      reviver: refuseUnstorableValues,
    }),
  );
  app.use(limits.afterParse);

  // Prometheus scrapes: no API credentials, no rate limit, not in the access log (see server/http/metrics.ts).
  app.get('/metrics', metricsRoute(deps.services.metrics, deps.config.metricsToken));
  // The GETs: token verifiers (the real-time layer, a customer's backend) fetch the public keys here,
  // every application's, or one application's by its audience (see applicationAudience).
  app.get('/.well-known/jwks.json', (_req, res, next) => {
    signingKeys.jwks().then((jwks) => {
      res.setHeader('cache-control', 'public, max-age=300');
      res.json(jwks);
    }, next);
  });
  app.get('/.well-known/jwks/:audience.json', (req, res, next) => {
    signingKeys.jwksFor(req.params.audience ?? '').then((jwks) => {
      if (jwks === null) return sendError(res, 'NOT_FOUND', 'no application has this audience');
      res.setHeader('cache-control', 'public, max-age=300');
      res.json(jwks);
    }, next);
  });

  const router = checkResponses(contract, initServer().router(contract, {
    workspace: workspaceRouter({ config: workspaceConfig, accounts }),
    permissions: permissionsRouter(permissions),
    users: usersRouter(users),
    organizations: organizationsRouter(organizations),
    comments: commentsRouter(deps.services.comments),
    notifications: notificationsRouter(deps.services.notifications),
    activities: activitiesRouter(deps.services.activities),
    recordings: recordingsRouter(deps.services.recordings),
    userData: userDataRouter(deps.services.userData),
    migrations: migrationsRouter(deps.services.migrations),
    crdt: crdtRouter(deps.services.crdt),
    liveState: liveStateRouter(deps.services.liveState),
    presence: presenceRouter(deps.services.presence),
    webhooks: webhooksRouter({ endpoints: deps.services.webhookEndpoints, history: deps.services.webhookHistory }),
    ai: aiRouter(deps.services.ai),
    memory: memoryRouter(deps.services.memory),
    agents: agentsRouter({ agents: deps.services.agents, groups: deps.services.agentGroups }),
    agentRuns: agentRunsRouter({ runs: deps.services.agentRuns, analytics: deps.services.agentAnalytics }),
    agentPrompts: agentPromptsRouter(deps.services.agentPrompts),
    workflowDefinitions: workflowDefinitionsRouter(deps.services.workflowDefinitions),
    workflowExecutions: workflowExecutionsRouter(deps.services.workflowExecutions, deps.services.workflowTriggers),
    workflowSteps: workflowStepsRouter(deps.services.workflowSteps, deps.services.workflowCallbacks),
  }), deps.config.responseValidation);
  const operations = operationDispatch();
  createExpressEndpoints(contract, router, operations.collector as Express, {
    // Checked in checkResponses instead, when RESPONSE_VALIDATION says so.
    responseValidation: false,
    requestValidationErrorHandler: (err, _req, _res, next) => next(err),
  });
  app.use(operations.dispatch, ...operations.after);

  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
