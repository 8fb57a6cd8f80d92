import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { createApp, type AppDeps } from './app.js';
import { ConfigError, type Config } from './config.js';
import type { Database, QueryListener } from './db/client.js';
import { openMigratedDatabase } from './db/startup.js';
import { closeBrowser } from './domains/agents/run/browser.js';
import type { ExpectedApplication, UserTokenClaims } from './domains/permissions/signing-keys.js';
import { answerClientError } from './http/client-error.js';
import { createLogger } from './http/logging.js';
import type { connectRedis } from './http/redis-store.js';
import { systemClock, type Clock } from './lib/clock.js';
import type { Sealer } from './lib/crypto.js';
import { openVerifiedSealer, watchMasterKey } from './lib/master-key.js';
import { createMetrics } from './platform/metrics.js';
import { localFanout, redisFanout, type Fanout } from './platform/fanout.js';
import { localPresenceDirectory, redisPresenceDirectory, type PresenceDirectory } from './platform/presence-directory.js';
import type { SharedDocumentsFor } from './realtime/shared-documents.js';
import { createServices, type CoreDeps, type Services } from './services.js';

export interface RunningServer {
  url: string;
  port: number;
  database: Database;
  server: Server;
  /** The services behind the HTTP app: tests drive jobs (`services.jobs.runDue()`) and read state through them. */
  services: Services;
  /**
   * Verifies a user token from Generate Token for one application (signature
   * by a published key of that application, `aud`, 48-hour expiry) and
   * returns its claims; throws when it is not valid, or is another
   * application's. `audience` is applicationAudience(apiKey). For the
   * real-time layer and anything else that must trust a user.
   */
  verifyUserToken(token: string, expected: ExpectedApplication): Promise<UserTokenClaims>;
  /** Stops accepting, lets in-flight requests finish, then closes the database. */
  close(): Promise<void>;
}

export interface StartOptions {
  /** Made with createLogger's options (REQUEST_FIELDS in server/http/logging.ts), or its lines carry no request ID and operation. */
  logger?: Logger;
  /** Test seams: a clock the test moves, a shared rate-limit store, lower agent caps, every statement's SQL (tests that count them). */
  overrides?: { clock?: Clock; rateLimitStore?: AppDeps['rateLimitStore']; agentLimits?: CoreDeps['agentLimits']; readCacheTtlMs?: number; onQuery?: QueryListener };
}

