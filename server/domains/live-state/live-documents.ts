import type { Connection, Document } from '@hocuspocus/server';
import type { EditorKey } from '../../../contract/crdt/document-name.js';

/**
 * The editor documents loaded in this process and their connections, as live
 * state needs them: to send broadcasts and stored values to connected clients
 * (delivery.ts). The real-time hub provides them (services.ts passes it in),
 * so the domain never depends on the real-time layer: it depends on the domain.
 */
export interface LiveStateLiveDocuments {
  /** The loaded documents of every editor of a document, in this process. */
  documentsOf(apiKeyId: string, organizationId: string, documentId: string): { document: Document }[];
  /** Called whenever a client's connection to a document is set up. */
  onConnected(listener: (context: { apiKeyId: string; key: EditorKey }, connection: Connection) => void): void;
}
