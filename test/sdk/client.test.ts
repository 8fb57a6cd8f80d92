// The SDK's transport: retries (which failures, how long between them,
// Retry-After), timeouts, cancellation, and the error each outcome becomes.
// Scripted answers come from a real HTTP receiver on port 0; the waits
// between attempts go through an injected sleep that records them and
// returns at once, so no test waits on a clock.
import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS_HTTP, ERROR_STATUSES, type ErrorStatus } from '../../contract/common/errors.js';
import {
  CollabError,
  CollabNetworkError,
  CollabResponseError,
  CollabTimeoutError,
  createClient,
  type ClientOptions,
  type RetryOptions,
} from '../../sdk/index.js';
import { closedPort } from '../helpers/closed-port.js';
import { closeReceivers, startReceiver, type Received } from '../helpers/receiver.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

type Reply =
  | { status: number; body?: unknown; headers?: Record<string, string> }
  /** Never answers. */
  | 'hang'
  /** Sends the headers and part of a body, then never finishes. */
  | 'stall'
  /** Closes the connection after the request arrived. */
  | 'reset';

const OK_RESULT = { status: 'success', message: 'ok', data: { activityServiceConfig: { isEnabled: true } } };
const ok: Reply = { status: 200, body: { result: OK_RESULT } };
const failure = (status: ErrorStatus, headers: Record<string, string> = {}): Reply => ({
  status: ERROR_STATUS_HTTP[status],
  body: { error: { status, message: `scripted ${status}` } },
  headers,
});
const html = (status: number): Reply => ({ status, body: `<html><body>${status} from the proxy</body></html>`, headers: { 'content-type': 'text/html' } });

/** A server that answers its requests with `replies` in turn (the last one repeats). */
async function scripted(...replies: Reply[]): Promise<{ url: string; received: Received[] }> {
  let next = 0;
  const { url, received } = await startReceiver((_req, res: ServerResponse) => {
    const reply = replies[Math.min(next++, replies.length - 1)]!;
    if (reply === 'hang') return;
    if (reply === 'reset') return void res.socket?.destroy();
    if (reply === 'stall') return void res.writeHead(200, { 'content-type': 'application/json' }).write('{"result":');
    const body = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {});
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end(body);
  }, '');
  return { url, received };
}

/** A client whose waits are recorded instead of waited. */
function recordingClient(baseUrl: string, options: Partial<ClientOptions> & { retry?: RetryOptions } = {}) {
  const sleeps: number[] = [];
  const client = createClient({
    baseUrl,
    apiKey: 'ak_test',
    authToken: 'at_test',
    ...options,
    retry: {
      random: () => 0.5,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      ...options.retry,
    },
  });
  return { client, sleeps };
}

/** The rejection of a promise that must reject. */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the call to fail, but it succeeded');
    },
    (error: unknown) => error,
  );
}

afterEach(() => closeReceivers());

