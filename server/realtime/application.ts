import { Redis as RedisExtension } from '@hocuspocus/extension-redis';
import { Hocuspocus, type Extension } from '@hocuspocus/server';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { UnitOfWork } from '../db/unit-of-work.js';
import type { CrdtStore } from '../domains/crdt/store.js';
import { createPeerSync, type PeerSync } from './peer-sync.js';
import { createPersistence, type Persistence } from './persistence.js';

/**
 * Hocuspocus's Redis extension for syncing documents and awareness between
 * processes, without its save lock: a save that loses the lock is skipped,
 * and if that process held edits the other had not received yet, nothing
 * saves them before the document unloads. Saves merge with the stored state
 * under a row lock instead (see CrdtStore.saveMerged).
 */
class SharedDocuments extends RedisExtension {
  override async onStoreDocument(): Promise<void> {}
  override async afterStoreDocument(): Promise<void> {}
}

type DirectConnection = Awaited<ReturnType<Hocuspocus['openDirectConnection']>>;

/** One application's live documents. */
export interface AppRealtime {
  apiKeyId: string;
  hocuspocus: Hocuspocus;
  persistence: Persistence;
  /** With REDIS_URL: catches a document up with the other processes holding it. */
  peers: PeerSync | undefined;
  /** Documents the REST operations hold open, closed after restIdleMs without use. */
  direct: Map<string, { connection: Promise<DirectConnection>; timer?: NodeJS.Timeout; users: number }>;
}

/**
 * A Hocuspocus instance of its own per application, so one application's
 * `<org>/<doc>/<editor>` never meets another's: saved through the CRDT store,
 * and with REDIS_URL synced with the other processes under a per-application
 * prefix.
 */
export function createAppRealtime(deps: {
  apiKeyId: string;
  processId: string;
  options: { redisUrl: string | undefined; saveDebounceMs: number; saveMaxDebounceMs: number; saveRetryDelayMs: number };
  store: CrdtStore;
  uow: UnitOfWork;
  log: Logger;
  auth: Extension;
}): AppRealtime {
  const { apiKeyId, options, log } = deps;
  const persistence = createPersistence({
    apiKeyId,
    store: deps.store,
    uow: deps.uow,
    log,
    options: { retryDelayMs: options.saveRetryDelayMs, maxRetryDelayMs: 30_000 },
    onGone: (name) => hocuspocus.closeConnections(name),
  });
  const extensions: Extension[] = [persistence.extension, deps.auth];
  const { redisUrl } = options;
  let peers: PeerSync | undefined;
  if (redisUrl) {
    const redis = new SharedDocuments({
      // Each instance subscribes per document: the ready check's INFO must not run on a subscriber connection.
      createClient: () => {
        const client = new Redis(redisUrl, { enableReadyCheck: false });
        client.on('error', (error) => log.warn({ err: error }, 'redis (collaborative documents) connection error'));
        return client;
      },
      prefix: `collab:crdt:${apiKeyId}`,
      identifier: `${deps.processId}-${apiKeyId}`,
      // A document's last connection waits this long before it unloads, so sync messages in flight arrive.
      disconnectDelay: 200,
    });
    extensions.push(redis);
    peers = createPeerSync(redis, log);
  }
  const hocuspocus = new Hocuspocus({
    name: `collab-${apiKeyId}`,
    quiet: true,
    debounce: options.saveDebounceMs,
    maxDebounce: options.saveMaxDebounceMs,
    extensions,
  });
  return { apiKeyId, hocuspocus, persistence, peers, direct: new Map() };
}
