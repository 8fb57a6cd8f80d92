import { loadConfig } from './config.js';
import { createLogger } from './http/logging.js';
import { startupErrorLine } from './lib/startup-error.js';
import { startServer } from './server.js';

/** `npm start`: read the environment, migrate, serve, and shut down cleanly on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const running = await startServer(config, { logger });
  // Hocuspocus and ioredis run some promises nobody awaits (change hooks, Redis publishes). One of them
  // failing (Redis briefly away) must not end the process and the unsaved edits it holds in memory.
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled promise rejection'));

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    // Past the deadline, give up on slow clients rather than hang the deploy.
    const deadline = setTimeout(() => {
      logger.error('shutdown deadline passed; exiting with requests still open');
      process.exit(1);
    }, Number(process.env.SHUTDOWN_TIMEOUT_MS ?? 10_000));
    deadline.unref();
    running.close().then(
      () => {
        logger.info('shutdown complete');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`collab-backend failed to start: ${startupErrorLine(error)}\n`);
  process.exit(1);
});
