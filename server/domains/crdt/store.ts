import * as Y from 'yjs';
import type { TUserRef } from '../../../contract/common/content.js';
import type { TCrdtType } from '../../../contract/crdt/crdt-data.js';
import type { EditorKey } from '../../../contract/crdt/document-name.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import type { Clock } from '../../lib/clock.js';
import type { EventBus } from '../../platform/events.js';
import type { AccessLookups } from '../access/lookups.js';
import type { EnsureHeldDocument } from '../access/open-document.js';
import type { DocumentsRepo } from '../access/repos/documents.js';
import type { CrdtRepo, CrdtRow } from './repo.js';

/** A change the REST operations store: the state they computed, and what they keep beside it. */
export interface RestChange {
  state: Uint8Array;
  /** undefined leaves it; null clears it. */
  restBase?: Uint8Array | null;
  restClientId?: number;
  meta?: { type: TCrdtType | null; contentKey: string | null };
}

/**
 * The stored editor documents, for everything that reads or writes them: the
 * REST operations and the live documents (the Hocuspocus extension and the
 * hub). The only CRDT code that uses the access core, and the only one on
 * the CRDT repo besides owned-data.ts (migration, deletion, erasure).
 *
 * Every write that changes content publishes `crdt.update_data` in the same
 * unit of work, whoever made it. Writes run inside the caller's unit of work
 * (the live side marks a version saved once it commits), except where a
 * method says it runs its own.
 */
