import { randomInt } from 'node:crypto';
import type { Document } from '@hocuspocus/server';
import * as encoding from 'lib0/encoding';
import type { Logger } from 'pino';
import { applyAwarenessUpdate } from 'y-protocols/awareness';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import type { Fanout } from '../../platform/fanout.js';
import type { DocumentKey } from '../../platform/owned-data.js';
import type { PresenceLiveDocuments } from './live-documents.js';
import type { PresenceRecord, PresenceRepo } from './repo.js';

/**
 * API presence entries as awareness states of the loaded editor documents:
 * Hocuspocus sends every awareness change to the document's connections (and
 * its Redis extension to other processes' copies), so clients see an entry
 * like any other client's state.
 *
 * Each state of an entry has a client ID of its own (the row's `clientId`, new
 * on every Add and Update). y-protocols applies a state only when its clock is
 * higher than the last one seen for that client ID, and clients drop a state
 * not renewed (with a higher clock) within 30 seconds. With one ID per state,
 * clocks only have to grow between renewals of that state, which real time in
 * seconds does on every process alike; a replaced or deleted state is retired
 * with the highest clock there is, so no late renewal or message delivered out
 * of order brings it back. A stable ID per user would need one counter that
 * every process, restart and delete-then-add agrees on.
 */

/** Clients drop a state after 30 s without renewal (y-protocols' outdatedTimeout); renewing at half that keeps it alive. */
export const RENEW_MS = 15_000;
/** How long a retired client ID's clock is remembered, past any renewal or message still in flight when it was retired. */
const RETIRED_KEEP_MS = 60_000;
/** The highest clock an awareness update can carry (32 bits, for clients whose awareness clock is 32-bit). */
const RETIRED_CLOCK = 0xffff_ffff;
const ORIGIN = 'presence';

/** A new client ID for an entry's state (31 bits, positive, like the IDs Yjs clients pick). */
export const newClientId = (): number => randomInt(1, 2 ** 31);

/**
 * The clock of live states: whole seconds of real time. Not the injected
 * clock: clients time states out by real time, so renewals must advance with
 * it, and every process must compute about the same value.
 */
const liveClock = (): number => Math.floor(Date.now() / 1000);

/** What clients see for an entry: the user, then the entry's state, and where it came from. */
export function awarenessStateOf(row: Pick<PresenceRecord, 'user' | 'state'>): Record<string, unknown> {
  return { user: row.user, ...row.state, source: 'api' };
}

interface StateChange {
  set: { clientId: number; state: Record<string, unknown> }[];
  retire: number[];
}

interface PresenceMessage extends DocumentKey, StateChange {
  kind: 'presence';
}

const isPresenceMessage = (message: unknown): message is PresenceMessage => {
  const m = message as Partial<PresenceMessage>;
  return (
    m.kind === 'presence' &&
    typeof m.apiKeyId === 'string' &&
    typeof m.organizationId === 'string' &&
    typeof m.documentId === 'string' &&
    Array.isArray(m.set) &&
    Array.isArray(m.retire)
  );
};

/** A y-protocols awareness update: the count, then per client its ID, clock and state as JSON (null: gone). */
function encodeAwarenessUpdate(entries: { clientId: number; clock: number; state: Record<string, unknown> | null }[]): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, entries.length);
  for (const entry of entries) {
    encoding.writeVarUint(encoder, entry.clientId);
    encoding.writeVarUint(encoder, entry.clock);
    encoding.writeVarString(encoder, JSON.stringify(entry.state));
  }
  return encoding.toUint8Array(encoder);
}

const stateChangeOf = (rows: readonly PresenceRecord[]): StateChange['set'] => rows.map((row) => ({ clientId: row.clientId, state: awarenessStateOf(row) }));

