// Two `npm start` processes on one PostgreSQL and one Redis share everything a
// client can observe: rate-limit counters, webhook deliveries and jobs (each
// claimed by one process), and live collaborative documents and broadcasts.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from '../../sdk/index.js';
import { runCli } from '../../server/cli.js';
import { expectCollabError } from '../helpers/credentials.js';
import { eventually } from '../helpers/eventually.js';
import { connectEditor, until, type LiveEditor } from '../helpers/live-client.js';
import { nextStateless } from '../helpers/live-state.js';
import { recordSecretsIn } from '../helpers/log-capture.js';
import { closeReceivers, startReceiver, type Received } from '../helpers/receiver.js';
import { killServer, processFixture, spawnServer, type ProcessFixture, type ServerProcess } from '../helpers/server-process.js';
import type { WorkspaceCredentials } from '../helpers/server.js';
import { addThreads, createEndpoint, enableWebhooks, idOf, verifyDelivery } from '../helpers/webhooks.js';
import { clusterEnv, clusterReady, explainSkip } from './cluster.js';

explainSkip('test/cluster/shared-state.test.ts');

/** Low enough to reach in a test, high enough for what the other scenarios send with their own keys. */
const LIMIT = 40;

let fixture: ProcessFixture | undefined;
let pair: ServerProcess[] = [];
let editors: LiveEditor[] = [];
let workspaceCount = 0;
afterEach(() => {
  for (const e of editors) e.close();
  editors = [];
});
afterAll(async () => {
  for (const p of pair) await killServer(p);
  await closeReceivers();
  await fixture?.close();
});

