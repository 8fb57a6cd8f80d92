import { AsyncResource } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Document } from '@hocuspocus/server';
import type { Logger } from 'pino';
import type { RawData, WebSocket } from 'ws';
import { editorKeyOf, type EditorKey } from '../../contract/crdt/document-name.js';
import type { UnitOfWork } from '../db/unit-of-work.js';
import type { CrdtStore } from '../domains/crdt/store.js';
import type { SigningKeys, UserTokenClaims } from '../domains/permissions/signing-keys.js';
import type { Clock } from '../lib/clock.js';
import type { Fanout } from '../platform/fanout.js';
import { recheckAccess } from './access-recheck.js';
import { createAppRealtime, type AppRealtime } from './application.js';
import type { ConnectionAccess } from './connection-access.js';
import {
  connectionAuth,
  verifyUserToken,
  type ConnectionListener,
  type DisconnectionListener,
  type DocumentListener,
  type RoutedContext,
} from './connection-auth.js';
import { createEviction } from './eviction.js';
import { createRestDocuments } from './rest-documents.js';
import type { SharedDocumentsFor } from './shared-documents.js';
import { guardSocket } from './socket-guard.js';
import { attachSocketRouter, type FirstAuth, type Route } from './socket-router.js';

export type { ConnectionListener, DisconnectionListener, DocumentListener, LiveContext } from './connection-auth.js';

export interface RealtimeOptions {
  /** Hocuspocus save debounce: a changed document is saved this long after the last change… */
  saveDebounceMs: number;
  /** …and at the latest this long after the first unsaved one. */
  saveMaxDebounceMs: number;
  /** How often connected users' access is checked again (the bound on how long a lapsed permission keeps its connection). */
  accessCheckMs: number;
  /** A socket that has not authenticated a document by then is closed. */
  authTimeoutMs: number;
  /** A document the REST operations opened stays loaded this long after their last use. */
  restIdleMs: number;
  maxMessageBytes: number;
  saveRetryDelayMs: number;
}

/** Documents one WebSocket may open (the Hocuspocus provider multiplexes an app's documents over one socket). */
const MAX_DOCUMENTS_PER_SOCKET = 100;

/** At shutdown, a save that keeps failing is given up after this (its edits are then logged as lost). */
const SHUTDOWN_SAVE_GRACE_MS = 5_000;

/**
 * The live documents: Hocuspocus instances (one per application, created on
 * first use, see application.ts), the WebSocket endpoint that feeds them, the
 * REST operations' access to the same documents (the CRDT domain's
 * LiveDocuments), the loaded documents and connections presence and live
 * state work on (their PresenceLiveDocuments and LiveStateLiveDocuments),
 * periodic access checks on every connection, and a clean shutdown that
 * saves every loaded document. Documents are loaded and saved through the
 * CRDT store.
 */