/** Migrates, opens the database and listens: everything `npm start` does but signal handling. */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const { database, applied } = await openMigratedDatabase(config.databaseUrl, {
    poolSize: config.databasePoolSize,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    onEffectError: (error) => logger.error({ err: error }, 'after-commit effect failed'),
    onQuery: options.overrides?.onQuery,
  });
  if (applied.length > 0) logger.info({ applied }, 'database migrations applied');
  const shutdown = keepAliveShutdown();
  let redis: Awaited<ReturnType<typeof connectRedis>> | undefined;
  let server: Server | undefined;
  let services: Services;
  let sealer: Sealer;
  let keyWatch: ReturnType<typeof watchMasterKey> | undefined;
  let fanout: Fanout | undefined;
  let presenceDirectory: PresenceDirectory | undefined;
  let sharedDocuments: SharedDocumentsFor | undefined;
  try {
    const clock = options.overrides?.clock ?? systemClock;
    sealer = await openVerifiedSealer(database.db, { envValue: config.masterKey, dataDir: config.dataDir }, clock);
    // From the start: a rotation may be under way, and it waits for this process's acknowledgement.
    keyWatch = watchMasterKey(database.db, sealer, {
      intervalMs: config.masterKeyRefreshMs,
      clock,
      onChange: (sealsWithNewKey) => logger.info(sealsWithNewKey ? 'master key rotation: sealing with the new key' : 'master key rotation: opening values under either key'),
      onLost: (message) => logger.error(message),
      onError: (error) => logger.warn({ err: error }, 'master key state unreadable: keys unchanged until the next try'),
    });
    // What Redis serves loads with REDIS_URL only (ioredis, the rate-limit store, Hocuspocus's Redis
    // extension): a process without it would hold them in memory unused.
    if (config.redisUrl) {
      const { connectRedis } = await import('./http/redis-store.js');
      redis = await connectRedis(config.redisUrl, (error) => logger.warn({ err: error }, 'redis unavailable: rate limits count in this process until it is back'));
      fanout = await redisFanout(config.redisUrl, logger);
      presenceDirectory = await redisPresenceDirectory(config.redisUrl, logger);
      sharedDocuments = (await import('./realtime/shared-documents.js')).sharedDocumentsThrough(config.redisUrl, logger);
    } else {
      fanout = localFanout();
      presenceDirectory = localPresenceDirectory();
    }
    services = createServices({
      config,
      db: database.db,
      uow: database.uow,
      sealer,
      logger,
      clock,
      agentLimits: options.overrides?.agentLimits,
      readCacheTtlMs: options.overrides?.readCacheTtlMs,
      fanout,
      presenceDirectory,
      sharedDocuments,
      metrics: createMetrics({ processMetrics: true }),
    });
    const app = createApp({ config, db: database.db, logger, services, rateLimitStore: options.overrides?.rateLimitStore ?? redis?.storeFor, redisCheck: redis?.check, unready: () => sealer.retired() });

    server = createServer(
      {
        headersTimeout: config.http.headersTimeoutMs,
        requestTimeout: config.http.requestTimeoutMs,
        keepAliveTimeout: config.http.keepAliveTimeoutMs,
        // Node enforces the two timeouts above only at this interval (default 30 s).
        connectionsCheckingInterval: Math.min(1000, config.http.headersTimeoutMs),
      },
      (req, res) => {
        shutdown.track(res);
        app(req, res);
      },
    );
    server.on('clientError', (error: NodeJS.ErrnoException, socket) => answerClientError(error, socket, logger));
    services.realtime.attach(server);
    const listening = server;
    await new Promise<void>((resolve, reject) => {
      listening.once('error', (error: NodeJS.ErrnoException) =>
        reject(new ConfigError(`PORT ${config.port} on HOST ${config.host} cannot be listened on (${error.code ?? error.message})`)),
      );
      listening.listen(config.port, config.host, () => resolve());
    });
  } catch (error) {
    // Nothing may outlive a failed start: an open handle would keep the process (or a test worker) alive.
    keyWatch?.stop();
    await Promise.allSettled([database.close(), redis?.redis.quit(), fanout?.close(), presenceDirectory?.close()]);
    server?.close();
    throw error;
  }
  const http = server;
  const ready = services;
  ready.jobs.start();
  ready.webhookDispatcher.start();
  ready.eventRetention.start();
  const port = (http.address() as AddressInfo).port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  ready.publicUrl.listeningAt(url);
  // At info whatever LOG_LEVEL says: with PORT=0 this line is the only way to learn the port.
  logger.child({}, { level: 'info' }).info({ url, provider: database.provider }, `listening on ${url}`);

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    database,
    server: http,
    services: ready,
    verifyUserToken: (token, expected) => ready.signingKeys.verify(token, expected),
    close() {
      closing ??= (async () => {
        const httpClosed = new Promise<void>((resolve) => {
          shutdown.begin();
          http.close(() => resolve());
          // Idle keep-alive sockets would hold close() open; busy ones finish first.
          http.closeIdleConnections();
        });
        // WebSocket connections are upgraded sockets that close() waits for: close them (saving every
        // loaded document) while the database is still open.
        await ready.realtime.close();
        await httpClosed;
        // The running job finishes (or its lease lapses and another process resumes it).
        keyWatch?.stop();
        await Promise.all([ready.jobs.stop(), ready.webhookDispatcher.stop(), ready.eventRetention.stop()]);
        // After the jobs: an agent run still rendering a page would fail on a closed browser.
        await Promise.all([closeBrowser(), database.close(), redis?.redis.quit(), fanout?.close(), presenceDirectory?.close()]);
      })();
      return closing;
    },
  };
}

/**
 * Graceful shutdown of kept-alive connections. http.close() stops accepting
 * and closes idle connections, but a connection busy at that moment was kept
 * alive by its response, and its client sent the next request on it, and the
 * next: behind a load balancer or an SDK with keep-alive, a stopping process
 * kept serving until SHUTDOWN_TIMEOUT_MS and then exited with requests cut
 * off. So from the start of shutdown every response, those in flight
 * included, says `Connection: close` and its connection closes after it: the
 * client opens a new connection for its next request, which is refused here
 * (never accepted) and goes to another process.
 */
function keepAliveShutdown() {
  let closing = false;
  const open = new Set<ServerResponse>();
  const closeAfter = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('connection', 'close');
  };
  return {
    track(res: ServerResponse): void {
      if (closing) return closeAfter(res);
      open.add(res);
      res.once('close', () => open.delete(res));
    },
    begin(): void {
      closing = true;
      for (const res of open) closeAfter(res);
      open.clear();
    },
  };
}
