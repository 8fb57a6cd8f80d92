// GET /metrics on the real server: request metrics by operation and status,
// the gauges read at scrape time (job queue, database pool, collaborative
// documents), webhook delivery outcomes, the optional bearer token; and the
// request fields on every log line.
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config.js';
import { poolOfClient } from '../../server/db/client.js';
import { testClock } from '../../server/lib/clock.js';
import { SCRAPE_CACHE_MS } from '../../server/platform/metrics.js';
import { eventually } from '../helpers/eventually.js';
import { connectEditor } from '../helpers/live-client.js';
import { memoryLogger, recordSecret } from '../helpers/log-capture.js';
import { closeReceivers, startReceiver } from '../helpers/receiver.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';
import { usingPostgres } from '../helpers/database.js';

/** One sample of the text exposition: name, labels, value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the sample with exactly these labels; undefined when there is none. */
function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = JSON.stringify(Object.entries(labels).sort());
  return samples.find((s) => s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === wanted)?.value;
}

const OPERATION_IDS = new Set(
  Object.values(JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8')).paths as Record<string, Record<string, { operationId: string }>>).flatMap(
    (methods) => Object.values(methods).map((operation) => operation.operationId),
  ),
);

const clock = testClock(Date.now());
const { logger, lines } = memoryLogger();
let server: TestServer;
let ws: WorkspaceCredentials;

async function scrape(target: TestServer = server, headers: Record<string, string> = {}) {
  const res = await fetch(`${target.url}/metrics`, { headers });
  return { status: res.status, contentType: res.headers.get('content-type'), text: await res.text() };
}

async function samples(): Promise<Sample[]> {
  const res = await scrape();
  expect(res.status).toBe(200);
  return parseExposition(res.text);
}

beforeAll(async () => {
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_POLL_INTERVAL_MS: '0' }, { logger, overrides: { clock } });
  ws = await server.workspace();
});
afterAll(async () => {
  await server?.close();
  await closeReceivers();
});