export function createPresenceAwareness(deps: { live: PresenceLiveDocuments; fanout: Fanout; repo: PresenceRepo; uow: UnitOfWork; log: Logger }) {
  const { live, log } = deps;
  /** Per loaded document: retired client IDs and when (real ms), so their clocks can be forgotten later. */
  const retired = new WeakMap<Document, Map<number, number>>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  function apply(document: Document, change: StateChange) {
    if (change.set.length === 0 && change.retire.length === 0) return;
    const clock = liveClock();
    const update = encodeAwarenessUpdate([
      ...change.retire.map((clientId) => ({ clientId, clock: RETIRED_CLOCK, state: null })),
      ...change.set.map(({ clientId, state }) => ({ clientId, clock, state })),
    ]);
    applyAwarenessUpdate(document.awareness, update, ORIGIN);
    if (change.retire.length > 0) {
      const ids = retired.get(document) ?? new Map<number, number>();
      for (const clientId of change.retire) ids.set(clientId, Date.now());
      retired.set(document, ids);
    }
  }

  function applyToLoaded(ref: DocumentKey, change: StateChange) {
    for (const { document } of live.documentsOf(ref.apiKeyId, ref.organizationId, ref.documentId)) apply(document, change);
  }

  /** Drops the remembered clocks of client IDs retired long ago (each retirement would otherwise stay in memory while the document is loaded). */
  function forgetRetired(document: Document) {
    const ids = retired.get(document);
    if (!ids) return;
    const before = Date.now() - RETIRED_KEEP_MS;
    for (const [clientId, at] of ids) {
      if (at > before) continue;
      ids.delete(clientId);
      if (!document.awareness.states.has(clientId) && document.awareness.meta.get(clientId)?.clock === RETIRED_CLOCK) document.awareness.meta.delete(clientId);
    }
  }

  /**
   * Applies every loaded document's entries again with a new clock, read from
   * the database: renewal keeps them alive on clients, and a change whose
   * fan-out message was lost (Redis pub/sub delivers at most once) is caught
   * up within one period.
   */
  async function renew() {
    const byApp = new Map<string, Map<string, { organizationId: string; documentId: string; documents: Document[] }>>();
    for (const { apiKeyId, key, document } of live.loadedDocuments()) {
      forgetRetired(document);
      const docs = byApp.get(apiKeyId) ?? new Map<string, { organizationId: string; documentId: string; documents: Document[] }>();
      byApp.set(apiKeyId, docs);
      const id = JSON.stringify([key.organizationId, key.documentId]);
      const entry = docs.get(id) ?? { organizationId: key.organizationId, documentId: key.documentId, documents: [] };
      entry.documents.push(document);
      docs.set(id, entry);
    }
    for (const [apiKeyId, docs] of byApp) {
      const byDocument = new Map<string, PresenceRecord[]>();
      for (const row of await deps.repo.listForDocuments(apiKeyId, [...docs.values()])) {
        const id = JSON.stringify([row.organizationId, row.documentId]);
        const group = byDocument.get(id);
        if (group) group.push(row);
        else byDocument.set(id, [row]);
      }
      for (const [id, rows] of byDocument) {
        for (const document of docs.get(id)?.documents ?? []) apply(document, { set: stateChangeOf(rows), retire: [] });
      }
    }
  }

  function schedule() {
    if (timer || stopped) return;
    timer = setTimeout(() => {
      void renew()
        .catch((error: unknown) => log.warn({ err: error }, 'renewing presence entries failed; trying again at the next period'))
        .finally(() => {
          timer = undefined;
          schedule();
        });
    }, RENEW_MS);
    timer.unref();
  }

  deps.fanout.subscribe((message) => {
    if (isPresenceMessage(message)) applyToLoaded(message, message);
  });

  live.onDocumentLoaded((apiKeyId, key, document) => {
    schedule();
    void deps.repo.list({ apiKeyId, organizationId: key.organizationId, documentId: key.documentId }).then(
      (rows) => apply(document, { set: stateChangeOf(rows), retire: [] }),
      (error: unknown) => log.error({ err: error }, 'applying presence entries to a loaded document failed'),
    );
  });

  live.onClose(() => {
    stopped = true;
    if (timer) clearTimeout(timer);
  });

  return {
    /** Once the caller's unit of work has committed, every process shows these entries' states and retires these client IDs. */
    publishAfterCommit(ref: DocumentKey, change: { set: readonly PresenceRecord[]; retire: readonly number[] }) {
      const message: PresenceMessage = {
        kind: 'presence',
        apiKeyId: ref.apiKeyId,
        organizationId: ref.organizationId,
        documentId: ref.documentId,
        set: stateChangeOf(change.set),
        retire: [...change.retire],
      };
      deps.uow.afterCommit(() => deps.fanout.publish(message));
    },
    /** Runs the periodic renewal now (tests). */
    renew,
  };
}

export type PresenceAwareness = ReturnType<typeof createPresenceAwareness>;
