import { AsyncResource } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import { Redis as RedisExtension } from '@hocuspocus/extension-redis';
import { Hocuspocus, type Connection, type Document, type Extension, type onAuthenticatePayload } from '@hocuspocus/server';
import { Redis } from 'ioredis';
import { decodeJwt } from 'jose';
import type { Logger } from 'pino';
import type { RawData, WebSocket } from 'ws';
import * as Y from 'yjs';
import type { TUserRef } from '../../contract/common/content.js';
import type { UnitOfWork } from '../db/unit-of-work.js';
import type { EnsureHeldDocument } from '../domains/access/open-document.js';
import type { DocumentsRepo } from '../domains/access/repos/documents.js';
import type { CrdtRepo } from '../domains/crdt/repo.js';
import type { SigningKeys, UserTokenClaims } from '../domains/permissions/signing-keys.js';
import type { Clock } from '../lib/clock.js';
import type { EventBus } from '../platform/events.js';
import type { ConnectionAccess, LiveRole } from './connection-access.js';
import { documentNameOf, editorKeyOf, type EditorKey } from '../../contract/crdt/document-name.js';
import type { Fanout } from './fanout.js';
import { createPeerSync, type PeerSync } from './peer-sync.js';
import { createPersistence, type Persistence } from './persistence.js';
import { guardSocket, type SocketGuard } from './socket-guard.js';
import { attachSocketRouter, type FirstAuth, type Route } from './socket-router.js';