describe.skipIf(!clusterReady)('two server processes on one PostgreSQL and one Redis', () => {
  beforeAll(async () => {
    fixture = await processFixture(
      clusterEnv({
        RATE_LIMIT_PER_MINUTE: String(LIMIT),
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        WEBHOOK_POLL_INTERVAL_MS: '50',
        JOB_POLL_INTERVAL_MS: '50',
      }),
    );
    pair = await Promise.all([spawnServer(fixture.env), spawnServer(fixture.env)]);
  }, 120_000);

  /** A workspace of its own per scenario: the standard rate limit counts per API key. */
  async function workspace(): Promise<WorkspaceCredentials> {
    const result = await runCli(['workspace', 'create', '--owner-email', `cluster${process.pid}-${++workspaceCount}@example.com`], { ...process.env, ...fixture!.env });
    if (result.code !== 0) throw new Error(`workspace create failed: ${result.stderr}`);
    recordSecretsIn(result.stdout);
    return JSON.parse(result.stdout) as WorkspaceCredentials;
  }

  /** One client per process, no retries: each call is one request the test observes. */
  const clientsOf = (ws: WorkspaceCredentials): [Client, Client] =>
    pair.map((p) => createClient({ baseUrl: p.url, apiKey: ws.apiKey, authToken: ws.authToken, retry: { maxRetries: 0 } })) as [Client, Client];

  it('share the rate limit: requests counted on either process exhaust it on both', async () => {
    const [one, two] = clientsOf(fixture!.workspace);
    for (let i = 0; i < LIMIT; i++) await [one, two][i % 2]!.organizations.getOrganizations({});
    // Each process alone saw only half the limit's requests.
    await expectCollabError(one.organizations.getOrganizations({}), 'RESOURCE_EXHAUSTED');
    await expectCollabError(two.organizations.getOrganizations({}), 'RESOURCE_EXHAUSTED');
    // Per API key: another application's calls still pass on both.
    const [otherOne, otherTwo] = clientsOf(await workspace());
    await otherOne.organizations.getOrganizations({});
    await otherTwo.organizations.getOrganizations({});
    console.log(`rate limit: ${LIMIT} requests split over two processes, then 429 on both`);
  });

  it('deliver each webhook message once per endpoint, whichever process produced or claimed it', async () => {
    const ws = await workspace();
    const [one, two] = clientsOf(ws);
    await enableWebhooks(one);
    const ok = () => startReceiver((_req, res) => res.writeHead(204).end());
    const receivers = [await ok(), await ok()];
    const endpoints = [];
    for (const receiver of receivers) endpoints.push({ ...(await createEndpoint(one, { url: receiver.url })), receiver });

    // Events produced through both processes (one comment.add event per thread).
    const PER_CALL = 50;
    const CALLS = 6;
    for (let call = 0; call < CALLS; call++) await addThreads([one, two][call % 2]!, 'org-hooks', `doc-${call}`, PER_CALL, `c${call}`);
    const { id: apiKeyId } = await fixture!.database.db.apiKey.findFirstOrThrow({ where: { workspaceId: ws.workspaceId }, select: { id: true } });
    const messages = await fixture!.database.db.webhookMessage.count({ where: { apiKeyId } });
    expect(messages).toBeGreaterThanOrEqual(CALLS * PER_CALL);

    await eventually(async () => (await fixture!.database.db.webhookDelivery.count({ where: { apiKeyId, state: { not: 'succeeded' } } })) === 0, 'every delivery succeeded', 60_000);
    const summary: string[] = [];
    for (const endpoint of endpoints) {
      const received: Received[] = endpoint.receiver.received;
      const ids = received.map(idOf);
      const duplicates = ids.length - new Set(ids).size;
      summary.push(`${ids.length} received, ${new Set(ids).size} distinct, ${duplicates} duplicates`);
      const stored = await fixture!.database.db.webhookDelivery.findMany({ where: { endpointId: endpoint.id }, select: { messageId: true } });
      expect(stored).toHaveLength(messages);
      expect(duplicates, 'messages received twice').toBe(0);
      expect(new Set(ids)).toEqual(new Set(stored.map((d) => d.messageId)));
      for (const r of received) verifyDelivery(endpoint.secret, r);
    }
    // One try per delivery, all successful: nothing was claimed twice.
    const attempts = await fixture!.database.db.webhookAttempt.groupBy({ by: ['deliveryId'], where: { apiKeyId }, _count: true });
    expect(attempts).toHaveLength(messages * endpoints.length);
    expect(attempts.filter((a) => a._count !== 1)).toEqual([]);
    console.log(`webhooks: ${messages} messages × ${endpoints.length} endpoints; ${summary.join('; ')}`);
  }, 90_000);

  it('run each job once, whichever process enqueued it', async () => {
    const ws = await workspace();
    const clients = clientsOf(ws);
    const JOBS = 24;
    const jobIds: string[] = [];
    for (let i = 0; i < JOBS; i++) jobIds.push((await clients[i % 2]!.userData.deleteAllUserData({ userId: `user-${i}` })).data.jobId);
    const db = fixture!.database.db;
    await eventually(async () => (await db.job.count({ where: { id: { in: jobIds }, state: 'completed' } })) === JOBS, 'every job completed', 60_000);
    const jobs = await db.job.findMany({ where: { id: { in: jobIds } }, select: { id: true, attempts: true, state: true } });
    // Each claim counts an attempt: a job claimed by both processes would show 2.
    expect(jobs.filter((job) => job.attempts !== 1 || job.state !== 'completed')).toEqual([]);
    // Either process answers for any job (a few: the calls count against the rate limit).
    for (const [i, jobId] of jobIds.slice(0, 8).entries()) {
      expect((await clients[(i + 1) % 2]!.userData.getDeleteAllUserDataStatus({ jobId })).data).toEqual({ jobId, status: 'completed' });
    }
    console.log(`jobs: ${JOBS} enqueued through both processes, ${jobs.filter((j) => j.attempts === 1).length} ran exactly once`);
  }, 90_000);

  it('fan out CRDT edits and broadcasts: a client on one process sees REST writes and client edits made on the other', async () => {
    const ws = await workspace();
    const [one, two] = clientsOf(ws);
    const key = { organizationId: 'org-live', documentId: 'doc-live', editorId: 'main' };
    await one.organizations.addOrganization({ organizationId: key.organizationId });
    await one.organizations.addDocument({ organizationId: key.organizationId, documentId: key.documentId, accessType: 'organizationPrivate' });
    await one.crdt.addCrdtData({ ...key, type: 'text', data: 'Hello' });
    const open = async (p: ServerProcess, userId: string) => {
      const { data } = await one.permissions.generateToken({
        userId,
        userProperties: { name: `User ${userId}`, email: `${userId}@example.com` },
        permissions: { resources: [{ type: 'organization', id: key.organizationId, accessRole: 'editor' }] },
      });
      const editor = connectEditor(p.url, key, data.token);
      editors.push(editor);
      await editor.ready;
      return editor;
    };
    const text = (e: LiveEditor) => e.doc.getText('content').toString();
    const ada = await open(pair[0]!, 'ada');
    expect(text(ada)).toBe('Hello');

    // A REST write on process 2, where no client has the document open.
    await two.crdt.updateCrdtData({ ...key, type: 'text', data: 'Hello, world' });
    await until(ada.doc, () => text(ada) === 'Hello, world');

    // A client on process 2 types; the client on process 1 sees it.
    const bob = await open(pair[1]!, 'bob');
    expect(text(bob)).toBe('Hello, world');
    bob.doc.getText('content').insert(0, '>> ');
    await until(ada.doc, () => text(ada) === '>> Hello, world');

    // A broadcast through process 2 reaches both clients once (a duplicate would be the next message).
    await two.liveState.broadcastEvent({ organizationId: key.organizationId, documentId: key.documentId, liveStateDataId: 'cursor', data: 1 });
    await two.liveState.broadcastEvent({ organizationId: key.organizationId, documentId: key.documentId, liveStateDataId: 'cursor', data: 2 });
    for (const editor of [ada, bob]) {
      expect(JSON.parse(await nextStateless(editor))).toMatchObject({ liveStateDataId: 'cursor', data: 1 });
      expect(JSON.parse(await nextStateless(editor))).toMatchObject({ liveStateDataId: 'cursor', data: 2 });
    }
    // And both processes answer Get with the edit.
    for (const client of [one, two]) expect((await client.crdt.getCrdtData(key)).data.data).toBe('>> Hello, world');
  }, 60_000);
});
