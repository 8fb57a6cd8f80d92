import { HocuspocusProvider } from '@hocuspocus/provider';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { documentNameOf, type EditorKey } from '../../contract/crdt/document-name.js';

/** A Hocuspocus provider (what Tiptap's collaboration uses) in Node, on its own socket. */
export interface LiveEditor {
  provider: HocuspocusProvider;
  doc: Y.Doc;
  /** Resolves when the server authenticated and the first sync finished; rejects with the reason when authentication failed. */
  ready: Promise<void>;
  /** Resolves once every local change has been acknowledged by the server. */
  acknowledged(): Promise<void>;
  /** Resolves at the next permission-denied / close of this document by the server. */
  refused: Promise<string>;
  stateless: string[];
  close(): void;
}

/**
 * `ws` throws when a socket still connecting is closed; browsers' WebSocket
 * does not, and the provider relies on that when it retries or is destroyed
 * mid-connect. Close such a socket once it opens instead.
 */
export class NodeWebSocket extends WebSocket {
  override close(code?: number, reason?: string | Buffer): void {
    if (this.readyState === WebSocket.CONNECTING) {
      this.on('error', () => undefined);
      this.once('open', () => super.close(code, reason));
      return;
    }
    super.close(code, reason);
  }
}

export function liveUrl(httpUrl: string): string {
  return `${httpUrl.replace(/^http/, 'ws')}/crdt`;
}

export function connectEditor(httpUrl: string, key: EditorKey | string, token: string): LiveEditor {
  const doc = new Y.Doc();
  const stateless: string[] = [];
  let failed!: (reason: string) => void;
  const refused = new Promise<string>((resolve) => (failed = resolve));
  // WebSocketPolyfill reaches the provider's own socket (Node 20 has no global WebSocket); the type leaves it out.
  const provider = new HocuspocusProvider({
    url: liveUrl(httpUrl),
    name: typeof key === 'string' ? key : documentNameOf(key),
    document: doc,
    token,
    WebSocketPolyfill: NodeWebSocket as never,
    onStateless: ({ payload }) => void stateless.push(payload),
    onAuthenticationFailed: ({ reason }) => failed(`denied: ${reason}`),
    onClose: () => failed('closed'),
  } as ConstructorParameters<typeof HocuspocusProvider>[0]);
  const ready = new Promise<void>((resolve, reject) => {
    provider.on('synced', ({ state }: { state: boolean }) => state && resolve());
    void refused.then((reason) => reject(new Error(reason)));
  });
  ready.catch(() => undefined);
  return {
    provider,
    doc,
    ready,
    refused,
    stateless,
    acknowledged: () =>
      new Promise<void>((resolve) => {
        if (!provider.hasUnsyncedChanges) return resolve();
        const check = ({ number }: { number: number }) => {
          if (number === 0) {
            provider.off('unsyncedChanges', check);
            resolve();
          }
        };
        provider.on('unsyncedChanges', check);
      }),
    close: () => provider.destroy(),
  };
}

/** Resolves when `predicate(doc)` holds: checked now and after every update of the doc (no sleeps). */
export function until(doc: Y.Doc, predicate: (doc: Y.Doc) => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (predicate(doc)) return resolve();
    const check = () => {
      if (predicate(doc)) {
        doc.off('update', check);
        resolve();
      }
    };
    doc.on('update', check);
  });
}
