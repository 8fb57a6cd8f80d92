import { Writable } from 'node:stream';
import express from 'express';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import { once } from 'node:events';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, httpLogger } from '../../server/http/logging.js';
import { appHeaders, startTestServer, type TestServer } from '../helpers/server.js';

/** A logger whose lines land in an array. */
function memoryLogger(make: (stream: Writable) => pino.Logger): { logger: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter((l) => l !== ''));
      done();
    },
  });
  return { logger: make(stream), lines };
}

const SECRETS = {
  'x-service-api-key': 'ak_secret-api-key-value',
  'x-service-auth-token': 'at_secret-auth-token-value',
  'x-service-workspace-auth-token': 'wat_secret-workspace-token',
  authorization: 'Bearer secret-bearer-value',
  cookie: 'session=secret-cookie-value',
};

describe('the access log', () => {
  it('writes one line per request without any credential header, whatever logger it is given', async () => {
    // A plain logger without redaction: the HTTP layer must not depend on the caller's setup.
    const { logger, lines } = memoryLogger((stream) => pino({ level: 'debug' }, stream));
    const app = express();
    app.use(httpLogger(logger));
    app.post('/x', (req, res) => {
      // Something downstream logging the raw headers is censored too.
      req.log.info({ headers: req.headers }, 'handler saw headers');
      res.setHeader('set-cookie', 'returned=secret-set-cookie');
      res.json({ ok: true });
    });
    const server = createServer(app).listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const port = (server.address() as AddressInfo).port;
      const res = await fetch(`http://127.0.0.1:${port}/x`, { method: 'POST', headers: SECRETS });
      expect(res.status).toBe(200);
    } finally {
      server.close();
    }
    const completed = lines.filter((l) => l.includes('"request completed"'));
    expect(completed).toHaveLength(1);
    expect(JSON.parse(completed[0]!)).toMatchObject({ req: { method: 'POST', url: '/x' }, res: { statusCode: 200 } });
    const all = lines.join('\n');
    for (const value of [...Object.values(SECRETS), 'secret-set-cookie']) expect(all).not.toContain(value.replace(/^.*=/, ''));
    expect(all).toContain('[redacted]');
  });

  it('the process logger censors credential headers nested in any logged object', () => {
    const { logger, lines } = memoryLogger((stream) => createLogger('info', stream));
    logger.info({ err: { headers: { 'x-service-api-key': 'ak_nested-secret' } }, headers: { authorization: 'Bearer top-secret' } }, 'x');
    expect(lines.join('\n')).not.toMatch(/nested-secret|top-secret/);
  });
});

describe('the test servers', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  it('exercise every kind of credential the end-of-run log scan looks for', async () => {
    const ws = await server.workspace();
    await server.cli('ai-key', 'set', '--api-key', ws.apiKey, '--provider', 'openai', '--key', `sk-test-${ws.workspaceId}`);
    const client = server.client(ws);
    const { data } = await client.permissions.generateToken({ userId: 'u1', userProperties: { name: 'U', email: 'u@example.com' }, permissions: { resources: [] } });
    expect(data.token).toMatch(/^eyJ/);
    await server.post('/v2/workspace/authtokens/get', { data: { apiKey: ws.apiKey } }, { 'x-service-workspace-id': ws.workspaceId, 'x-service-workspace-auth-token': ws.workspaceAuthToken });
    await server.post('/v2/workspace/activityconfig/get', { data: {} }, { ...appHeaders(ws), authorization: `Bearer ${data.token}` });
  });
});