export function createCrdtStore(deps: {
  repo: CrdtRepo;
  find: Pick<AccessLookups, 'organization' | 'document' | 'heldDocuments'>;
  documents: Pick<DocumentsRepo, 'holdDocuments'>;
  ensureHeldDocument: EnsureHeldDocument;
  uow: UnitOfWork;
  events: EventBus;
  clock: Clock;
}) {
  const { repo, find, documents } = deps;

  /** Stores a state and publishes its `crdt.update_data`; `editor` is the user the change is attributed to (none for REST writes). */
  async function write(apiKeyId: string, key: EditorKey, change: RestChange, editor: TUserRef | null, at = deps.clock.nowMs()): Promise<CrdtRow> {
    const row = await repo.save(apiKeyId, key, {
      state: change.state,
      ...(change.restBase !== undefined ? { restBase: change.restBase } : {}),
      ...(change.restClientId !== undefined ? { restClientId: change.restClientId } : {}),
      at: BigInt(at),
      updatedByUserId: editor?.userId ?? null,
      ...(change.meta ? { meta: change.meta } : {}),
    });
    await deps.events.publish({
      type: 'crdt.update_data',
      apiKeyId,
      organizationId: key.organizationId,
      documentId: key.documentId,
      ...(editor ? { actor: editor } : {}),
      payload: { editorId: key.editorId, type: (row.type as TCrdtType | null) ?? null, contentKey: row.contentKey, lastUpdated: at, updatedBy: editor },
    });
    return row;
  }

  return {
    /** The stored state of an editor document, to load it into memory (null: never saved). */
    load: (apiKeyId: string, key: EditorKey): Promise<Uint8Array | null> => repo.findState(apiKeyId, key),

    /** The editor's row as stored, without locking it. */
    find: (apiKeyId: string, key: EditorKey): Promise<CrdtRow | null> => repo.find(apiKeyId, key),

    /** Organization and document must exist before a document is loaded for them (NOT_FOUND otherwise). */
    async requireDocument(apiKeyId: string, key: EditorKey): Promise<void> {
      await find.organization(apiKeyId, key.organizationId);
      await find.document(apiKeyId, key.organizationId, key.documentId);
    },

    /** The editor's row, locked, after holding its document (NOT_FOUND when it is gone); with `create`, made when missing. */
    async lockedRow(apiKeyId: string, key: EditorKey, create = false): Promise<CrdtRow | null> {
      await find.heldDocuments(apiKeyId, key.organizationId, [key.documentId]);
      return repo.lockedRow(apiKeyId, key, create ? { at: BigInt(deps.clock.nowMs()) } : undefined);
    },

    /** A REST write: the state it computed on the locked row, stored with its `crdt.update_data` (no user: REST writes name none). */
    saveRest: (apiKeyId: string, key: EditorKey, change: RestChange): Promise<CrdtRow> => write(apiKeyId, key, change, null),

    /**
     * What a REST read (Get CRDT Data) leaves behind: the state it read merged
     * into the row and kept as the REST base. Not a change of content, so no
     * event, and the row keeps its last editor.
     */
    async saveRead(apiKeyId: string, key: EditorKey, row: CrdtRow, read: { state: Uint8Array; at: bigint }): Promise<void> {
      if (readIsStored(row, read)) return;
      await repo.save(apiKeyId, key, { state: Y.mergeUpdates([row.state, read.state]), restBase: read.state, at: read.at, updatedByUserId: row.updatedByUserId });
    },

    /**
     * Saves a live document: `update` (its whole state) merged into the stored
     * state, with its `crdt.update_data` attributed to `editor`. The document
     * is held like every content write (see documents.holdDocuments): when it
     * was deleted or migrated away, nothing is written back under its old ID
     * and the result is null.
     */
    async saveMerged(apiKeyId: string, key: EditorKey, update: Uint8Array, editor: TUserRef | null): Promise<CrdtRow | null> {
      const held = await documents.holdDocuments(apiKeyId, key.organizationId, [key.documentId]);
      if (!held.has(key.documentId)) return null;
      // The stored state is locked and merged, not overwritten: REST writes store their change before the
      // live document receives it, and other processes (REDIS_URL) save edits this one may not have yet.
      const at = deps.clock.nowMs();
      const stored = (await repo.lockedRow(apiKeyId, key, { at: BigInt(at) }))?.state;
      return write(apiKeyId, key, { state: stored ? Y.mergeUpdates([stored, update]) : update }, editor, at);
    },

    /**
     * Merges the unsaved edits of a document that was migrated away into the
     * target document's stored state (Yjs updates merge, so none is lost), in
     * a unit of work of its own. The stored attribution stays and no event is
     * published: the migration itself is the change.
     */
    async mergeIntoMoved(apiKeyId: string, target: EditorKey, unsaved: Uint8Array): Promise<void> {
      await deps.uow.run(async () => {
        const held = await documents.holdDocuments(apiKeyId, target.organizationId, [target.documentId]);
        if (!held.has(target.documentId)) return;
        const stored = await repo.lockedRow(apiKeyId, target, { at: BigInt(deps.clock.nowMs()) });
        await repo.save(apiKeyId, target, {
          state: stored ? Y.mergeUpdates([stored.state, unsaved]) : unsaved,
          at: BigInt(deps.clock.nowMs()),
          updatedByUserId: stored?.updatedByUserId ?? null,
        });
      });
    },

    /**
     * Opens a document for a connection the permission provider granted. No
     * grant created the organization and document here: a client app creates
     * them by opening them (as with comments), so that its edits can be saved.
     */
    async openForProviderConnection(apiKeyId: string, key: EditorKey): Promise<void> {
      await deps.uow.run(() => deps.ensureHeldDocument(apiKeyId, key.organizationId, key.documentId));
    },
  };
}

export type CrdtStore = ReturnType<typeof createCrdtStore>;

/**
 * Whether a REST read is what the row already keeps: its base is these bytes,
 * from the same save. Then the stored state holds them, and saving the read
 * would change nothing (every Get wrote its row before, so repeated reads
 * queued as writes).
 */
export function readIsStored(row: CrdtRow, read: { state: Uint8Array; at: bigint }): boolean {
  return row.restBase !== null && row.updatedAt === read.at && Buffer.from(row.restBase).equals(read.state);
}
