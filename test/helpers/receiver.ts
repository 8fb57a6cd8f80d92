import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request as a receiver saw it. */
export interface Received {
  method: string | undefined;
  path: string | undefined;
  headers: IncomingHttpHeaders;
  /** The body as UTF-8 text. */
  body: string;
  /** The body's exact bytes (what a signature must be checked against). */
  raw: Buffer;
  /** Date.now() when the request's headers arrived. */
  receivedAt: number;
  /** The sender's port of the connection (which process sent it, on a shared host). */
  remotePort: number | undefined;
}

const open: { server: Server; sockets: Set<Socket> }[] = [];

/**
 * A real HTTP receiver on 127.0.0.1, port 0, for what the server calls out to
 * (permission providers, webhooks): `handle` answers, `received` records.
 */
export async function startReceiver(handle: (req: Received, res: ServerResponse) => void, path = '/hook', options: { port?: number } = {}) {
  const received: Received[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const receivedAt = Date.now();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const entry = { method: req.method, path: req.url, headers: req.headers, body: raw.toString('utf8'), raw, receivedAt, remotePort: req.socket.remotePort };
      received.push(entry);
      handle(entry, res);
    });
  });
  // Tracked so a receiver that never answers can still be shut down.
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  open.push({ server, sockets });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}${path}`, port, received };
}

/** Closes every receiver started so far (for afterEach/afterAll). */
export async function closeReceivers(): Promise<void> {
  for (const { server, sockets } of open.splice(0)) {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
