import type { Document, Extension, onLoadDocumentPayload, onStoreDocumentPayload } from '@hocuspocus/server';
import type { Logger } from 'pino';
import * as Y from 'yjs';
import type { TUserRef } from '../../contract/common/content.js';
import type { UnitOfWork } from '../db/unit-of-work.js';
import type { DocumentsRepo } from '../domains/access/repos/documents.js';
import type { CrdtRepo, CrdtRow } from '../domains/crdt/repo.js';
import type { Clock } from '../lib/clock.js';
import type { EventBus } from '../platform/events.js';
import { editorKeyOf, type EditorKey } from '../../contract/crdt/document-name.js';

/** The origin of updates applied while loading a document from the database: they are not changes. */
const LOADED = Symbol('loaded from the database');

/**
 * What the saver knows of one loaded document: a version that every change
 * bumps, the version last committed to the database, and the last user whose
 * change is not saved yet.
 */
interface SaveState {
  version: number;
  savedVersion: number;
  editor: TUserRef | null;
  /** The document no longer exists (deleted or migrated away): never saved again. */
  gone: boolean;
}

export interface SaveOptions {
  /** First retry delay of a failed save; doubles up to maxRetryDelayMs. */
  retryDelayMs: number;
  maxRetryDelayMs: number;
}

