import type * as Y from 'yjs';
import type { EditorKey } from '../../../contract/crdt/document-name.js';

/** What a REST operation may do to the live document it runs on. */
export interface LiveDocument {
  /** Whether clients changed the document since it was last saved. */
  unsaved(): boolean;
  /** Once the caller's unit of work commits, applies this (already stored) update: connected clients receive it. */
  applyAfterCommit(update: Uint8Array): void;
}

/**
 * The documents clients have open, as the CRDT domain needs them. The
 * real-time hub provides them (services.ts passes it in), so the domain
 * never depends on the real-time layer: it depends on the domain.
 */
export interface LiveDocuments {
  /**
   * Runs `work` on the live copy of an editor document (loaded from the
   * store when nobody has it open, and caught up with every process that has
   * it); REST operations on one document run one after the other.
   */
  withDocument<T>(apiKeyId: string, key: EditorKey, work: (document: Y.Doc, live: LiveDocument) => Promise<T>): Promise<T>;
  /**
   * After the caller's commit: every process drops its loaded copies of these
   * documents (deleted, or migrated to `movedTo`) and closes their
   * connections; they are never saved again under the old ID.
   */
  evictAfterCommit(apiKeyId: string, organizationId: string, documentIds: readonly string[], movedTo?: string): void;
  /** The same for every document of a deleted organization. */
  evictOrganizationAfterCommit(apiKeyId: string, organizationId: string): void;
}