describe('GET /metrics', () => {
  it('is the Prometheus text format with the process metrics, open while METRICS_TOKEN is unset', async () => {
    const res = await scrape();
    expect(res.status).toBe(200);
    expect(res.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    const all = parseExposition(res.text);
    const names = new Set(all.map((s) => s.name));
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_eventloop_lag_p99_seconds', 'nodejs_eventloop_lag_max_seconds', 'nodejs_heap_size_used_bytes']) {
      expect(names).toContain(name);
    }
    expect(res.text).toContain('# TYPE collab_http_request_duration_seconds histogram');
  });

  it('counts and times requests by operationId, envelope status and HTTP code', async () => {
    const key = (operation: string, status: string, code: string) => ({ operation, status, code });
    const series = [
      key('getActivityConfig', 'success', '200'),
      key('getActivityConfig', 'UNAUTHENTICATED', '401'),
      key('getActivityConfig', 'PERMISSION_DENIED', '403'),
      key('getActivityConfig', 'INVALID_ARGUMENT', '400'),
      key('unmatched', 'NOT_FOUND', '404'),
    ];
    const before = await samples();
    const count = (all: Sample[], labels: Record<string, string>) => valueOf(all, 'collab_http_requests_total', labels) ?? 0;

    const path = '/v2/workspace/activityconfig/get';
    expect((await server.post(path, { data: {} }, appHeaders(ws))).status).toBe(200);
    expect((await server.post(path, { data: {} }, appHeaders(ws))).status).toBe(200);
    expect((await server.post(path, { data: {} })).status).toBe(401);
    expect((await server.post(path, { data: {} }, { ...appHeaders(ws), 'x-service-auth-token': 'wrong-token' })).status).toBe(403);
    expect((await server.post(path, { data: { nope: 1 } }, appHeaders(ws))).status).toBe(400);
    expect((await server.post('/v2/no/such/operation', { data: {} }, appHeaders(ws))).status).toBe(404);

    const after = await samples();
    expect(series.map((labels) => count(after, labels) - count(before, labels))).toEqual([2, 1, 1, 1, 1]);
    for (const labels of series) {
      // Each request is in its histogram too: the +Inf bucket and _count agree with the counter.
      expect(valueOf(after, 'collab_http_request_duration_seconds_count', labels)).toBe(count(after, labels));
      expect(valueOf(after, 'collab_http_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(count(after, labels));
      expect(valueOf(after, 'collab_http_request_duration_seconds_sum', labels)).toBeGreaterThan(0);
    }
    // The operation label is the OpenAPI operationId, or unmatched: never a path or an ID.
    for (const sample of after.filter((s) => s.name === 'collab_http_requests_total')) {
      expect(sample.labels.operation === 'unmatched' || OPERATION_IDS.has(sample.labels.operation!), sample.labels.operation).toBe(true);
    }
    // Scrapes count as no request.
    expect(count(after, key('unmatched', 'success', '200'))).toBe(count(before, key('unmatched', 'success', '200')));
  });

  it('shows the job queue by kind: depth by state and the age of the oldest due job', async () => {
    const client = server.client(ws);
    clock.advance(SCRAPE_CACHE_MS); // past the values the earlier scrapes read
    const { jobId } = (await client.userData.deleteAllUserData({ userId: 'metrics-user' })).data;
    expect(jobId).toBeTruthy();
    clock.advance(5_000);
    let all = await samples();
    expect(valueOf(all, 'collab_job_queue_depth', { kind: 'user-data.erase', state: 'pending' })).toBe(1);
    expect(valueOf(all, 'collab_job_queue_depth', { kind: 'user-data.erase', state: 'running' })).toBe(0);
    expect(valueOf(all, 'collab_job_queue_oldest_due_age_seconds', { kind: 'user-data.erase' })).toBe(5);
    // A kind with nothing queued is there at 0.
    expect(valueOf(all, 'collab_job_queue_depth', { kind: 'documents.migrate', state: 'pending' })).toBe(0);

    await server.running.services.jobs.runDue();
    // Read again only SCRAPE_CACHE_MS after the last read: until then scrapes get the same values.
    all = await samples();
    expect(valueOf(all, 'collab_job_queue_depth', { kind: 'user-data.erase', state: 'pending' })).toBe(1);
    clock.advance(SCRAPE_CACHE_MS - 1);
    expect(valueOf(await samples(), 'collab_job_queue_depth', { kind: 'user-data.erase', state: 'pending' })).toBe(1);
    clock.advance(1);
    all = await samples();
    expect(valueOf(all, 'collab_job_queue_depth', { kind: 'user-data.erase', state: 'pending' })).toBe(0);
    expect(valueOf(all, 'collab_job_queue_oldest_due_age_seconds', { kind: 'user-data.erase' })).toBe(0);
  });

  it('shows the database pool of this process', async () => {
    const all = await samples();
    const inUse = valueOf(all, 'collab_db_pool_connections', { state: 'in_use' })!;
    const idle = valueOf(all, 'collab_db_pool_connections', { state: 'idle' })!;
    const max = valueOf(all, 'collab_db_pool_max_connections')!;
    expect(valueOf(all, 'collab_db_pool_waiting_requests')).toBeGreaterThanOrEqual(0);
    expect(inUse + idle).toBeGreaterThanOrEqual(1);
    expect(inUse + idle).toBeLessThanOrEqual(max);
    expect(max).toBe(usingPostgres ? Number(process.env.DATABASE_POOL_SIZE ?? 10) : 1);
  });

  it('counts a connection as in use while a transaction holds it, and what waits for it', async () => {
    const { db } = server.running.database;
    expect(poolOfClient(db).idle).toBeGreaterThanOrEqual(1);
    let outside: Promise<number> | undefined;
    await db.$transaction(async (tx) => {
      await tx.job.count();
      const during = poolOfClient(db);
      expect(during.open - during.idle).toBeGreaterThanOrEqual(1);
      if (!usingPostgres) {
        // SQLite has one connection: a query outside the transaction waits in line for it
        // (a Prisma query starts when it is awaited or thenned).
        outside = db.job.count().then((count) => count);
        await eventually(() => poolOfClient(db).waiting === 1, 'a query waiting for the connection');
        expect(poolOfClient(db)).toEqual({ open: 1, idle: 0, waiting: 1, max: 1 });
      }
    });
    await outside;
    expect(poolOfClient(db).waiting).toBe(0);
  });

  it('shows loaded collaborative documents and their WebSocket connections', async () => {
    const client = server.client(ws);
    await client.organizations.addOrganization({ organizationId: 'metrics-org' });
    await client.organizations.addDocument({ organizationId: 'metrics-org', documentId: 'metrics-doc', accessType: 'restricted' });
    const key = { organizationId: 'metrics-org', documentId: 'metrics-doc', editorId: 'ed-1' };
    const { data } = await client.permissions.generateToken({
      userId: 'ada',
      userProperties: { name: 'Ada', email: 'ada@example.com' },
      permissions: { resources: [{ type: 'document', id: 'metrics-doc', organizationId: 'metrics-org', accessRole: 'editor' }] },
    });
    const editor = connectEditor(server.url, key, data.token);
    try {
      await editor.ready;
      const all = await samples();
      expect(valueOf(all, 'collab_crdt_documents_loaded')).toBeGreaterThanOrEqual(1);
      expect(valueOf(all, 'collab_crdt_connections', { kind: 'websocket' })).toBe(1);
      expect(valueOf(all, 'collab_crdt_connections', { kind: 'direct' })).toBeGreaterThanOrEqual(0);
    } finally {
      editor.close();
    }
    await eventually(async () => valueOf(await samples(), 'collab_crdt_connections', { kind: 'websocket' }) === 0, 'the connection to end');
  });

  it('counts webhook deliveries by outcome, with the lag from message creation to delivery', async () => {
    let answers = 0;
    // The first try fails, the retry succeeds.
    const receiver = await startReceiver((_req, res) => res.writeHead(++answers === 1 ? 500 : 204).end());
    const client = server.client(ws);
    await client.webhooks.updateAdvancedWebhookConfig({ isEnabled: true });
    const { id: endpointId } = (await client.webhooks.createWebhookEndpoint({ url: receiver.url })).data;
    const before = await samples();
    const outcome = (all: Sample[], name: string) => valueOf(all, 'collab_webhook_deliveries_total', { outcome: name }) ?? 0;
    const lagCount = (all: Sample[]) => valueOf(all, 'collab_webhook_delivery_lag_seconds_count') ?? 0;
    const lagSum = (all: Sample[]) => valueOf(all, 'collab_webhook_delivery_lag_seconds_sum') ?? 0;

    await client.comments.addCommentAnnotations({
      organizationId: 'org',
      documentId: 'doc',
      commentAnnotations: [{ annotationId: 'metrics-a1', from: { userId: 'ann' }, commentData: [{ commentText: 'hello' }] }],
    });
    // The commit wakes the dispatcher: its first try meets the 500.
    await eventually(async () => outcome(await samples(), 'failed_retrying') - outcome(before, 'failed_retrying') === 1, 'the failed try');

    // The retry is due 5 s later (the schedule's first delay); the test clock moves 10 s (past the cached values too).
    expect(SCRAPE_CACHE_MS).toBe(10_000);
    clock.advance(10_000);
    let all = await samples();
    expect(valueOf(all, 'collab_webhook_deliveries_pending')).toBe(1);
    expect(valueOf(all, 'collab_webhook_oldest_due_age_seconds')).toBe(5);
    expect(valueOf(all, 'collab_metrics_source_up', { source: 'webhooks' })).toBe(1);
    await server.running.services.webhookDispatcher.runDue();
    expect(receiver.received).toHaveLength(2);

    all = await samples();
    expect(outcome(all, 'delivered') - outcome(before, 'delivered')).toBe(1);
    expect(outcome(all, 'failed_final') - outcome(before, 'failed_final')).toBe(0);
    expect(lagCount(all) - lagCount(before)).toBe(1);
    // The clock stood still but for the 10 s: the lag is measured from the message's creation, not from the retry.
    expect(lagSum(all) - lagSum(before)).toBe(10);
    clock.advance(SCRAPE_CACHE_MS);
    all = await samples();
    expect(valueOf(all, 'collab_webhook_deliveries_pending')).toBe(0);
    expect(valueOf(all, 'collab_webhook_oldest_due_age_seconds')).toBe(0);
    await client.webhooks.deleteWebhookEndpoint({ endpointId });
  });

  it('leaves out the gauges of a source it cannot read (no 0 that looks like an empty queue) and says so', async () => {
    const { db } = server.running.database;
    clock.advance(SCRAPE_CACHE_MS);
    // A real failure of the backlog query: its table is gone for a moment.
    await db.$executeRawUnsafe('ALTER TABLE "WebhookDelivery" RENAME TO "WebhookDeliveryAway"');
    let all: Sample[];
    try {
      all = await samples();
    } finally {
      await db.$executeRawUnsafe('ALTER TABLE "WebhookDeliveryAway" RENAME TO "WebhookDelivery"');
    }
    expect(all.filter((s) => s.name === 'collab_webhook_deliveries_pending' || s.name === 'collab_webhook_oldest_due_age_seconds')).toEqual([]);
    expect(valueOf(all, 'collab_metrics_source_up', { source: 'webhooks' })).toBe(0);
    expect(valueOf(all, 'collab_metrics_source_up', { source: 'jobs' })).toBe(1);
    expect(valueOf(all, 'collab_job_queue_depth', { kind: 'user-data.erase', state: 'pending' })).toBeGreaterThanOrEqual(0);
    expect(lines.some((line) => line.includes('metrics: a gauge could not be read') && line.includes('"source":"webhooks"'))).toBe(true);

    // The next read after the cache window finds it again.
    clock.advance(SCRAPE_CACHE_MS);
    all = await samples();
    expect(valueOf(all, 'collab_metrics_source_up', { source: 'webhooks' })).toBe(1);
    expect(valueOf(all, 'collab_webhook_deliveries_pending')).toBeGreaterThanOrEqual(0);
  });

  it('counts and logs no probe or scrape, whatever its query string or trailing slash; other paths are counted', async () => {
    const marker = 'metrics-untracked-probe';
    const total = (all: Sample[]) => all.filter((s) => s.name === 'collab_http_requests_total').reduce((sum, s) => sum + s.value, 0);
    const before = total(await samples());
    for (const path of ['/metrics?x=1', '/metrics/', '/METRICS', '/healthz?probe=1', '/healthz/', '/readyz?x=1', '/readyz/']) {
      const res = await fetch(`${server.url}${path}`, { headers: { 'x-request-id': marker } });
      expect(res.status, path).toBe(200);
      await res.arrayBuffer();
    }
    const after = await samples();
    expect(total(after)).toBe(before);
    // A path no handler serves is counted (and logged) like any other unknown path.
    const unknown = await fetch(`${server.url}/healthz/nope`, { headers: { 'x-request-id': 'metrics-untracked-404' } });
    expect(unknown.status).toBe(404);
    await unknown.arrayBuffer();
    await eventually(async () => total(await samples()) === before + 1, 'the unknown path to be counted');
    await eventually(() => lines.some((line) => line.includes('"request completed"') && line.includes('metrics-untracked-404')), 'its access line');
    expect(lines.filter((line) => line.includes(marker))).toEqual([]);
  });

  it('counts the deliveries a 410 Gone cancels with it', async () => {
    const answers = [500, 410];
    const receiver = await startReceiver((_req, res) => res.writeHead(answers.shift() ?? 204).end());
    const client = server.client(ws);
    const { id: endpointId } = (await client.webhooks.createWebhookEndpoint({ url: receiver.url })).data;
    const before = await samples();
    const outcome = (all: Sample[], name: string) => (valueOf(all, 'collab_webhook_deliveries_total', { outcome: name }) ?? 0) - (valueOf(before, 'collab_webhook_deliveries_total', { outcome: name }) ?? 0);
    // The first message fails and waits for its retry (the clock stands still); the second one's try meets the 410.
    await client.webhooks.sendWebhookTestEvent({ endpointId });
    await eventually(async () => outcome(await samples(), 'failed_retrying') === 1, 'the failed try');
    await client.webhooks.sendWebhookTestEvent({ endpointId });
    await eventually(async () => outcome(await samples(), 'failed_final') === 1, 'the 410');
    const all = await samples();
    expect(outcome(all, 'canceled')).toBe(1);
    const states = await server.running.database.db.webhookDelivery.findMany({ where: { endpointId }, select: { state: true } });
    expect(states.map((row) => row.state).sort()).toEqual(['canceled', 'failed']);
    await client.webhooks.deleteWebhookEndpoint({ endpointId });
  });

  /**
   * Ends a spy on a method of the server's database client. The spy went onto the root client through the
   * unit of work's proxy, and restoring it leaves the proxy's copy of the method behind, bound to the root
   * client: a transaction would then find that copy and run the method outside itself (on SQLite, waiting
   * for its own end). The method lives on the client's prototype, so the own copy goes.
   */
  function restoreClientMethod(spy: { mockRestore(): void }, db: object, name: string): void {
    spy.mockRestore();
    Reflect.deleteProperty(db, name);
  }

  describe('a delivery a resend took over while it was claimed is counted once, by what became of it', () => {
    const count = async (outcome: string) => valueOf(await samples(), 'collab_webhook_deliveries_total', { outcome }) ?? 0;
    /** The delivery of the endpoint the dispatcher holds now. */
    const claimedOf = (endpointId: string) =>
      server.running.database.db.webhookDelivery.findFirstOrThrow({ where: { endpointId, leaseOwner: { not: null } }, select: { messageId: true } });

    it('given back for the rate limit after a resend took it over: not deferred (the resend is due now)', async () => {
      const client = server.client(ws);
      const { db } = server.running.database;
      const receiver = await startReceiver((_req, res) => res.writeHead(204).end());
      const { id: endpointId } = (await client.webhooks.createWebhookEndpoint({ url: receiver.url, rateLimit: 1 })).data;
      await client.webhooks.sendWebhookTestEvent({ endpointId });
      await eventually(() => receiver.received.length === 1, 'the first delivery');
      const before = await count('deferred');
      // The test clock stands still: the second message finds this second's one slot taken. Right before the
      // dispatcher takes the slot (between its claim and its release), the message is resent.
      const original = db.$queryRawUnsafe.bind(db);
      const spy = vi.spyOn(db, '$queryRawUnsafe').mockImplementation(((sql: string, ...values: unknown[]) => {
        if (!sql.trimStart().startsWith('UPDATE "WebhookEndpoint"')) return original(sql, ...values);
        restoreClientMethod(spy, db, '$queryRawUnsafe');
        return claimedOf(endpointId)
          .then(({ messageId }) => client.webhooks.resendWebhookMessage({ endpointId, messageId }))
          .then(() => original(sql, ...values));
      }) as typeof db.$queryRawUnsafe);
      const { messageId } = (await client.webhooks.sendWebhookTestEvent({ endpointId })).data;
      // The release found the row resent: only its lease went; the resend's schedule (due now) stands.
      await eventually(async () => {
        const row = await db.webhookDelivery.findFirstOrThrow({ where: { endpointId, messageId } });
        return row.generation === 1 && row.leaseOwner === null && Number(row.nextAttemptAt) === clock.nowMs();
      }, 'the resent delivery unleased');
      await server.running.services.webhookDispatcher.runDue(); // waits for the try in flight to end
      expect((await count('deferred')) - before).toBe(0);
      expect(receiver.received).toHaveLength(1);
      await client.webhooks.deleteWebhookEndpoint({ endpointId });
    });

    it('its endpoint disabled when claimed, enabled and resent meanwhile: delivered, not canceled', async () => {
      const client = server.client(ws);
      const { db } = server.running.database;
      const answers = [500];
      const receiver = await startReceiver((_req, res) => res.writeHead(answers.shift() ?? 204).end());
      const { id: endpointId } = (await client.webhooks.createWebhookEndpoint({ url: receiver.url })).data;
      const { messageId } = (await client.webhooks.sendWebhookTestEvent({ endpointId })).data;
      await eventually(async () => (await db.webhookAttempt.count({ where: { endpointId } })) === 1, 'the failed try');
      await client.webhooks.updateWebhookEndpoint({ endpointId, disabled: true });
      const before = { canceled: await count('canceled'), delivered: await count('delivered') };
      // The retry comes due with the endpoint disabled; right before the dispatcher ends it (its first
      // transaction of this run), the endpoint is enabled again and the message resent.
      const original = db.$transaction.bind(db);
      const spy = vi.spyOn(db, '$transaction').mockImplementation(((...args: Parameters<typeof db.$transaction>) => {
        restoreClientMethod(spy, db, '$transaction');
        return client.webhooks
          .updateWebhookEndpoint({ endpointId, disabled: false })
          .then(() => client.webhooks.resendWebhookMessage({ endpointId, messageId }))
          .then(() => original(...args));
      }) as typeof db.$transaction);
      clock.advance(5_000);
      await server.running.services.webhookDispatcher.runDue();
      await eventually(() => receiver.received.length === 2, 'the resend');
      await eventually(async () => (await count('delivered')) > before.delivered, 'the delivery counted');
      expect(spy).toBeDefined();
      expect((await count('canceled')) - before.canceled).toBe(0);
      expect((await count('delivered')) - before.delivered).toBe(1);
      await client.webhooks.deleteWebhookEndpoint({ endpointId });
    });
  });

  it('takes no request body, like the other GETs', async () => {
    const { port } = new URL(server.url);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/metrics', method: 'GET', headers: { 'content-type': 'application/json' } }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end('{"data":{}}');
    });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).error.status).toBe('INVALID_ARGUMENT');
  });
});

