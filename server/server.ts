import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino, { type Logger } from 'pino';
import { createApp, type AppDeps } from './app.js';
import type { Config } from './config.js';
import { openDatabase, type Database } from './db/client.js';
import { applyMigrations } from './db/migrate.js';
import { createSigningKeys, type ExpectedApplication, type UserTokenClaims } from './domains/permissions/signing-keys.js';
import { connectRedis } from './http/redis-store.js';
import { Sealer } from './lib/crypto.js';
import { loadMasterKey } from './lib/master-key.js';

export interface RunningServer {
  url: string;
  port: number;
  database: Database;
  server: Server;
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
  logger?: Logger;
  /** Test seams: a fixed clock, a shared rate-limit store. */
  overrides?: Partial<Pick<AppDeps, 'now' | 'rateLimitStore'>>;
}

/** Migrates, opens the database and listens: everything `npm start` does but signal handling. */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? pino({ level: config.logLevel });
  const sealer = new Sealer(loadMasterKey({ envValue: config.masterKey, dataDir: config.dataDir }));
  const migrated = await applyMigrations(config.databaseUrl);
  if (migrated.applied.length > 0) logger.info({ applied: migrated.applied }, 'database migrations applied');
  const database = await openDatabase(config.databaseUrl);
  const redis = config.redisUrl ? await connectRedis(config.redisUrl) : undefined;
  const signingKeys = createSigningKeys({ db: database.db, uow: database.uow, sealer, now: options.overrides?.now });
  const app = createApp({ config, db: database.db, uow: database.uow, sealer, logger, signingKeys, rateLimitStore: redis?.storeFor, ...options.overrides });

  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  logger.info({ url, provider: database.provider }, `listening on ${url}`);

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    database,
    server,
    verifyUserToken: (token, expected) => signingKeys.verify(token, expected),
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          // Idle keep-alive sockets would hold close() open; busy ones finish first.
          server.closeIdleConnections();
        });
        await Promise.all([database.close(), redis?.redis.quit()]);
      })();
      return closing;
    },
  };
}
