// A permission provider (the customer's HTTP endpoint that Get Permissions
// and Generate Token ask when usePermissionProvider is on) that answers
// garbage. Whatever it sends, the caller gets UNAVAILABLE (503) with a reason,
// never a grant, never INTERNAL, and neither the answer nor the logs carry
// the provider's auth token. Real sockets only: an HTTP provider on loopback
// and, for the connection reset, a bare TCP one.
import type { ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../sdk/index.js';
import { memoryLogger } from '../helpers/log-capture.js';
import { closeReceivers, startReceiver, type Received } from '../helpers/receiver.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';

const AUTH_TOKEN = `pp-token-${Math.random().toString(36).slice(2)}-do-not-leak`;
const held: ServerResponse[] = [];
const sockets = new Set<Socket>();

describe('a permission provider that answers garbage', () => {
  let server: TestServer;
  let ws: WorkspaceCredentials;
  let client: Client;
  let providerUrl: string;
  let resetUrl: string;
  let closeReset: () => Promise<void>;
  let answer: (req: Received, res: ServerResponse) => void = (_req, res) => res.end();
  const log = memoryLogger();

  beforeAll(async () => {
    providerUrl = (await startReceiver((req, res) => answer(req, res), '/permissions')).url;
    // Reads the request, then resets the connection (RST) without a byte of answer.
    const reset = createTcpServer((socket) => {
      sockets.add(socket);
      socket.once('data', () => socket.resetAndDestroy());
    });
    await new Promise<void>((resolve) => reset.listen(0, '127.0.0.1', resolve));
    resetUrl = `http://127.0.0.1:${(reset.address() as AddressInfo).port}/permissions`;
    closeReset = () => new Promise((resolve) => reset.close(() => resolve()));

    server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }, { logger: log.logger });
    ws = await server.workspace();
    client = server.client(ws);
    await client.organizations.addDocument({ organizationId: 'o', documentId: 'doc', accessType: 'restricted' });
    await useProvider(providerUrl);
  });
  afterAll(async () => {
    for (const res of held) res.destroy();
    for (const socket of sockets) socket.destroy();
    await server?.close();
    await closeReset?.();
    await closeReceivers();
  });

  const useProvider = (url: string) =>
    client.workspace.updatePermissionProviderConfig({ usePermissionProvider: true, permissionProviderConfig: { permissionProviderUrl: url, authToken: AUTH_TOKEN } });

  const json = (status: number, body: string, type = 'application/json') => (_req: Received, res: ServerResponse) => {
    res.writeHead(status, { 'content-type': type });
    res.end(body);
  };
  // What a real provider would grant (the user asked about, the document asked about), in a broken shape.
  const grantFor = (userId: string) => ({ userId, resourceId: 'doc', type: 'document', hasAccess: true, accessRole: 'editor' });

  let n = 0;
  /** Asks through both operations (a user never asked before: no cached answer); both must refuse. */
  async function expectRefused(reason: RegExp) {
    const userId = `u-${++n}`;
    const bodies = [
      await server.post('/v2/auth/permissions/get', { data: { organizationId: 'o', userIds: [userId], documentIds: ['doc'] } }, appHeaders(ws)),
      await server.post(
        '/v2/auth/generate_token',
        { data: { userId, userProperties: { name: 'U', email: 'u@example.com' }, permissions: { resources: [{ type: 'document', id: 'doc', organizationId: 'o' }] } } },
        appHeaders(ws),
      ),
    ];
    for (const res of bodies) {
      expect([res.status, res.body.error?.status]).toEqual([503, 'UNAVAILABLE']);
      expect(res.body.error.message).toMatch(/^permission provider /);
      expect(res.body.error.message).toMatch(reason);
      expect(res.body.result).toBeUndefined(); // no data, so no grant and no token
      expect(JSON.stringify(res.body)).not.toContain(AUTH_TOKEN);
    }
    return userId;
  }

  it('non-JSON', async () => {
    answer = json(200, 'hasAccess=true', 'text/plain');
    await expectRefused(/not JSON/);
  });

  it('HTML (a login page or a proxy error page with 200)', async () => {
    answer = json(200, '<!doctype html><html><body><h1>Sign in</h1></body></html>', 'text/html');
    await expectRefused(/not JSON/);
  });

  it('JSON of the wrong shape: an object for the list, a string for hasAccess, an answer about someone else', async () => {
    answer = (req, res) => json(200, JSON.stringify({ data: grantFor(JSON.parse(req.body).data.requests[0].userId) }))(req, res);
    await expectRefused(/malformed: data must be array/);
    answer = (req, res) => json(200, JSON.stringify({ data: [{ ...grantFor(JSON.parse(req.body).data.requests[0].userId), hasAccess: 'yes' }] }))(req, res);
    await expectRefused(/malformed: data\[0\]\.hasAccess must be boolean/);
    answer = json(200, JSON.stringify({ data: [grantFor('someone-else')] }));
    await expectRefused(/gave no answer for (organization o|document doc) of user u-/);
  });

  it('a huge body (10 MB of a valid-looking answer)', async () => {
    answer = (req, res) => {
      const userId = JSON.parse(req.body).data.requests[0].userId as string;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`{"data":[${JSON.stringify(grantFor(userId))}`);
      const filler = `,${JSON.stringify(grantFor(userId))}`.repeat(1000);
      let written = 0;
      const more = () => {
        while (written < 10 * 1024 * 1024) {
          written += filler.length;
          if (!res.write(filler)) return void res.once('drain', more);
        }
        res.end(']}');
      };
      res.on('error', () => undefined);
      more();
    };
    await expectRefused(/too large/);
  });

  it('a 500, with the token echoed in its body', async () => {
    answer = (req, res) => json(500, `internal error for ${String(req.headers.authorization)}`, 'text/plain')(req, res);
    await expectRefused(/HTTP 500/);
  });

  it('a connection reset', async () => {
    await useProvider(resetUrl);
    try {
      await expectRefused(/could not be reached/);
    } finally {
      await useProvider(providerUrl);
    }
  });

  it('no answer within its timeout (5 s)', async () => {
    answer = (_req, res) => void held.push(res);
    await expectRefused(/did not answer within 5000 ms/);
  }, 30_000);

  it('leaves the token out of every log line, and nothing was granted on the way', async () => {
    expect(log.lines.length).toBeGreaterThan(0);
    expect(log.lines.filter((line) => line.includes(AUTH_TOKEN))).toEqual([]);
    expect(log.lines.filter((line) => line.includes('"statusCode":500'))).toEqual([]);
    // A provider that behaves again is heard (the failures were not cached as answers).
    answer = (req, res) => json(200, JSON.stringify({ data: JSON.parse(req.body).data.requests.map((r: any) => ({ userId: r.userId, resourceId: r.resource.id, type: r.resource.type, hasAccess: false })) }))(req, res);
    const res = await server.post('/v2/auth/permissions/get', { data: { organizationId: 'o', userIds: ['u-1'], documentIds: ['doc'] } }, appHeaders(ws));
    expect(res.status).toBe(200);
    expect(res.body.result.data['u-1'].documents.doc).toMatchObject({ errorCode: 'permission_denied' });
  });
});
