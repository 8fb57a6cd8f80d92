import * as Y from 'yjs';
import { editorKeyOf } from '../../contract/crdt/document-name.js';
import type { Logger } from 'pino';
import type { UnitOfWork } from '../db/unit-of-work.js';
import type { CrdtStore } from '../domains/crdt/store.js';
import type { Fanout } from '../platform/fanout.js';
import type { AppRealtime } from './application.js';

/**
 * Deleted and migrated documents leave every process: once the change
 * commits, each process drops its loaded copies and closes their connections,
 * so they are never saved again under their old ID.
 */
export function createEviction(deps: {
  appOf(apiKeyId: string): AppRealtime | undefined;
  release(app: AppRealtime, name: string): Promise<void>;
  store: CrdtStore;
  uow: UnitOfWork;
  fanout: Fanout;
  log: Logger;
}) {
  /**
   * Drops loaded copies of these documents (all of the organization's for
   * null) from this process without saving them under their old ID. For a
   * migrated document, edits made since its last save go into the target
   * document's stored state, so none is lost.
   */
  async function evictLocal(apiKeyId: string, organizationId: string, documentIds: ReadonlySet<string> | null, movedTo: string | undefined) {
    const app = deps.appOf(apiKeyId);
    if (!app) return;
    for (const [name, document] of app.hocuspocus.documents) {
      const key = editorKeyOf(name);
      if (!key || key.organizationId !== organizationId || (documentIds !== null && !documentIds.has(key.documentId))) continue;
      if (movedTo !== undefined && app.persistence.isDirty(document)) {
        await deps.store.mergeIntoMoved(apiKeyId, { ...key, documentId: movedTo }, Y.encodeStateAsUpdate(document));
      }
      app.persistence.markGone(document);
      app.hocuspocus.closeConnections(name);
      await deps.release(app, name);
    }
  }

  deps.fanout.subscribe((message) => {
    const m = message as { kind?: string; apiKeyId?: string; organizationId?: string; documentIds?: string[] | null; movedTo?: string };
    if (m.kind !== 'evict' || typeof m.apiKeyId !== 'string' || typeof m.organizationId !== 'string') return;
    const documentIds = Array.isArray(m.documentIds) ? new Set(m.documentIds) : null;
    void evictLocal(m.apiKeyId, m.organizationId, documentIds, typeof m.movedTo === 'string' ? m.movedTo : undefined).catch((error) =>
      deps.log.error({ err: error }, 'dropping a deleted or migrated collaborative document failed'),
    );
  });

  return {
    evictAfterCommit(apiKeyId: string, organizationId: string, documentIds: readonly string[], movedTo?: string) {
      deps.uow.afterCommit(() => deps.fanout.publish({ kind: 'evict', apiKeyId, organizationId, documentIds: [...documentIds], ...(movedTo !== undefined ? { movedTo } : {}) }));
    },
    evictOrganizationAfterCommit(apiKeyId: string, organizationId: string) {
      deps.uow.afterCommit(() => deps.fanout.publish({ kind: 'evict', apiKeyId, organizationId, documentIds: null }));
    },
  };
}
