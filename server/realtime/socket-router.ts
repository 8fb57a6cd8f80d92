import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { OutgoingMessage } from '@hocuspocus/server';
import * as decoding from 'lib0/decoding';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { AUTH_MESSAGE, bytesOf, readHeader } from './socket-guard.js';

export interface FirstAuth {
  documentName: string;
  token: string;
}

/**
 * Where a socket goes once its first authentication message names the
 * application (by its token): a handler taking over the socket, or the
 * reason to refuse this document.
 */
export type Route = { accept(ws: WebSocket, request: IncomingMessage, replay: RawData[]): void } | { refuse: string };

/** Reads `<documentName> AUTH <subtype> <token>`; null for anything else. */
function readAuth(data: Uint8Array): FirstAuth | null {
  const header = readHeader(data);
  if (!header || header.type !== AUTH_MESSAGE) return null;
  try {
    decoding.readVarUint(header.decoder);
    return { documentName: header.documentName, token: decoding.readVarString(header.decoder) };
  } catch {
    return null;
  }
}

/**
 * Serves WebSocket upgrades on `path` of the HTTP server. A socket's
 * application is only known from the token of its first authentication
 * message (the Hocuspocus protocol sends the token after the socket opens),
 * so messages are held until `route` decides, then replayed to the
 * application's Hocuspocus instance. A refused document gets Hocuspocus's
 * permission-denied answer and the socket stays open for others, as
 * Hocuspocus itself does; a socket that authenticates nothing within
 * `authTimeoutMs` is closed.
 */
export function attachSocketRouter(
  server: Server,
  options: {
    path: string;
    maxPayloadBytes: number;
    /** Bytes held for a socket while its first authentication is decided. */
    maxPendingBytes: number;
    authTimeoutMs: number;
    route(auth: FirstAuth): Promise<Route>;
    accepting(): boolean;
  },
) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayloadBytes });
  const pending = new Set<WebSocket>();
  const accepted = new Set<WebSocket>();

  function answer(socket: Duplex, status: string) {
    socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  }

  function onUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer) {
    let path: string;
    try {
      path = new URL(request.url ?? '/', 'http://localhost').pathname;
    } catch {
      return answer(socket, '400 Bad Request');
    }
    if (path !== options.path) return answer(socket, '404 Not Found');
    if (!options.accepting()) return answer(socket, '503 Service Unavailable');
    wss.handleUpgrade(request, socket, head, (ws) => hold(ws, request));
  }

  function hold(ws: WebSocket, request: IncomingMessage) {
    pending.add(ws);
    const queue: RawData[] = [];
    let queuedBytes = 0;
    let routing = false;
    const timer = setTimeout(() => ws.close(4401, 'Unauthorized'), options.authTimeoutMs);
    const release = () => {
      clearTimeout(timer);
      pending.delete(ws);
      ws.off('message', onMessage);
    };
    ws.on('error', () => ws.terminate());
    ws.once('close', release);

    async function next() {
      while (!routing && queue.length > 0) {
        const auth = readAuth(bytesOf(queue[0]!));
        if (!auth) {
          // Only an authentication message can come first; anything else is dropped until one does.
          queuedBytes -= bytesOf(queue.shift()!).byteLength;
          continue;
        }
        routing = true;
        let route: Route;
        try {
          route = await options.route(auth);
        } catch {
          route = { refuse: 'permission-denied' };
        }
        routing = false;
        if (ws.readyState !== ws.OPEN) return;
        if ('refuse' in route) {
          queuedBytes -= bytesOf(queue.shift()!).byteLength;
          ws.send(new OutgoingMessage(auth.documentName).writePermissionDenied(route.refuse).toUint8Array());
          continue;
        }
        release();
        accepted.add(ws);
        ws.once('close', () => accepted.delete(ws));
        route.accept(ws, request, queue.splice(0));
        return;
      }
    }

    let attempts = 0;
    function onMessage(data: RawData) {
      queue.push(data);
      queuedBytes += bytesOf(data).byteLength;
      if (queue.length > 100 || queuedBytes > options.maxPendingBytes) return ws.close(1008, 'too much data before authentication');
      if (readAuth(bytesOf(data)) && ++attempts > 20) return ws.close(1008, 'too many authentication attempts');
      void next();
    }
    ws.on('message', onMessage);
  }

  server.on('upgrade', onUpgrade);
  return {
    /** Stops taking sockets and closes those still waiting to authenticate. */
    stopAccepting() {
      server.off('upgrade', onUpgrade);
      for (const ws of pending) ws.close(1001, 'server shutting down');
    },
    /** Closes every socket (the HTTP server's close() waits for upgraded sockets); resolves when all are closed. */
    async closeAll() {
      const sockets = [...accepted, ...pending];
      await Promise.all(
        sockets.map(
          (ws) =>
            new Promise<void>((resolve) => {
              if (ws.readyState === ws.CLOSED) return resolve();
              ws.once('close', () => resolve());
              ws.close(1001, 'server shutting down');
              // A peer that never answers the close handshake is cut off.
              setTimeout(() => ws.terminate(), 2000).unref();
            }),
        ),
      );
      wss.close();
    },
  };
}