describe('METRICS_TOKEN', () => {
  const token = randomBytes(24).toString('hex');
  let guarded: TestServer;
  beforeAll(async () => {
    recordSecret('metrics token', token);
    guarded = await startTestServer({ METRICS_TOKEN: token });
  });
  afterAll(() => guarded?.close());

  it('without the token, or with a wrong one: UNAUTHENTICATED (401) in the error envelope, nothing echoed', async () => {
    const wrong = `${token.slice(0, -1)}x`;
    const attempts: Record<string, string>[] = [
      {},
      { authorization: `Bearer ${wrong}` },
      { authorization: `Basic ${token}` },
      { authorization: token },
      { authorization: `Bearer ${token} extra` },
    ];
    for (const headers of attempts) {
      const res = await scrape(guarded, headers);
      expect(res.status).toBe(401);
      expect(res.contentType).toMatch(/^application\/json/);
      expect(JSON.parse(res.text)).toEqual({ error: { status: 'UNAUTHENTICATED', message: expect.any(String) } });
      expect(res.text).not.toContain(token);
      expect(res.text).not.toContain(wrong);
    }
  });

  it('with the right token: the metrics, whatever the case of the scheme', async () => {
    for (const scheme of ['Bearer', 'bearer']) {
      const res = await scrape(guarded, { authorization: `${scheme} ${token}` });
      expect(res.status).toBe(200);
      expect(parseExposition(res.text).some((s) => s.name === 'collab_db_pool_max_connections')).toBe(true);
    }
  });

  it('holds no secret: no credential, no token, no database URL', async () => {
    const owner = await guarded.workspace();
    await guarded.post('/v2/workspace/activityconfig/get', { data: {} }, appHeaders(owner));
    const { text } = await scrape(guarded, { authorization: `Bearer ${token}` });
    for (const secret of [owner.apiKey, owner.authToken, owner.workspaceAuthToken, token, guarded.env.DATABASE_URL!]) expect(text).not.toContain(secret);
  });

  it('is refused at start when too short or not one header-safe word, without showing it', () => {
    for (const value of ['short', `${token} ${token}`, `${token}\u00e9`]) {
      expect(() => loadConfig({ METRICS_TOKEN: value })).toThrow(ConfigError);
      try {
        loadConfig({ METRICS_TOKEN: value });
      } catch (error) {
        expect((error as Error).message).toContain('METRICS_TOKEN');
        expect((error as Error).message).not.toContain(value);
      }
    }
    expect(loadConfig({ METRICS_TOKEN: token }).metricsToken).toBe(token);
    expect(loadConfig({}).metricsToken).toBeUndefined();
  });
});

