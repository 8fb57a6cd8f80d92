import type { Connection, Document } from '@hocuspocus/server';
import type { TUserRef } from '../../../contract/common/content.js';
import type { EditorKey } from '../../../contract/crdt/document-name.js';

/** What presence reads of a client's connection to an editor document (the connection's Hocuspocus `context`). */
export interface PresenceConnectionContext {
  apiKeyId: string;
  key: EditorKey;
  user: TUserRef;
}

/**
 * The editor documents loaded in this process and their connections, as
 * presence needs them: to show API entries as awareness states (awareness.ts)
 * and to list the users connected over WebSocket (connected-users.ts). The
 * real-time hub provides them (services.ts passes it in), so the domain never
 * depends on the real-time layer: it depends on the domain.
 */
export interface PresenceLiveDocuments {
  /** This process's ID, under which it reports its connected users to the presence directory. */
  readonly processId: string;
  /** The loaded documents of every editor of a document, in this process. */
  documentsOf(apiKeyId: string, organizationId: string, documentId: string): { document: Document }[];
  /** Every document loaded in this process, with its application and editor key. */
  loadedDocuments(): Iterable<{ apiKeyId: string; key: EditorKey; document: Document }>;
  /** Called whenever a document is loaded into this process. */
  onDocumentLoaded(listener: (apiKeyId: string, key: EditorKey, document: Document) => void): void;
  /** Called whenever a client's connection to a document is set up. */
  onConnected(listener: (context: PresenceConnectionContext, connection: Connection) => void): void;
  /** Called whenever a client's connection to a document has closed. */
  onDisconnected(listener: (context: PresenceConnectionContext) => void): void;
  /** Called first when the live documents close, and awaited (timers to stop, shared state to withdraw). */
  onClose(listener: () => Promise<void> | void): void;
}