export interface RealtimeOptions {
  redisUrl: string | undefined;
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

/**
 * Hocuspocus's Redis extension for syncing documents and awareness between
 * processes, without its save lock: a save that loses the lock is skipped,
 * and if that process held edits the other had not received yet, nothing
 * saves them before the document unloads. Saves merge with the stored state
 * under a row lock instead (see persistence.ts).
 */
class SharedDocuments extends RedisExtension {
  override async onStoreDocument(): Promise<void> {}
  override async afterStoreDocument(): Promise<void> {}
}

/** What a connection's hooks know about it (Hocuspocus's `context`). */
export interface LiveContext {
  apiKeyId: string;
  key: EditorKey;
  user: TUserRef;
  claims: UserTokenClaims;
  role: LiveRole;
}

/** What a REST operation may do to the live document it runs on. */
export interface LiveDocument {
  /** Whether clients changed the document since it was last saved. */
  unsaved(): boolean;
  /** Once the caller's unit of work commits, applies this (already stored) update: connected clients receive it. */
  applyAfterCommit(update: Uint8Array): void;
}

/** The origin of changes the REST operations make (no user: Yjs and the save record none). */
const REST_ORIGIN = Symbol('rest');

/** Documents one WebSocket may open (the Hocuspocus provider multiplexes an app's documents over one socket). */
const MAX_DOCUMENTS_PER_SOCKET = 100;

/** At shutdown, a save that keeps failing is given up after this (its edits are then logged as lost). */
const SHUTDOWN_SAVE_GRACE_MS = 5_000;

/** Close codes of the Hocuspocus protocol the provider understands. */
const FORBIDDEN = { code: 4403, reason: 'Forbidden' };
/** Thrown from onAuthenticate: the reason goes to the client, the empty message keeps Hocuspocus from logging it. */
const refusal = (reason: string) => Object.assign(new Error(''), { reason });

type DirectConnection = Awaited<ReturnType<Hocuspocus['openDirectConnection']>>;

interface AppRealtime {
  apiKeyId: string;
  hocuspocus: Hocuspocus;
  persistence: Persistence;
  /** With REDIS_URL: catches a document up with the other processes holding it. */
  peers: PeerSync | undefined;
  /** Documents the REST operations hold open, closed after restIdleMs without use. */
  direct: Map<string, { connection: Promise<DirectConnection>; timer?: NodeJS.Timeout; users: number }>;
}

export type DocumentListener = (apiKeyId: string, key: EditorKey, document: Document) => void;
export type ConnectionListener = (context: LiveContext, connection: Connection) => void;
export type DisconnectionListener = (context: LiveContext, document: Document) => void;

/**
 * The live documents: Hocuspocus instances (one per application, created on
 * first use, so one application's `<org>/<doc>/<editor>` never meets
 * another's), the WebSocket endpoint that feeds them, the REST operations'
 * access to the same documents, periodic access checks on every connection,
 * and a clean shutdown that saves every loaded document.
 */
export function createRealtimeHub(deps: {
  options: RealtimeOptions;
  log: Logger;
  clock: Clock;
  uow: UnitOfWork;
  crdtRepo: CrdtRepo;
  documents: Pick<DocumentsRepo, 'holdDocuments'>;
  ensureHeldDocument: EnsureHeldDocument;
  events: EventBus;
  signingKeys: SigningKeys;
  access: ConnectionAccess;
  fanout: Fanout;
}) {
  const { options, log } = deps;
  const processId = `proc-${randomUUID()}`;
  const apps = new Map<string, AppRealtime>();
  const loadedListeners: DocumentListener[] = [];
  const connectedListeners: ConnectionListener[] = [];
  const disconnectedListeners: DisconnectionListener[] = [];
  const closeListeners: (() => Promise<void> | void)[] = [];
  const queues = new Map<string, Promise<unknown>>();
  let closed = false;
  let router: ReturnType<typeof attachSocketRouter> | undefined;
  let accessTimer: NodeJS.Timeout | undefined;
  // What a REST request sets going on a live document (its debounced save, its release when idle) runs later
  // on its own: in the hub's async context, so its log lines are not that request's (see server/http/logging.ts).
  const detached = AsyncResource.bind(<T>(work: () => T): T => work());

  /** Verifies a user token and requires it to be this application's. */
  async function claimsFor(apiKeyId: string | null, token: string): Promise<UserTokenClaims> {
    let audience: unknown;
    try {
      audience = decodeJwt(token).aud;
    } catch {
      throw refusal('invalid-token');
    }
    if (typeof audience !== 'string') throw refusal('invalid-token');
    let claims: UserTokenClaims;
    try {
      claims = await deps.signingKeys.verify(token, { audience });
    } catch {
      throw refusal('invalid-token');
    }
    if (apiKeyId !== null && claims.app !== apiKeyId) throw refusal('invalid-token');
    return claims;
  }

  function userOf(claims: UserTokenClaims): TUserRef {
    const user: TUserRef = { userId: claims.user.userId };
    if (typeof claims.user.name === 'string' && claims.user.name !== '') user.name = claims.user.name;
    if (typeof claims.user.email === 'string' && claims.user.email !== '') user.email = claims.user.email;
    return user;
  }

  /** The socket's guard and the first document's already verified token, handed over by the router. */
  interface RoutedContext {
    routed?: { token: string; claims: UserTokenClaims };
    guard?: SocketGuard;
  }

  function authExtension(apiKeyId: string): Extension {
    async function authenticate(token: string, documentName: string, routed: RoutedContext['routed']): Promise<LiveContext> {
      if (closed) throw refusal('server-shutting-down');
      const key = editorKeyOf(documentName);
      if (!key) throw refusal('invalid-document-name');
      let claims: UserTokenClaims;
      if (routed?.token === token) {
        // Verified when the socket was routed; on a long-lived socket it may have expired since.
        if (typeof routed.claims.exp === 'number' && routed.claims.exp <= Math.floor(deps.clock.nowMs() / 1000)) throw refusal('invalid-token');
        claims = routed.claims;
      } else {
        claims = await claimsFor(apiKeyId, token);
      }
      const userId = claims.user.userId;
      const viaProvider = await deps.access.usesPermissionProvider(apiKeyId);
      const role = (await deps.access.rolesOf(apiKeyId, key, [{ userId, claims }], viaProvider)).get(userId) ?? null;
      if (role === null) throw refusal('permission-denied');
      if (viaProvider) {
        // The provider granted it, but no grant created the organization and document here: a client app creates
        // them by opening them (as with comments), so that its edits can be saved.
        await deps.uow.run(() => deps.ensureHeldDocument(apiKeyId, key.organizationId, key.documentId));
      }
      return { apiKeyId, key, user: userOf(claims), claims, role };
    }

    return {
      extensionName: 'collab-auth',
      async onAuthenticate({ token, documentName, connectionConfig, context }: onAuthenticatePayload): Promise<LiveContext> {
        const { routed, guard } = context as RoutedContext;
        try {
          const live = await authenticate(token, documentName, routed);
          connectionConfig.readOnly = live.role === 'viewer';
          return live;
        } catch (error) {
          guard?.refused(documentName);
          throw error;
        }
      },
      async connected({ context, connection, documentName }) {
        (context as RoutedContext).guard?.authenticated(documentName);
        for (const listener of connectedListeners) listener(context as LiveContext, connection);
      },
      // Called once the connection has left the document (its awareness states removed).
      async onDisconnect({ context, document, documentName }) {
        (context as RoutedContext).guard?.disconnected(documentName);
        if ((context as Partial<LiveContext>).user) for (const listener of disconnectedListeners) listener(context as LiveContext, document);
      },
      async afterLoadDocument({ documentName, document }) {
        const key = editorKeyOf(documentName);
        if (key) for (const listener of loadedListeners) listener(apiKeyId, key, document);
      },
    };
  }

  function appFor(apiKeyId: string): AppRealtime {
    const existing = apps.get(apiKeyId);
    if (existing) return existing;
    if (closed) throw new Error('real-time layer is closed');
    // Often first needed by a REST request: what is made here (Redis clients, Hocuspocus timers) outlives it.
    return detached(() => createAppRealtime(apiKeyId));
  }

  function createAppRealtime(apiKeyId: string): AppRealtime {
    const persistence = createPersistence({
      apiKeyId,
      repo: deps.crdtRepo,
      documents: deps.documents,
      uow: deps.uow,
      events: deps.events,
      clock: deps.clock,
      log,
      options: { retryDelayMs: options.saveRetryDelayMs, maxRetryDelayMs: 30_000 },
      onGone: (name) => hocuspocus.closeConnections(name),
    });
    const extensions: Extension[] = [persistence.extension, authExtension(apiKeyId)];
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
        identifier: `${processId}-${apiKeyId}`,
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
    const app: AppRealtime = { apiKeyId, hocuspocus, persistence, peers, direct: new Map() };
    apps.set(apiKeyId, app);
    return app;
  }

  /** Runs `work` after every earlier piece of work on the same document (REST operations never interleave on one document). */
  function serialized<T>(queueKey: string, work: () => Promise<T>): Promise<T> {
    const previous = queues.get(queueKey) ?? Promise.resolve();
    const run = previous.then(work, work);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    queues.set(queueKey, settled);
    void settled.then(() => {
      if (queues.get(queueKey) === settled) queues.delete(queueKey);
    });
    return run;
  }

  async function releaseDirect(app: AppRealtime, name: string) {
    const entry = app.direct.get(name);
    if (!entry) return;
    app.direct.delete(name);
    if (entry.timer) clearTimeout(entry.timer);
    const connection = await entry.connection.catch(() => undefined);
    await connection?.disconnect();
  }

  /**
   * Drops loaded copies of these documents (all of the organization's for
   * null) from this process without saving them under their old ID. For a
   * migrated document, edits made since its last save go into the target
   * document's stored state (Yjs updates merge), so none is lost.
   */
  async function evictLocal(apiKeyId: string, organizationId: string, documentIds: ReadonlySet<string> | null, movedTo: string | undefined) {
    const app = apps.get(apiKeyId);
    if (!app) return;
    for (const [name, document] of app.hocuspocus.documents) {
      const key = editorKeyOf(name);
      if (!key || key.organizationId !== organizationId || (documentIds !== null && !documentIds.has(key.documentId))) continue;
      if (movedTo !== undefined && app.persistence.isDirty(document)) {
        const target = { ...key, documentId: movedTo };
        const unsaved = Y.encodeStateAsUpdate(document);
        await deps.uow.run(async () => {
          const held = await deps.documents.holdDocuments(apiKeyId, organizationId, [movedTo]);
          if (!held.has(movedTo)) return;
          const stored = await deps.crdtRepo.lockedRow(apiKeyId, target, { at: BigInt(deps.clock.nowMs()) });
          await deps.crdtRepo.save(apiKeyId, target, {
            state: stored ? Y.mergeUpdates([stored.state, unsaved]) : unsaved,
            at: BigInt(deps.clock.nowMs()),
            updatedByUserId: stored?.updatedByUserId ?? null,
          });
        });
      }
      app.persistence.markGone(document);
      app.hocuspocus.closeConnections(name);
      await releaseDirect(app, name);
    }
  }

  deps.fanout.subscribe((message) => {
    const m = message as { kind?: string; apiKeyId?: string; organizationId?: string; documentIds?: string[] | null; movedTo?: string };
    if (m.kind !== 'evict' || typeof m.apiKeyId !== 'string' || typeof m.organizationId !== 'string') return;
    const documentIds = Array.isArray(m.documentIds) ? new Set(m.documentIds) : null;
    void evictLocal(m.apiKeyId, m.organizationId, documentIds, typeof m.movedTo === 'string' ? m.movedTo : undefined).catch((error) =>
      log.error({ err: error }, 'dropping a deleted or migrated collaborative document failed'),
    );
  });

  /** Checks every connection's access again; closes those that lost it and follows role changes. */
  async function recheckAccess() {
    const nowSeconds = Math.floor(deps.clock.nowMs() / 1000);
    for (const app of apps.values()) {
      for (const [name, document] of app.hocuspocus.documents) {
        const key = editorKeyOf(name);
        const connections = document.getConnections();
        if (!key || connections.length === 0) continue;
        const users = connections.map((connection) => {
          const context = connection.context as LiveContext;
          return { userId: context.user.userId, claims: context.claims };
        });
        let roles: Map<string, LiveRole | null>;
        try {
          roles = await deps.access.rolesOf(app.apiKeyId, key, users);
        } catch (error) {
          log.warn({ err: error }, 'checking connected users\' access failed; trying again at the next check');
          continue;
        }
        for (const connection of connections) {
          const context = connection.context as LiveContext;
          const role = roles.get(context.user.userId) ?? null;
          const expired = typeof context.claims.exp === 'number' && context.claims.exp <= nowSeconds;
          if (role === null || expired) {
            connection.close(FORBIDDEN);
            continue;
          }
          context.role = role;
          connection.readOnly = role === 'viewer';
        }
      }
    }
  }

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
            claims = await claimsFor(null, auth.token);
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
          void recheckAccess().finally(() => {
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
     * one after the other. With REDIS_URL, `work` starts once the document
     * holds every edit the other processes had when it was called (see
     * peer-sync.ts). `live.applyAfterCommit` hands a stored change to the live
     * document, from where connected clients (on every process) receive it.
     */
    async withDocument<T>(apiKeyId: string, key: EditorKey, work: (document: Document, live: LiveDocument) => Promise<T>): Promise<T> {
      const name = documentNameOf(key);
      return serialized(`${apiKeyId}\u0000${name}`, async () => {
        const app = appFor(apiKeyId);
        let entry = app.direct.get(name);
        if (!entry) {
          // Loading starts per-document work (presence renewal) that must not carry this request's log fields.
          entry = { connection: detached(() => app.hocuspocus.openDirectConnection(name, {})), users: 0 };
          app.direct.set(name, entry);
        }
        const held = entry;
        if (held.timer) clearTimeout(held.timer);
        held.users += 1;
        try {
          const connection = await held.connection;
          const document = connection.document;
          if (!document) throw new Error('document closed');
          await app.peers?.catchUp(document);
          return await work(document, {
            unsaved: () => app.persistence.needsSave(document),
            applyAfterCommit: (update) => deps.uow.afterCommit(() => detached(() => app.persistence.applyCommitted(document, update, REST_ORIGIN))),
          });
        } catch (error) {
          if (app.direct.get(name) === held) await held.connection.catch(() => app.direct.delete(name));
          throw error;
        } finally {
          held.users -= 1;
          if (held.users === 0 && app.direct.get(name) === held) {
            held.timer = detached(() => setTimeout(() => void releaseDirect(app, name), options.restIdleMs));
            held.timer.unref();
          }
        }
      });
    },

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
      loadedListeners.push(listener);
    },
    /** Called whenever a client's connection to a document is set up. */
    onConnected(listener: ConnectionListener) {
      connectedListeners.push(listener);
    },
    /** Called whenever a client's connection to a document has closed. */
    onDisconnected(listener: DisconnectionListener) {
      disconnectedListeners.push(listener);
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

    /**
     * After the caller's commit: every process drops its loaded copies of
     * these documents (deleted, or migrated to another ID) and closes their
     * connections; they are never saved again under the old ID.
     */
    evictAfterCommit(apiKeyId: string, organizationId: string, documentIds: readonly string[], movedTo?: string) {
      deps.uow.afterCommit(() => deps.fanout.publish({ kind: 'evict', apiKeyId, organizationId, documentIds: [...documentIds], ...(movedTo !== undefined ? { movedTo } : {}) }));
    },
    /** The same for every document of a deleted organization. */
    evictOrganizationAfterCommit(apiKeyId: string, organizationId: string) {
      deps.uow.afterCommit(() => deps.fanout.publish({ kind: 'evict', apiKeyId, organizationId, documentIds: null }));
    },

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
    recheckAccess,

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
      await Promise.allSettled([...queues.values()]);
      await Promise.all(
        [...apps.values()].map(async (app) => {
          app.persistence.stopping(SHUTDOWN_SAVE_GRACE_MS);
          await Promise.all([...app.direct.keys()].map((name) => releaseDirect(app, name)));
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
