import type { Connection, Document } from '@hocuspocus/server';
import type { Logger } from 'pino';
import type { WebSocket } from 'ws';
import type { Clock } from '../../lib/clock.js';
import type { DocumentKey } from '../../platform/owned-data.js';
import type { PresenceDirectory, ReportedUser } from '../../platform/presence-directory.js';
import { RENEW_MS } from './awareness.js';
import type { PresenceConnectionContext, PresenceLiveDocuments } from './live-documents.js';

/** Cursor moves change awareness states many times a second: other processes see them at most this often. */
export const AWARENESS_REPORT_MS = 1000;

const idOf = (ref: DocumentKey) => JSON.stringify([ref.apiKeyId, ref.organizationId, ref.documentId]);

/** A client's awareness state as a plain JSON object (a client may send any JSON; `__proto__` would become a prototype when read back). */
function plainState(state: unknown): Record<string, unknown> {
  if (typeof state !== 'object' || state === null || Array.isArray(state)) return {};
  return Object.fromEntries(Object.entries(state).filter(([key]) => key !== '__proto__'));
}

/** The awareness state of the connection's client, `{}` when it has set none. */
function stateOf(document: Document, connection: Connection): Record<string, unknown> {
  for (const clientId of document.getClients(connection.webSocket)) {
    const state: unknown = document.awareness.getStates().get(clientId as number);
    if (state) return plainState(state);
  }
  return {};
}

/**
 * The users connected over WebSocket to each document: read from this
 * process's connections, and with a shared directory (REDIS_URL) reported
 * there for the other processes. A document's report is written when a
 * connection is set up or closes, at most every AWARENESS_REPORT_MS while
 * awareness states change, and renewed every RENEW_MS; the directory lets it
 * expire when a process stops renewing (see platform/presence-directory.ts).
 */
export function createConnectedUsers(deps: { live: PresenceLiveDocuments; directory: PresenceDirectory; clock: Clock; log: Logger }) {
  const { live, directory, log } = deps;
  /** When each connection was set up or its client's awareness state last changed (injected clock). */
  const seenAt = new WeakMap<Connection, number>();
  const pending = new Map<string, { timer: NodeJS.Timeout; due: number }>();
  /** Documents with a report in the directory, to renew and to withdraw at shutdown. */
  const reported = new Map<string, DocumentKey>();
  const inFlight = new Set<Promise<void>>();
  let renewTimer: NodeJS.Timeout | undefined;
  let stopped = false;

  /** This process's users of the document, one entry per user: their most recently active connection. */
  function local(ref: DocumentKey): ReportedUser[] {
    const byUser = new Map<string, ReportedUser>();
    for (const { document } of live.documentsOf(ref.apiKeyId, ref.organizationId, ref.documentId)) {
      for (const connection of document.getConnections()) {
        const { user } = connection.context as PresenceConnectionContext;
        const candidate = { user, state: stateOf(document, connection), lastUpdated: seenAt.get(connection) ?? 0 };
        const known = byUser.get(user.userId);
        if (!known || candidate.lastUpdated > known.lastUpdated) byUser.set(user.userId, candidate);
      }
    }
    return [...byUser.values()];
  }

  function report(ref: DocumentKey) {
    const users = local(ref);
    if (users.length > 0) reported.set(idOf(ref), ref);
    else reported.delete(idOf(ref));
    const sent = directory
      .report(live.processId, ref, users)
      .catch((error: unknown) => log.warn({ err: error }, 'reporting connected users to the presence directory failed; retrying at the next renewal'))
      .finally(() => inFlight.delete(sent));
    inFlight.add(sent);
  }

  /** Reports the document within `delayMs` (sooner if a report is already due sooner). */
  function changed(ref: DocumentKey, delayMs: number) {
    if (!directory.shared || stopped) return;
    const id = idOf(ref);
    const due = Date.now() + delayMs;
    const waiting = pending.get(id);
    if (waiting && waiting.due <= due) return;
    if (waiting) clearTimeout(waiting.timer);
    const timer = setTimeout(() => {
      pending.delete(id);
      if (!stopped) report(ref);
    }, delayMs);
    timer.unref();
    pending.set(id, { timer, due });
    scheduleRenewal();
  }

  function scheduleRenewal() {
    if (renewTimer || stopped) return;
    renewTimer = setTimeout(() => {
      renewTimer = undefined;
      if (stopped) return;
      for (const ref of reported.values()) report(ref);
      if (reported.size > 0) scheduleRenewal();
    }, RENEW_MS);
    renewTimer.unref();
  }

  const refOf = (context: PresenceConnectionContext): DocumentKey => ({ apiKeyId: context.apiKeyId, organizationId: context.key.organizationId, documentId: context.key.documentId });

  live.onConnected((context, connection) => {
    seenAt.set(connection, deps.clock.nowMs());
    changed(refOf(context), 0);
  });
  live.onDisconnected((context) => changed(refOf(context), 0));
  live.onDocumentLoaded((apiKeyId, key, document) => {
    document.awareness.on('change', (_changes: unknown, origin: unknown) => {
      // Clients' updates carry their socket as origin; API entries ('presence') and timeouts are no user's activity.
      const connection = document.connections.get(origin as WebSocket)?.connection;
      if (!connection) return;
      seenAt.set(connection, deps.clock.nowMs());
      changed({ apiKeyId, organizationId: key.organizationId, documentId: key.documentId }, AWARENESS_REPORT_MS);
    });
  });

  live.onClose(async () => {
    stopped = true;
    if (renewTimer) clearTimeout(renewTimer);
    for (const { timer } of pending.values()) clearTimeout(timer);
    pending.clear();
    await Promise.allSettled(inFlight);
    // Withdrawn at once rather than left to expire: this process's users are about to be disconnected.
    await Promise.allSettled([...reported.values()].map((ref) => directory.report(live.processId, ref, [])));
    reported.clear();
  });

  return {
    /**
     * The connected users of the document on every process, one entry per
     * user (the most recently active, where a user is connected to several).
     */
    async of(ref: DocumentKey): Promise<ReportedUser[]> {
      const byUser = new Map<string, ReportedUser>();
      const all = [...local(ref), ...(directory.shared ? await directory.othersOf(live.processId, ref) : [])];
      for (const entry of all) {
        const known = byUser.get(entry.user.userId);
        if (!known || entry.lastUpdated > known.lastUpdated) byUser.set(entry.user.userId, { ...entry, state: plainState(entry.state) });
      }
      return [...byUser.values()];
    },
    /** Resolves once every report due now has been written (tests: another process reads them next). */
    async settled(): Promise<void> {
      for (const [id, { timer }] of pending) {
        clearTimeout(timer);
        pending.delete(id);
        const ref = JSON.parse(id) as [string, string, string];
        report({ apiKeyId: ref[0], organizationId: ref[1], documentId: ref[2] });
      }
      await Promise.allSettled(inFlight);
    },
  };
}

export type ConnectedUsers = ReturnType<typeof createConnectedUsers>;
