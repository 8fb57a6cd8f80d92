import { Redis as RedisExtension } from '@hocuspocus/extension-redis';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';

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

/** The extension syncing one application's documents, under `identifier` (unique per process and application). */
export type SharedDocumentsFor = (apiKeyId: string, identifier: string) => RedisExtension;

/**
 * With REDIS_URL only: server.ts imports this module then, so a process
 * without Redis never loads the extension and ioredis.
 */
export function sharedDocumentsThrough(redisUrl: string, log: Logger): SharedDocumentsFor {
  return (apiKeyId, identifier) =>
    new SharedDocuments({
      // Each instance subscribes per document: the ready check's INFO must not run on a subscriber connection.
      createClient: () => {
        const client = new Redis(redisUrl, { enableReadyCheck: false });
        client.on('error', (error) => log.warn({ err: error }, 'redis (collaborative documents) connection error'));
        return client;
      },
      prefix: `collab:crdt:${apiKeyId}`,
      identifier,
      // A document's last connection waits this long before it unloads, so sync messages in flight arrive.
      disconnectDelay: 200,
    });
}
