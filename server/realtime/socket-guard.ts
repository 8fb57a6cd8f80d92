import * as decoding from 'lib0/decoding';
import type { RawData, WebSocket } from 'ws';

/** Hocuspocus's message type of the authentication message. */
export const AUTH_MESSAGE = 2;

export interface SocketLimits {
  /** Document names one socket may authenticate (or try to). */
  maxDocuments: number;
  /** Bytes a socket may send for documents that are not (or not yet) authenticated. */
  maxUnauthenticatedBytes: number;
  /** A socket with no authenticated document for this long is closed. */
  idleMs: number;
}

/** What the Hocuspocus hooks tell the guard about the documents of its socket. */
export interface SocketGuard {
  authenticated(documentName: string): void;
  refused(documentName: string): void;
  disconnected(documentName: string): void;
}

/** `<documentName> <type>` at the start of every Hocuspocus message, and the decoder positioned after them; null when malformed. */
export function readHeader(data: Uint8Array): { documentName: string; type: number; decoder: decoding.Decoder } | null {
  try {
    const decoder = decoding.createDecoder(data);
    return { documentName: decoding.readVarString(decoder), type: decoding.readVarUint(decoder), decoder };
  } catch {
    return null;
  }
}

export function bytesOf(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  return data instanceof ArrayBuffer ? new Uint8Array(data) : data;
}

/**
 * Bounds what one socket can make the server hold. Hocuspocus queues every
 * message for a document until it is authenticated, and keeps queueing for a
 * refused one, for as long as the socket lives (ping/pong keeps it alive).
 * The guard sees each message before Hocuspocus does and closes the socket
 * when it names too many documents, sends too much for documents that are not
 * authenticated, or keeps no authenticated document open.
 */
export function guardSocket(ws: WebSocket, limits: SocketLimits): SocketGuard {
  const named = new Set<string>();
  const authenticated = new Set<string>();
  let unauthenticatedBytes = 0;
  let authAttempts = 0;
  let idleSince: number | null = performance.now();

  const close = (code: number, reason: string) => {
    if (ws.readyState === ws.OPEN) ws.close(code, reason);
  };

  ws.on('message', (data: RawData) => {
    const bytes = bytesOf(data);
    const header = readHeader(bytes);
    if (!header) return close(1008, 'malformed message');
    if (header.type === AUTH_MESSAGE) {
      authAttempts += 1;
      if (!named.has(header.documentName) && named.size >= limits.maxDocuments) return close(1008, 'too many documents on one connection');
      if (authAttempts > limits.maxDocuments * 4) return close(1008, 'too many authentication attempts');
      named.add(header.documentName);
      return;
    }
    if (authenticated.has(header.documentName)) return;
    unauthenticatedBytes += bytes.byteLength;
    if (unauthenticatedBytes > limits.maxUnauthenticatedBytes) close(1008, 'too much data for documents that are not authenticated');
  });

  const idleCheck = setInterval(() => {
    if (idleSince !== null && performance.now() - idleSince >= limits.idleMs) close(4401, 'Unauthorized');
  }, Math.max(100, Math.floor(limits.idleMs / 2)));
  idleCheck.unref();
  ws.once('close', () => clearInterval(idleCheck));

  return {
    authenticated(documentName) {
      authenticated.add(documentName);
      idleSince = null;
    },
    refused(documentName) {
      authenticated.delete(documentName);
      if (authenticated.size === 0) idleSince ??= performance.now();
    },
    disconnected(documentName) {
      authenticated.delete(documentName);
      if (authenticated.size === 0) idleSince ??= performance.now();
    },
  };
}
