import { Hocuspocus, type Extension } from '@hocuspocus/server';
import type { Logger } from 'pino';
import type { UnitOfWork } from '../db/unit-of-work.js';
import type { CrdtStore } from '../domains/crdt/store.js';
import { createPeerSync, type PeerSync } from './peer-sync.js';
import { createPersistence, type Persistence } from './persistence.js';
import type { SharedDocumentsFor } from './shared-documents.js';

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
  options: { saveDebounceMs: number; saveMaxDebounceMs: number; saveRetryDelayMs: number };
  /** With REDIS_URL: syncs the documents with the other processes. */
  shared: SharedDocumentsFor | undefined;
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
  let peers: PeerSync | undefined;
  if (deps.shared) {
    const redis = deps.shared(apiKeyId, `${deps.processId}-${apiKeyId}`);
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