describe('log lines', () => {
  const entries = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  // Without WEBHOOK_ALLOW_PRIVATE_URLS, so that the workspace service refuses (and logs) a private URL.
  let strict: TestServer;
  beforeAll(async () => {
    strict = await startTestServer({}, { logger });
  });
  afterAll(() => strict?.close());

  it('a line a service logs while serving a request carries its request ID and operation, as does the access line', async () => {
    const owner = await strict.workspace();
    const res = await strict.post(
      '/v2/workspace/permissionproviderconfig/update',
      { data: { usePermissionProvider: true, permissionProviderConfig: { permissionProviderUrl: 'http://127.0.0.1:9/permissions' } } },
      { ...appHeaders(owner), 'x-request-id': 'metrics-test-request-1' },
    );
    // Refused by the workspace service, after a database read; it logs why.
    expect(res.status).toBe(400);
    expect(res.headers.get('x-request-id')).toBe('metrics-test-request-1');
    const service = entries().filter((entry) => entry.msg === 'configured URL refused: not a public address');
    expect(service.map((entry) => [entry.reqId, entry.operation])).toEqual([['metrics-test-request-1', 'updatePermissionProviderConfig']]);
    await eventually(() => entries().some((entry) => entry.msg === 'request completed' && entry.reqId === 'metrics-test-request-1'), 'the access line');
    const access = lines.filter((line) => line.includes('"request completed"') && line.includes('metrics-test-request-1'));
    expect(access).toHaveLength(1);
    expect(JSON.parse(access[0]!)).toMatchObject({ reqId: 'metrics-test-request-1', operation: 'updatePermissionProviderConfig', res: { statusCode: 400 } });
    // Each field once: not from both a child logger's bindings and the request context.
    expect(access[0]!.match(/"reqId"/g)).toHaveLength(1);
    expect(access[0]!.match(/"operation"/g)).toHaveLength(1);
  });

  it('a request that is no operation has its request ID and no operation; scrapes are not in the access log', async () => {
    const res = await server.post('/v2/no/such/thing', { data: {} }, { 'x-request-id': 'metrics-test-request-2' });
    expect(res.status).toBe(404);
    await scrape();
    await eventually(() => entries().some((entry) => entry.reqId === 'metrics-test-request-2' && entry.msg === 'request completed'), 'the access line');
    const access = entries().find((entry) => entry.reqId === 'metrics-test-request-2' && entry.msg === 'request completed')!;
    expect(access.operation).toBeUndefined();
    expect(entries().some((entry) => (entry.req as { url?: string } | undefined)?.url === '/metrics')).toBe(false);
  });

  it('background work a request woke logs as itself, not as that request', async () => {
    // An endpoint nobody listens on: the dispatcher, woken by the commit of Add Comment Annotations, logs the failed try.
    const closed = await startReceiver((_req, res) => res.end());
    const client = server.client(ws);
    const { id: endpointId } = (await client.webhooks.createWebhookEndpoint({ url: closed.url })).data;
    await closeReceivers();
    const res = await server.post(
      '/v2/commentannotations/add',
      {
        data: {
          organizationId: 'org',
          documentId: 'doc',
          commentAnnotations: [{ annotationId: 'metrics-a2', from: { userId: 'ann' }, commentData: [{ commentText: 'hi' }] }],
        },
      },
      { ...appHeaders(ws), 'x-request-id': 'metrics-test-request-3' },
    );
    expect(res.status).toBe(200);
    await eventually(() => entries().some((entry) => typeof entry.msg === 'string' && entry.msg.startsWith('webhook delivery failed') && entry.endpointId === endpointId), 'the failed try');
    const failure = entries().find((entry) => typeof entry.msg === 'string' && entry.msg.startsWith('webhook delivery failed') && entry.endpointId === endpointId)!;
    expect(failure.reqId).toBeUndefined();
    expect(failure.operation).toBeUndefined();
    await client.webhooks.deleteWebhookEndpoint({ endpointId });
  });
});