describe('the request', () => {
  it('posts the data envelope to the operation path with the credentials, and resolves to result', async () => {
    const { url, received } = await scripted(ok);
    const { client } = recordingClient(url, { headers: { 'X-Custom': 'yes' } });
    expect(await client.workspace.getActivityConfig()).toEqual(OK_RESULT);
    expect(received).toHaveLength(1);
    const [request] = received;
    expect(request).toMatchObject({ method: 'POST', path: '/v2/workspace/activityconfig/get' });
    expect(JSON.parse(request!.body)).toEqual({ data: {} });
    expect(request!.headers).toMatchObject({
      'content-type': 'application/json',
      'x-service-api-key': 'ak_test',
      'x-service-auth-token': 'at_test',
      'x-custom': 'yes',
      'x-request-id': expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
  });

  it('keeps a path prefix of baseUrl and drops its trailing slashes', async () => {
    const { url, received } = await scripted(ok);
    await recordingClient(`${url}/collab//`).client.workspace.getActivityConfig();
    expect(received[0]!.path).toBe('/collab/v2/workspace/activityconfig/get');
  });

  it('refuses a baseUrl with credentials, or that is no http(s) URL, without repeating it', () => {
    const attempts = ['https://user:s3cret-pass@collab.example.com', 'ftp://collab.example.com', 's3cret-pass'];
    for (const baseUrl of attempts) {
      let thrown: unknown;
      try {
        createClient({ baseUrl });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(TypeError);
      expect((thrown as Error).message).toMatch(/^baseUrl /);
      expect((thrown as Error).message).not.toContain('s3cret');
    }
  });
});

describe('retries', () => {
  it('retries UNAVAILABLE with exponential full-jitter backoff, on one request ID, then resolves', async () => {
    const { url, received } = await scripted(failure('UNAVAILABLE'), failure('UNAVAILABLE'), ok);
    const { client, sleeps } = recordingClient(url);
    expect(await client.workspace.getActivityConfig()).toEqual(OK_RESULT);
    expect(received).toHaveLength(3);
    // random() = 0.5 of the bounds 500 and 1000 ms (baseDelayMs 500, doubled per retry).
    expect(sleeps).toEqual([250, 500]);
    const ids = new Set(received.map((r) => r.headers['x-request-id']));
    expect(ids.size).toBe(1);
  });

  it('gives up after maxRetries with the last error; per call, maxRetries overrides the client', async () => {
    const { url, received } = await scripted(failure('UNAVAILABLE'));
    const { client, sleeps } = recordingClient(url, { retry: { maxRetries: 3 } });
    const error = await rejectionOf(client.workspace.getActivityConfig());
    expect(error).toBeInstanceOf(CollabError);
    expect((error as CollabError).status).toBe('UNAVAILABLE');
    expect(received).toHaveLength(4);
    expect(sleeps).toEqual([250, 500, 1000]);

    await rejectionOf(client.workspace.getActivityConfig(undefined, { maxRetries: 0 }));
    expect(received).toHaveLength(5);
    expect(sleeps).toHaveLength(3);
  });

  it('never waits longer than maxDelayMs between attempts', async () => {
    const { url } = await scripted(failure('UNAVAILABLE'));
    const { client, sleeps } = recordingClient(url, { retry: { maxRetries: 4, baseDelayMs: 300, maxDelayMs: 1000, random: () => 0.999 } });
    await rejectionOf(client.workspace.getActivityConfig());
    // Bounds 300, 600, 1200 → 1000, 2400 → 1000.
    expect(sleeps).toEqual([299, 599, 999, 999]);
  });

  it('waits what Retry-After asks on RESOURCE_EXHAUSTED, in seconds or as an HTTP date', async () => {
    const seconds = await scripted(failure('RESOURCE_EXHAUSTED', { 'Retry-After': '3' }), ok);
    const a = recordingClient(seconds.url);
    expect(await a.client.workspace.getActivityConfig()).toEqual(OK_RESULT);
    expect(a.sleeps).toEqual([3000]);
    expect(seconds.received).toHaveLength(2);

    const now = Date.parse('Wed, 21 Oct 2026 07:28:00 GMT');
    const date = await scripted(failure('RESOURCE_EXHAUSTED', { 'Retry-After': 'Wed, 21 Oct 2026 07:28:07 GMT' }), failure('RESOURCE_EXHAUSTED', { 'Retry-After': 'Wed, 21 Oct 2026 07:27:00 GMT' }), ok);
    const b = recordingClient(date.url, { retry: { now: () => now } });
    expect(await b.client.workspace.getActivityConfig()).toEqual(OK_RESULT);
    // A date already past: retried at once.
    expect(b.sleeps).toEqual([7000, 0]);
  });

  it('waits Retry-After instead of the backoff on UNAVAILABLE too', async () => {
    const { url } = await scripted(failure('UNAVAILABLE', { 'retry-after': '2' }), ok);
    const { client, sleeps } = recordingClient(url);
    await client.workspace.getActivityConfig();
    expect(sleeps).toEqual([2000]);
  });

  it('does not wait a Retry-After beyond maxDelayMs: the error is thrown at once, with retryAfterMs', async () => {
    const { url, received } = await scripted(failure('RESOURCE_EXHAUSTED', { 'Retry-After': '120' }), ok);
    const { client, sleeps } = recordingClient(url);
    const error = (await rejectionOf(client.workspace.getActivityConfig())) as CollabError;
    expect([error.status, error.httpStatus, error.retryAfterMs]).toEqual(['RESOURCE_EXHAUSTED', 429, 120_000]);
    expect(received).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('does not retry RESOURCE_EXHAUSTED without Retry-After (a quota: waiting does not lift it)', async () => {
    const { url, received } = await scripted(failure('RESOURCE_EXHAUSTED'), ok);
    const { client, sleeps } = recordingClient(url);
    const error = (await rejectionOf(client.workspace.getActivityConfig())) as CollabError;
    expect([error.status, error.retryAfterMs]).toEqual(['RESOURCE_EXHAUSTED', undefined]);
    expect(received).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('does not retry any other status of the contract', async () => {
    const others = ERROR_STATUSES.filter((status) => status !== 'UNAVAILABLE' && status !== 'RESOURCE_EXHAUSTED');
    expect(others.length).toBeGreaterThan(5);
    for (const status of others) {
      const { url, received } = await scripted(failure(status), ok);
      const { client, sleeps } = recordingClient(url);
      const error = (await rejectionOf(client.workspace.getActivityConfig())) as CollabError;
      expect({ status: error.status, httpStatus: error.httpStatus, requests: received.length, sleeps }).toEqual({
        status,
        httpStatus: ERROR_STATUS_HTTP[status],
        requests: 1,
        sleeps: [],
      });
    }
  });

  it("retries a proxy's 502, 503 and 504 pages like UNAVAILABLE, but not its 500", async () => {
    const gateway = await scripted(html(502), html(504), ok);
    const a = recordingClient(gateway.url);
    expect(await a.client.workspace.getActivityConfig()).toEqual(OK_RESULT);
    expect([gateway.received.length, a.sleeps.length]).toEqual([3, 2]);

    const unavailable = await scripted(html(503));
    const b = recordingClient(unavailable.url, { retry: { maxRetries: 1 } });
    expect(await rejectionOf(b.client.workspace.getActivityConfig())).toBeInstanceOf(CollabResponseError);
    expect(unavailable.received).toHaveLength(2);

    const internal = await scripted(html(500), ok);
    const c = recordingClient(internal.url);
    const error = (await rejectionOf(c.client.workspace.getActivityConfig())) as CollabResponseError;
    expect(error).toBeInstanceOf(CollabResponseError);
    expect([error.httpStatus, error.body, internal.received.length]).toEqual([500, '<html><body>500 from the proxy</body></html>', 1]);
  });

  it('retries a connection never made, then throws CollabNetworkError', async () => {
    const port = await closedPort();
    const { client, sleeps } = recordingClient(`http://127.0.0.1:${port}`);
    const error = (await rejectionOf(client.workspace.getActivityConfig())) as CollabNetworkError;
    expect(error).toBeInstanceOf(CollabNetworkError);
    expect([error.code, error.beforeConnect, error.operation]).toEqual(['ECONNREFUSED', true, 'workspace.getActivityConfig']);
    expect(error.cause).toBeInstanceOf(Error);
    expect(error.message).not.toContain(String(port));
    expect(sleeps).toEqual([250, 500]);
  });

  it('does not retry a connection lost after the request arrived: the server may have carried it out', async () => {
    const { url, received } = await scripted('reset', ok);
    const { client, sleeps } = recordingClient(url);
    const error = (await rejectionOf(client.workspace.getActivityConfig())) as CollabNetworkError;
    expect(error).toBeInstanceOf(CollabNetworkError);
    expect(error.beforeConnect).toBe(false);
    expect([received.length, sleeps.length]).toEqual([1, 0]);
  });
});

describe('timeouts and cancellation', () => {
  it('ends an attempt after timeout with CollabTimeoutError, and does not retry it', async () => {
    const { url, received } = await scripted('hang', ok);
    const { client, sleeps } = recordingClient(url, { timeout: 50 });
    const error = (await rejectionOf(client.workspace.getActivityConfig(undefined, { headers: { 'x-request-id': 'slow-1' } }))) as CollabTimeoutError;
    expect(error).toBeInstanceOf(CollabTimeoutError);
    expect([error.timeoutMs, error.operation, error.requestId]).toEqual([50, 'workspace.getActivityConfig', 'slow-1']);
    // Not retried: no wait was asked for, and no second request made.
    expect(sleeps).toEqual([]);
    expect(received.length).toBeLessThanOrEqual(1);
  });

  it('counts reading the body in the timeout; a per-call timeout overrides the client', async () => {
    const { url } = await scripted('stall');
    const { client } = recordingClient(url);
    const error = (await rejectionOf(client.workspace.getActivityConfig(undefined, { timeout: 50 }))) as CollabTimeoutError;
    expect(error).toBeInstanceOf(CollabTimeoutError);
    expect(error.timeoutMs).toBe(50);
  });

  it("rejects with the caller's abort reason, not a wrapped error, and stops", async () => {
    const { url, received } = await scripted('hang');
    const { client } = recordingClient(url, { timeout: 60_000 });
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    const call = client.workspace.getActivityConfig(undefined, { signal: controller.signal });
    while (received.length === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort(reason);
    expect(await rejectionOf(call)).toBe(reason);

    // An aborted signal sends nothing.
    expect(await rejectionOf(client.workspace.getActivityConfig(undefined, { signal: controller.signal }))).toBe(reason);
    expect(received).toHaveLength(1);
  });

  it('passes the signal to the wait between attempts, and an abort there ends the call', async () => {
    const { url, received } = await scripted(failure('UNAVAILABLE'), ok);
    const controller = new AbortController();
    const reason = new Error('stop retrying');
    const client = createClient({
      baseUrl: url,
      retry: {
        sleep: (_ms, signal) => {
          controller.abort(reason);
          return Promise.reject(signal?.reason);
        },
      },
    });
    expect(await rejectionOf(client.workspace.getActivityConfig(undefined, { signal: controller.signal }))).toBe(reason);
    expect(received).toHaveLength(1);
  });

  it('the default wait ends when the signal aborts', async () => {
    // Asked to wait 30 s (the default maxDelayMs); the abort must end the call long before.
    const { url, received } = await scripted(failure('UNAVAILABLE', { 'Retry-After': '30' }), ok);
    const client = createClient({ baseUrl: url });
    const controller = new AbortController();
    const call = client.workspace.getActivityConfig(undefined, { signal: controller.signal });
    while (received.length === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    const error = (await rejectionOf(call)) as Error;
    expect(error.name).toBe('AbortError');
    expect(received).toHaveLength(1);
  });
});

describe('unexpected responses', () => {
  it('is CollabResponseError for a body that is not JSON, a success without result, or an unknown error status', async () => {
    const long = 'x'.repeat(5000);
    const cases: Array<[Reply, number]> = [
      [{ status: 200, body: 'plain text' }, 200],
      [{ status: 200, body: { data: 'no result' } }, 200],
      [{ status: 418, body: { error: { status: 'TEAPOT', message: 'short and stout' } } }, 418],
      [{ status: 400, body: long }, 400],
    ];
    for (const [reply, httpStatus] of cases) {
      const { url } = await scripted(reply);
      const error = (await rejectionOf(recordingClient(url).client.workspace.getActivityConfig())) as CollabResponseError;
      expect(error).toBeInstanceOf(CollabResponseError);
      expect(error.httpStatus).toBe(httpStatus);
      expect(error.body.length).toBeLessThanOrEqual(2000);
    }
  });

  it("reports the response's x-request-id over the one sent", async () => {
    const { url } = await scripted({ status: 404, body: { error: { status: 'NOT_FOUND', message: 'gone' } }, headers: { 'x-request-id': 'from-the-proxy' } });
    const error = (await rejectionOf(recordingClient(url).client.workspace.getActivityConfig())) as CollabError;
    expect([error.status, error.requestId]).toEqual(['NOT_FOUND', 'from-the-proxy']);
  });
});

describe('against the real server', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ EMAIL_STATUS_LIMIT_PER_EMAIL: '2' });
  });
  afterAll(() => server?.close());

  it('throws CollabError with the envelope, the HTTP status and the request ID the server echoed', async () => {
    const ws = await server.workspace();
    const client = createClient({ baseUrl: server.url, apiKey: ws.apiKey, authToken: 'at_wrong' });
    const error = (await rejectionOf(client.workspace.getActivityConfig(undefined, { headers: { 'X-Request-Id': 'trace-42' } }))) as CollabError;
    expect(error).toBeInstanceOf(CollabError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('CollabError');
    expect({ status: error.status, httpStatus: error.httpStatus, requestId: error.requestId, operation: error.operation }).toEqual({
      status: 'PERMISSION_DENIED',
      httpStatus: 403,
      requestId: 'trace-42',
      operation: 'workspace.getActivityConfig',
    });
  });

  it("honors the rate limiter's Retry-After, then throws RESOURCE_EXHAUSTED", async () => {
    const sleeps: number[] = [];
    const client = createClient({
      baseUrl: server.url,
      retry: {
        maxDelayMs: 120_000,
        sleep: async (ms) => {
          sleeps.push(ms);
        },
      },
    });
    const ownerEmail = 'rate-limited@example.com';
    for (let i = 0; i < 2; i++) expect(await rejectionOf(client.workspace.getEmailVerificationStatus({ ownerEmail }))).toMatchObject({ status: 'NOT_FOUND' });
    const error = (await rejectionOf(client.workspace.getEmailVerificationStatus({ ownerEmail }))) as CollabError;
    expect([error.status, error.httpStatus]).toEqual(['RESOURCE_EXHAUSTED', 429]);
    // Two retries, each waiting what the server's Retry-After said (whole seconds within its 60 s window).
    expect(sleeps).toHaveLength(2);
    for (const ms of sleeps) {
      expect(ms % 1000).toBe(0);
      expect(ms).toBeGreaterThan(0);
      expect(ms).toBeLessThanOrEqual(60_000);
    }
    expect(error.retryAfterMs).toBeGreaterThan(0);
  });
});