export function createRealtimeHub(deps: {
  options: RealtimeOptions;
  log: Logger;
  clock: Clock;
  uow: UnitOfWork;
  store: CrdtStore;
  signingKeys: SigningKeys;
  access: ConnectionAccess;
  fanout: Fanout;
  /** With REDIS_URL: each application's documents synced with the other processes (shared-documents.ts). */
  sharedDocuments?: SharedDocumentsFor;
}) {
  const { options, log } = deps;
  const processId = `proc-${randomUUID()}`;
  const apps = new Map<string, AppRealtime>();
  const listeners = { loaded: [] as DocumentListener[], connected: [] as ConnectionListener[], disconnected: [] as DisconnectionListener[] };
  const closeListeners: (() => Promise<void> | void)[] = [];
  let closed = false;
  let router: ReturnType<typeof attachSocketRouter> | undefined;
  let accessTimer: NodeJS.Timeout | undefined;
  // What a REST request sets going on a live document (its debounced save, its release when idle) runs later
  // on its own: in the hub's async context, so its log lines are not that request's (see server/http/logging.ts).
  const detached = AsyncResource.bind(<T>(work: () => T): T => work());

  function appFor(apiKeyId: string): AppRealtime {
    const existing = apps.get(apiKeyId);
    if (existing) return existing;
    if (closed) throw new Error('real-time layer is closed');
    // Often first needed by a REST request: what is made here (Redis clients, Hocuspocus timers) outlives it.
    return detached(() => {
      const auth = connectionAuth(apiKeyId, { closed: () => closed, clock: deps.clock, signingKeys: deps.signingKeys, access: deps.access, store: deps.store, listeners });
      const app = createAppRealtime({ apiKeyId, processId, options, shared: deps.sharedDocuments, store: deps.store, uow: deps.uow, log, auth });
      apps.set(apiKeyId, app);
      return app;
    });
  }

  const rest = createRestDocuments({ appFor, uow: deps.uow, restIdleMs: options.restIdleMs, detached });
  const eviction = createEviction({ appOf: (apiKeyId) => apps.get(apiKeyId), release: rest.release, store: deps.store, uow: deps.uow, fanout: deps.fanout, log });
  const checkAccessNow = () => recheckAccess(apps.values(), { access: deps.access, clock: deps.clock, log });

  return {
    processId,

    /** Serves the Yjs sync protocol (Hocuspocus) at `/crdt` of the HTTP server. */
    attach(server: Server) {
      router = attachSocketRouter(server, {
        path: '/crdt',
        maxPayloadBytes: options.maxMessageBytes,
        maxPendingBytes: options.maxMessageBytes,
        authTimeoutMs: options.authTimeoutMs,
        accepting: () => !closed,
        async route(auth: FirstAuth): Promise<Route> {
          if (!editorKeyOf(auth.documentName)) return { refuse: 'invalid-document-name' };
          let claims: UserTokenClaims;
          try {
            claims = await verifyUserToken(deps.signingKeys, null, auth.token);
          } catch (error) {
            return { refuse: (error as { reason?: string }).reason ?? 'permission-denied' };
          }
          const app = appFor(claims.app);
          return {
            accept(ws: WebSocket, request: IncomingMessage, replay: RawData[]) {
              // Registered before Hocuspocus's own listener, so it sees every message first.
              const guard = guardSocket(ws, {
                maxDocuments: MAX_DOCUMENTS_PER_SOCKET,
                maxUnauthenticatedBytes: options.maxMessageBytes,
                idleMs: options.authTimeoutMs,
              });
              const context: RoutedContext = { routed: { token: auth.token, claims }, guard };
              app.hocuspocus.handleConnection(ws, request, context);
              for (const data of replay) ws.emit('message', data, true);
            },
          };
        },
      });
      const tick = () => {
        accessTimer = setTimeout(() => {
          void checkAccessNow().finally(() => {
            if (!closed) tick();
          });
        }, options.accessCheckMs);
        accessTimer.unref();
      };
      tick();
    },

    /**
     * Runs `work` on the live document of an editor, loading it from the
     * database when nobody has it open; REST operations on one document run
     * one after the other (see rest-documents.ts).
     */
    withDocument: rest.withDocument,

    /** The loaded documents of every editor of a document, in this process. */
    documentsOf(apiKeyId: string, organizationId: string, documentId: string): { key: EditorKey; document: Document }[] {
      const app = apps.get(apiKeyId);
      if (!app) return [];
      const found: { key: EditorKey; document: Document }[] = [];
      for (const [name, document] of app.hocuspocus.documents) {
        const key = editorKeyOf(name);
        if (key && key.organizationId === organizationId && key.documentId === documentId) found.push({ key, document });
      }
      return found;
    },

    /** Called whenever a document is loaded into this process (for live state and presence to catch it up). */
    onDocumentLoaded(listener: DocumentListener) {
      listeners.loaded.push(listener);
    },
    /** Called whenever a client's connection to a document is set up. */
    onConnected(listener: ConnectionListener) {
      listeners.connected.push(listener);
    },
    /** Called whenever a client's connection to a document has closed. */
    onDisconnected(listener: DisconnectionListener) {
      listeners.disconnected.push(listener);
    },
    /** Called first when the hub closes, and awaited (timers to stop, shared state to withdraw). */
    onClose(listener: () => Promise<void> | void) {
      closeListeners.push(listener);
    },

    /** Every document loaded in this process, with its application and editor key. */
    *loadedDocuments(): Generator<{ apiKeyId: string; key: EditorKey; document: Document }> {
      for (const app of apps.values()) {
        for (const [name, document] of app.hocuspocus.documents) {
          const key = editorKeyOf(name);
          if (key) yield { apiKeyId: app.apiKeyId, key, document };
        }
      }
    },

    /** See LiveDocuments (server/domains/crdt/live-documents.ts) and eviction.ts. */
    evictAfterCommit: eviction.evictAfterCommit,
    evictOrganizationAfterCommit: eviction.evictOrganizationAfterCommit,

    /** Numbers for tests and metrics. `connections` is Hocuspocus's count: WebSocket clients and direct connections. */
    stats() {
      let documents = 0;
      let connections = 0;
      let directConnections = 0;
      for (const app of apps.values()) {
        documents += app.hocuspocus.getDocumentsCount();
        connections += app.hocuspocus.getConnectionsCount();
        for (const document of app.hocuspocus.documents.values()) directConnections += document.directConnectionsCount;
      }
      return { applications: apps.size, documents, connections, websocketConnections: connections - directConnections, directConnections };
    },

    /** Runs the periodic access check now (tests). */
    recheckAccess: checkAccessNow,

    /**
     * Stops taking sockets, closes every connection, saves every loaded
     * document that has unsaved changes, and waits for those saves: call it
     * before the database closes.
     */
    async close() {
      if (closed) return;
      closed = true;
      if (accessTimer) clearTimeout(accessTimer);
      await Promise.allSettled(closeListeners.map(async (listener) => listener()));
      router?.stopAccepting();
      await rest.settled();
      await Promise.all(
        [...apps.values()].map(async (app) => {
          app.persistence.stopping(SHUTDOWN_SAVE_GRACE_MS);
          await Promise.all([...app.direct.keys()].map((name) => rest.release(app, name)));
          app.hocuspocus.closeConnections();
          // Saves whatever is still unsaved (closing connections triggers saves; this covers the rest) and waits for them.
          await Promise.all(
            [...app.hocuspocus.documents.values()].map((document) =>
              app.persistence.needsSave(document)
                ? app.hocuspocus.storeDocumentHooks(document, {
                    clientsCount: 0,
                    context: {},
                    document,
                    documentName: document.name,
                    instance: app.hocuspocus,
                    requestHeaders: {},
                    requestParameters: new URLSearchParams(),
                    socketId: 'server',
                  }, true)
                : undefined,
            ),
          );
        }),
      );
      await router?.closeAll();
      // Closing sockets may have started last saves; wait for them before the database closes.
      await Promise.all(
        [...apps.values()].map(async (app) => {
          await Promise.all([...app.hocuspocus.documents.values()].map((document) => document.saveMutex.waitForUnlock()));
          // Documents still unloading unsubscribe from Redis as they go: let them, before the extension closes its clients.
          await Promise.allSettled([...app.hocuspocus.unloadingDocuments.values()]);
          await app.hocuspocus.hooks('onDestroy', { instance: app.hocuspocus });
        }),
      );
    },
  };
}

export type RealtimeHub = ReturnType<typeof createRealtimeHub>;
