import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let credentials = '';
beforeAll(async () => {
  // A short headers timeout so the slow-client case answers quickly.
  server = await startTestServer({ HTTP_HEADERS_TIMEOUT_MS: '300', HTTP_REQUEST_TIMEOUT_MS: '300', HTTP_KEEP_ALIVE_TIMEOUT_MS: '200' });
  const ws = await server.workspace();
  credentials = `x-service-api-key: ${ws.apiKey}\r\nx-service-auth-token: ${ws.authToken}\r\n`;
});
afterAll(() => server?.close());

function open(): Promise<Socket> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Everything the server sends until it closes the connection. */
function readAll(socket: Socket): Promise<string> {
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  return new Promise((resolve) => socket.once('close', () => resolve(text)));
}

/** Sends raw bytes and parses the one response the server answers with before closing. */
async function exchange(raw: string, keepOpen = false): Promise<{ status: number; headers: string; body: any }> {
  const socket = await open();
  const answer = readAll(socket);
  if (keepOpen) socket.write(raw);
  else socket.end(raw);
  const text = await answer;
  const [head = '', body = ''] = text.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body: body === '' ? body : JSON.parse(body) };
}

const POST = 'POST /v2/workspace/activityconfig/get HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n';

describe("requests Node's HTTP parser refuses get the error envelope", () => {
  it('malformed chunked encoding: 400', async () => {
    const res = await exchange(`${POST}Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`);
    expect(res.status).toBe(400);
    expect(res.headers).toContain('content-type: application/json');
    expect(res.body).toEqual({ error: { status: 'INVALID_ARGUMENT', message: 'the chunked request body is malformed' } });
  });

  it('oversize headers: 431', async () => {
    const res = await exchange(`${POST}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(res.status).toBe(431);
    expect(res.body.error).toEqual({ status: 'INVALID_ARGUMENT', message: 'the request headers are too large' });
  });

  it('a request line that is not HTTP: 400', async () => {
    const res = await exchange('HELLO WORLD\r\n\r\n');
    expect(res.status).toBe(400);
    expect(res.body.error.status).toBe('INVALID_ARGUMENT');
  });

  it('conflicting Content-Length and Transfer-Encoding: 400', async () => {
    const res = await exchange(`${POST}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`);
    expect(res.status).toBe(400);
    expect(res.body.error.status).toBe('INVALID_ARGUMENT');
  });
});

describe('server timeouts (HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS, HTTP_KEEP_ALIVE_TIMEOUT_MS)', () => {
  it('a client that never finishes its headers gets 408 and the socket is closed', async () => {
    const res = await exchange('POST /v2/workspace/activityconfig/get HTTP/1.1\r\nHost: x\r\n', true);
    expect(res.status).toBe(408);
    expect(res.body.error.message).toMatch(/did not arrive in time/);
  });

  it('a client that never finishes its body gets 408', async () => {
    const res = await exchange(`${POST}${credentials}Content-Length: 100\r\n\r\n{"data":`, true);
    expect(res.status).toBe(408);
  });

  it('a request refused before its body is read gets one answer, and the connection closes', async () => {
    const socket = await open();
    const answer = readAll(socket);
    socket.write(`${POST}Content-Length: 100\r\n\r\n{"data":`);
    // Resolves only because the server closes the connection after the one 401.
    const text = await answer;
    expect(text.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect(text).toMatch(/^HTTP\/1\.1 401/);
    expect(text.toLowerCase()).toContain('connection: close');
  });

  it('an idle keep-alive connection is closed by the server', async () => {
    const socket = await open();
    const answer = readAll(socket);
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    // Resolves only because the server closes the idle connection.
    expect(await answer).toMatch(/^HTTP\/1\.1 200/);
  });
});