/** Who made a change: the connection's authenticated user (set by the auth hook), else nobody. */
function editorOf(origin: unknown): TUserRef | null {
  const context = (origin as { context?: { user?: TUserRef } } | null)?.context;
  return context?.user ?? null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Keeps one application's editor documents in the database: loaded from
 * their one compacted update, saved (debounced by Hocuspocus, and at once when
 * the last client leaves) as one new compacted update, with a
 * `crdt.update_data` event in the same transaction.
 *
 * A save that fails is retried with backoff for as long as it takes: while it
 * retries, Hocuspocus's save lock keeps the document in memory, so the edits
 * stay there (and keep syncing) instead of being dropped with the document.
 * A save finds the document held like every content write (see
 * DocumentsRepo.holdDocuments): when the document was deleted or migrated away,
 * nothing is written back under its old ID.
 */
export function createPersistence(deps: {
  apiKeyId: string;
  repo: CrdtRepo;
  documents: Pick<DocumentsRepo, 'holdDocuments'>;
  uow: UnitOfWork;
  events: EventBus;
  clock: Clock;
  log: Logger;
  options: SaveOptions;
  /** Called when a save finds the document gone, to close its connections. */
  onGone(documentName: string): void;
}) {
  const states = new WeakMap<Y.Doc, SaveState>();
  /** Set when the process stops (monotonic ms, not the domain clock): failing saves give up past it. */
  let stopDeadline: number | undefined;

  function track(document: Y.Doc): SaveState {
    let state = states.get(document);
    if (!state) {
      state = { version: 0, savedVersion: 0, editor: null, gone: false };
      states.set(document, state);
      const tracked = state;
      document.on('update', (_update: Uint8Array, origin: unknown) => {
        if (origin === LOADED) return;
        tracked.version += 1;
        tracked.editor = editorOf(origin) ?? tracked.editor;
      });
    }
    return state;
  }

  /**
   * Writes the document's state inside the caller's unit of work; the state
   * counts as saved once that commits. Returns the stored row, or null when
   * the document is gone.
   */
  async function saveInUnitOfWork(key: EditorKey, document: Y.Doc): Promise<CrdtRow | null> {
    const state = track(document);
    if (state.gone) return null;
    const held = await deps.documents.holdDocuments(deps.apiKeyId, key.organizationId, [key.documentId]);
    if (!held.has(key.documentId)) {
      state.gone = true;
      return null;
    }
    const version = state.version;
    const editor = state.editor;
    const at = deps.clock.nowMs();
    // The stored state is locked and merged, not overwritten: REST writes store their change before the
    // live document receives it, and other processes (REDIS_URL) save edits this one may not have yet.
    const stored = (await deps.repo.lockedRow(deps.apiKeyId, key, { at: BigInt(at) }))?.state;
    const own = Y.encodeStateAsUpdate(document);
    const row = await deps.repo.save(deps.apiKeyId, key, {
      state: stored ? Y.mergeUpdates([stored, own]) : own,
      at: BigInt(at),
      updatedByUserId: editor?.userId ?? null,
    });
    await deps.events.publish({
      type: 'crdt.update_data',
      apiKeyId: deps.apiKeyId,
      organizationId: key.organizationId,
      documentId: key.documentId,
      ...(editor ? { actor: editor } : {}),
      payload: { editorId: key.editorId, type: (row.type as never) ?? null, contentKey: row.contentKey, lastUpdated: at, updatedBy: editor },
    });
    deps.uow.afterCommit(() => {
      state.savedVersion = Math.max(state.savedVersion, version);
      if (state.version === version) state.editor = null;
    });
    return row;
  }

  async function saveWithRetry(name: string, key: EditorKey, document: Document): Promise<void> {
    const state = track(document);
    let delay = deps.options.retryDelayMs;
    for (let attempt = 1; ; attempt += 1) {
      if (state.gone || state.version === state.savedVersion) return;
      try {
        await deps.uow.run(() => saveInUnitOfWork(key, document));
        if (state.gone) deps.onGone(name);
        return;
      } catch (error) {
        // The document stays in memory (the save lock is held) until a save succeeds; at shutdown, until the deadline.
        deps.log.error({ err: error, documentName: name, attempt }, 'saving a collaborative document failed; retrying');
        if (stopDeadline !== undefined && performance.now() + delay > stopDeadline) {
          deps.log.error({ documentName: name }, 'collaborative document not saved at shutdown: its unsaved edits are lost');
          return;
        }
        await sleep(delay);
        delay = Math.min(delay * 2, deps.options.maxRetryDelayMs);
      }
    }
  }

  /**
   * One save at a time per document: while one retries, Hocuspocus keeps
   * asking (every maxDebounce); those calls wait for it and then find the
   * version saved, instead of queueing attempts of their own.
   */
  const inFlight = new WeakMap<Y.Doc, Promise<void>>();
  function save(name: string, key: EditorKey, document: Document): Promise<void> {
    const running = inFlight.get(document);
    if (running) return running;
    const saving = saveWithRetry(name, key, document).finally(() => inFlight.delete(document));
    inFlight.set(document, saving);
    return saving;
  }

  const extension: Extension = {
    extensionName: 'collab-persistence',
    async onLoadDocument({ documentName, document }: onLoadDocumentPayload) {
      const key = editorKeyOf(documentName);
      if (!key) throw new Error('invalid document name');
      const stored = await deps.repo.findState(deps.apiKeyId, key);
      if (stored) Y.applyUpdate(document, stored, LOADED);
      track(document);
    },
    async onStoreDocument({ documentName, document }: onStoreDocumentPayload) {
      const key = editorKeyOf(documentName);
      if (key) await save(documentName, key, document);
    },
  };

  return {
    extension,
    saveInUnitOfWork,
    /** Whether the document has changes not committed yet (also when it is gone: a migration merges them into the target). */
    isDirty: (document: Y.Doc) => {
      const state = states.get(document);
      return state !== undefined && state.version !== state.savedVersion;
    },
    /** Whether a save would write something: unsaved changes of a document that still exists. */
    needsSave: (document: Y.Doc) => {
      const state = states.get(document);
      return state !== undefined && state.version !== state.savedVersion && !state.gone;
    },
    /** Marks a document as gone (deleted or migrated): it is never saved again. */
    markGone(document: Y.Doc) {
      track(document).gone = true;
    },
    /** The process is stopping: failing saves give up after `graceMs`. */
    stopping(graceMs: number) {
      stopDeadline = performance.now() + graceMs;
    },
    /**
     * Applies a change that is already committed to the database (REST
     * writes): connected clients receive it, and it does not count as unsaved.
     */
    applyCommitted(document: Y.Doc, update: Uint8Array, origin: unknown) {
      const state = track(document);
      const clean = state.version === state.savedVersion;
      Y.applyUpdate(document, update, origin);
      if (clean) state.savedVersion = state.version;
    },
  };
}

export type Persistence = ReturnType<typeof createPersistence>;
