import type { Document } from '@hocuspocus/server';
import { documentNameOf, type EditorKey } from '../../contract/crdt/document-name.js';
import type { UnitOfWork } from '../db/unit-of-work.js';
import type { LiveDocument } from '../domains/crdt/live-documents.js';
import type { AppRealtime } from './application.js';

/** The origin of changes the REST operations make (no user: Yjs and the save record none). */
const REST_ORIGIN = Symbol('rest');

/**
 * The live documents the REST operations work on: opened through a direct
 * connection (loaded from the store when nobody has them open), kept open
 * `restIdleMs` after their last use, and worked on one operation at a time
 * per document.
 */
export function createRestDocuments(deps: {
  appFor(apiKeyId: string): AppRealtime;
  uow: UnitOfWork;
  restIdleMs: number;
  /** Runs work outside the calling request's async context (see hub.ts). */
  detached<T>(work: () => T): T;
}) {
  const { detached } = deps;
  const queues = new Map<string, Promise<unknown>>();

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

  async function release(app: AppRealtime, name: string) {
    const entry = app.direct.get(name);
    if (!entry) return;
    app.direct.delete(name);
    if (entry.timer) clearTimeout(entry.timer);
    const connection = await entry.connection.catch(() => undefined);
    await connection?.disconnect();
  }

  return {
    /**
     * Runs `work` on the live document of an editor. With REDIS_URL, `work`
     * starts once the document holds every edit the other processes had when
     * it was called (see peer-sync.ts). `live.applyAfterCommit` hands a stored
     * change to the live document, from where connected clients (on every
     * process) receive it.
     */
    async withDocument<T>(apiKeyId: string, key: EditorKey, work: (document: Document, live: LiveDocument) => Promise<T>): Promise<T> {
      const name = documentNameOf(key);
      return serialized(`${apiKeyId}\u0000${name}`, async () => {
        const app = deps.appFor(apiKeyId);
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
            held.timer = detached(() => setTimeout(() => void release(app, name), deps.restIdleMs));
            held.timer.unref();
          }
        }
      });
    },

    /** Closes the REST operations' direct connection to a document, if they hold one. */
    release,

    /** Resolves once every REST operation started so far has finished. */
    async settled(): Promise<void> {
      await Promise.allSettled([...queues.values()]);
    },
  };
}

export type RestDocuments = ReturnType<typeof createRestDocuments>;
