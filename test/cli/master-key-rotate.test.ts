// `master-key rotate`: every value sealed with the master key is sealed again
// with a new one while a server process keeps serving (started with the old
// key, it follows the rotation through ServerMeta); then a server started
// with the new key verifies the user tokens it signed before, signs webhooks
// with the same secrets and calls the AI provider with the same key, and one
// started with the old key refuses to start. An interrupted rotation
// resumes. On SQLite, and on PostgreSQL when TEST_DATABASE_URL is set.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from '../../sdk/index.js';
import { runCli } from '../../server/cli.js';
import { systemClock } from '../../server/lib/clock.js';
import { Sealer } from '../../server/lib/crypto.js';
import { opens, openVerifiedSealer } from '../../server/lib/master-key.js';
import { rotateMasterKey } from '../../server/platform/master-key-rotation.js';
import type { SealedColumn } from '../../server/platform/sealed-columns.js';
import { minimalAgent } from '../http/agents/fixtures.js';
import { openAiCompletion } from '../http/ai/fake-providers.js';
import { eventually } from '../helpers/eventually.js';
import { recordSecret, recordSecretsIn } from '../helpers/log-capture.js';
import { closeReceivers, startReceiver, type Received } from '../helpers/receiver.js';
import { killServer, processFixture, spawnServer, type ProcessFixture, type ServerProcess } from '../helpers/server-process.js';
import { appHeaders, startTestServer } from '../helpers/server.js';
import { verifyDelivery } from '../helpers/webhooks.js';
import { codeBlocks, readDocument, runScript } from '../readme/readme.js';

const ROOT = join(import.meta.dirname, '..', '..');
const hexKey = () => randomBytes(32).toString('hex');
const AI_KEY = `sk-proj-${randomBytes(16).toString('hex')}`;
const EMAIL_KEY = `SG.${randomBytes(16).toString('hex')}`;
const PROVIDER_TOKEN = `provider-${randomBytes(16).toString('hex')}`;
const AGENT_SECRET = `agent-${randomBytes(16).toString('hex')}`;
for (const [what, secret] of [['provider key', AI_KEY], ['email provider key', EMAIL_KEY], ['permission provider token', PROVIDER_TOKEN], ['agent secret', AGENT_SECRET]] as const) {
  recordSecret(what, secret);
}

const openAiAnswer = JSON.stringify(openAiCompletion('Rewritten.'));

/** Every stored value of the declared sealed columns, as found: each must open with `sealer`. */
async function unopenable(fixture: ProcessFixture, columns: readonly SealedColumn[], sealer: Sealer): Promise<string[]> {
  const db = fixture.database.db;
  const failed: string[] = [];
  let seen = 0;
  for (const column of columns) {
    const rows = await db.$queryRawUnsafe<{ v: string | null }[]>(`SELECT "${column.column}" AS v FROM "${column.table}"`);
    for (const { v } of rows) {
      if (v === null || v === '') continue;
      const check = (sealed: string) => {
        seen += 1;
        if (!opens(sealer, sealed)) failed.push(`${column.table}.${column.column}`);
        return sealed;
      };
      if (column.leaves) column.leaves(v, check);
      else check(v);
    }
  }
  expect(seen, 'sealed values found').toBeGreaterThan(0);
  return failed;
}

/** The fields of prisma/models.prisma whose name says they are sealed, as `Model.field`. */
function sealedFieldsOfSchema(): string[] {
  const schema = readFileSync(join(ROOT, 'prisma', 'models.prisma'), 'utf8');
  const fields: string[] = [];
  for (const [, model, body] of schema.matchAll(/^model (\w+) \{([\s\S]*?)^\}/gm)) {
    for (const [, field] of body!.matchAll(/^\s+(\w+Sealed)\s/gm)) fields.push(`${model}.${field}`);
  }
  return fields;
}

describe('master-key rotate while a server runs', () => {
  const [oldKey, newKey] = [hexKey(), hexKey()];
  let fixture: ProcessFixture;
  let server: ServerProcess;
  let client: Client;
  let hook: { url: string; received: Received[] };
  let ai: { port: number; received: Received[] };
  let keyFile: string;
  const before = {} as { token: string; endpointId: string; secret: string; agentId: string; spareEndpointId: string; workflowSecret: string };

  beforeAll(async () => {
    hook = await startReceiver((_req, res) => res.writeHead(204).end(), '/hook');
    ai = await startReceiver((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(openAiAnswer), '/v1');
    fixture = await processFixture({
      COLLAB_MASTER_KEY: oldKey,
      MASTER_KEY_REFRESH_MS: '400',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '50',
      OPENAI_BASE_URL: `http://127.0.0.1:${ai.port}/v1`,
    });
    keyFile = join(fixture.env.COLLAB_DATA_DIR!, 'new-master.key');
    writeFileSync(keyFile, `${newKey}\n`, { mode: 0o600 });
    const cli = async (...args: string[]) => {
      const result = await runCli(args, { ...process.env, ...fixture.env });
      expect(result.code, result.stderr).toBe(0);
      recordSecretsIn(result.stdout);
      return JSON.parse(result.stdout) as Record<string, any>;
    };
    await cli('ai-key', 'set', '--api-key', fixture.workspace.apiKey, '--provider', 'openai', '--key', AI_KEY);
    server = await spawnServer(fixture.env);
    client = createClient({ baseUrl: server.url, apiKey: fixture.workspace.apiKey, authToken: fixture.workspace.authToken, retry: { maxRetries: 0 } });

    // One of every kind of sealed value, written by the server under the old key.
    const user = { userId: 'u1', userProperties: { name: 'Ada Lovelace', email: 'ada@example.com' }, permissions: { resources: [] } };
    before.token = (await client.permissions.generateToken(user)).data.token;
    await client.webhooks.updateAdvancedWebhookConfig({ isEnabled: true });
    const endpoint = (await client.webhooks.createWebhookEndpoint({ url: hook.url })).data;
    before.endpointId = endpoint.id;
    before.spareEndpointId = (await client.webhooks.createWebhookEndpoint({ url: hook.url })).data.id;
    // A rotated endpoint secret keeps the previous one sealed beside it.
    before.secret = (await client.webhooks.rotateWebhookEndpointSecret({ endpointId: endpoint.id })).data.secret;
    await client.workspace.updateEmailConfig({ emailServiceConfig: { type: 'thirdparty', apiKey: EMAIL_KEY, fromEmail: 'team@example.com' } });
    await client.workspace.updatePermissionProviderConfig({ permissionProviderConfig: { permissionProviderUrl: hook.url, authToken: PROVIDER_TOKEN } });
    before.agentId = (
      await client.agents.createAgent(
        minimalAgent({ contextGathering: { strategies: ['rest-api'], strategyOptions: { 'rest-api': { url: 'https://api.example.com/items', method: 'GET', headers: { 'X-Api-Key': AGENT_SECRET } } } } }),
      )
    ).data.agentId;
    // A workflow definition: its webhookConfig's and its inbound trigger's secrets are sealed leaves of the version's body.
    const workflow = (
      await client.workflowDefinitions.createWorkflowDefinition({
        definitionId: 'sealed-secrets',
        name: 'Sealed secrets',
        nodes: [{ nodeId: 'hook', type: 'webhook', config: { url: hook.url } }],
        webhookConfig: { url: hook.url, eventTypes: ['execution.completed'] },
        triggers: [{ triggerId: 'ci', inboundWebhook: {} }],
      })
    ).data;
    before.workflowSecret = workflow.webhookConfig!.secret!;
  }, 120_000);

  afterAll(async () => {
    if (server) await killServer(server);
    await closeReceivers();
    await fixture?.close();
  });

  it('declares every sealed column of the schema, and the documents with sealed leaves', () => {
    const declared = fixture.services.sealedColumns.map((c) => `${c.table}.${c.column}`);
    expect(declared.filter((name) => name.endsWith('Sealed')).sort()).toEqual(sealedFieldsOfSchema().sort());
    expect(declared.filter((name) => !name.endsWith('Sealed')).sort()).toEqual(['AgentVersion.config', 'Setting.value', 'WorkflowDefinitionVersion.body']);
  });

  it('seals everything again while the server keeps serving, and the old key is refused at the end', async () => {
    // Reads that open sealed values, and writes that seal new ones.
    const failures: unknown[] = [];
    const created: string[] = [];
    let rounds = 0;
    const round = async () => {
      rounds += 1;
      const results = await Promise.allSettled([
        client.webhooks.getWebhookEndpointSecret({ endpointId: before.endpointId }),
        client.webhooks.createWebhookEndpoint({ url: hook.url }).then((r) => created.push(r.data.id)),
        client.ai.askAi({ model: 'gpt-4o-mini', prompt: 'Rewrite.', text: `round ${rounds}` }),
        client.permissions.generateToken({ userId: `u${rounds}`, userProperties: { name: 'U', email: 'u@example.com' }, permissions: { resources: [] } }),
        client.workspace.getEmailConfig(),
        // Writes that keep a stored secret: the email key, the previous webhook secret.
        client.workspace.updateEmailConfig({ emailServiceConfig: { fromCompany: `Round ${rounds}` } }),
        client.webhooks.rotateWebhookEndpointSecret({ endpointId: before.spareEndpointId }),
      ]);
      failures.push(...results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason));
    };
    // Once before, so that no first-call cost (the AI SDK's import) outlasts a phase.
    await round();
    const rotation = runCli(['master-key', 'rotate', '--new-key-file', keyFile], { ...process.env, ...fixture.env });
    let done = false;
    void rotation.finally(() => (done = true));
    const phases = new Set<string>();
    while (!done) {
      const record = await fixture.database.db.serverMeta.findUnique({ where: { key: 'masterKeyRotation' } });
      if (record) phases.add((JSON.parse(record.value) as { phase: string }).phase);
      await round();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const result = await rotation;
    expect(result.code, result.stderr).toBe(0);
    expect(failures).toEqual([]);
    // Requests ran in both phases: while servers opened with both keys, and while they sealed with the new one.
    expect([...phases].sort()).toEqual(['announce', 'reseal']);
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({ rotated: true, unreadable: {} });
    expect(summary.resealed['AuthToken.tokenSealed']).toBeGreaterThan(0);
    expect(summary.resealed['AgentVersion.config']).toBe(1);
    expect(summary.resealed['WorkflowDefinitionVersion.body']).toBe(1);
    // The email setting may have been sealed again by a request of the rounds already.
    expect(summary.resealed['Setting.value']).toBeGreaterThanOrEqual(1);
    expect(result.stderr).toMatch(/waiting \d+ s until every server has read it/);
    expect(result.stderr).not.toContain(newKey);

    // Nothing stored is left under the old key: the new key alone opens all of it.
    expect(await unopenable(fixture, fixture.services.sealedColumns, new Sealer(Buffer.from(newKey, 'hex')))).toEqual([]);
    // The running server followed: it still serves, and what it seals now opens with the new key alone.
    expect((await client.webhooks.getWebhookEndpointSecret({ endpointId: created[0]! })).data.secret).toMatch(/^whsec_/);
    const after = (await client.webhooks.createWebhookEndpoint({ url: hook.url })).data.id;
    const row = await fixture.database.db.webhookEndpoint.findUniqueOrThrow({ where: { id: after } });
    expect(new Sealer(Buffer.from(newKey, 'hex')).open(row.secretSealed)).toMatch(/^whsec_/);
    // A process started with the old key refuses, in one line.
    const refused = await runCli(['workspace', 'get', '--api-key', fixture.workspace.apiKey], { ...process.env, ...fixture.env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: COLLAB_MASTER_KEY is not the master key of this database: [^\n]*\n$/);
  }, 120_000);

  it('a server started with the new key verifies old tokens, signs with the same webhook secret and calls the AI provider with the same key', async () => {
    await killServer(server);
    fixture.env.COLLAB_MASTER_KEY = newKey;
    server = await spawnServer(fixture.env);
    client = createClient({ baseUrl: server.url, apiKey: fixture.workspace.apiKey, authToken: fixture.workspace.authToken, retry: { maxRetries: 0 } });

    // User tokens: the same signing key, so one signed before the rotation verifies against the published keys.
    const { audience } = decodeAudience(before.token);
    const jwks = createRemoteJWKSet(new URL(`/.well-known/jwks/${audience}.json`, server.url));
    await jwtVerify(before.token, jwks, { issuer: 'collab-backend', audience });
    const fresh = (await client.permissions.generateToken({ userId: 'u1', userProperties: { name: 'Ada', email: 'ada@example.com' }, permissions: { resources: [] } })).data.token;
    expect(decodeProtectedHeader(fresh).kid).toBe(decodeProtectedHeader(before.token).kid);

    // Webhooks: the same secret signs a delivery.
    expect((await client.webhooks.getWebhookEndpointSecret({ endpointId: before.endpointId })).data.secret).toBe(before.secret);
    await client.webhooks.sendWebhookTestEvent({ endpointId: before.endpointId, data: { after: 'rotation' } });
    await eventually(() => hook.received.some((r) => r.body.includes('"after":"rotation"')), 'the test event');
    const delivery = hook.received.find((r) => r.body.includes('"after":"rotation"'))!;
    expect(verifyDelivery(before.secret, delivery).data).toEqual({ after: 'rotation' });

    // The AI provider gets the same key.
    const seen = ai.received.length;
    expect(await client.ai.askAi({ model: 'gpt-4o-mini', prompt: 'Rewrite.', text: 'after' })).toEqual({ success: true, text: 'Rewritten.' });
    expect(ai.received.slice(seen).map((r) => r.headers.authorization)).toEqual([`Bearer ${AI_KEY}`]);

    // Settings and agents: their sealed leaves open.
    expect((await client.workspace.getPermissionProviderConfig()).data.permissionProviderConfig.authToken).toBe(PROVIDER_TOKEN);
    expect((await client.workspace.getEmailConfig()).data.emailServiceConfig.apiKey.endsWith(EMAIL_KEY.slice(-4))).toBe(true);
    const sealer = await openVerifiedSealer(fixture.database.db, { envValue: newKey, dataDir: fixture.env.COLLAB_DATA_DIR! }, systemClock);
    const stored = await fixture.database.db.agentVersion.findFirstOrThrow({ where: { agentId: before.agentId } });
    expect(stored.config).not.toContain(AGENT_SECRET);
    const leaves: string[] = [];
    fixture.services.sealedColumns.find((c) => c.table === 'AgentVersion')!.leaves!(stored.config, (sealed) => (leaves.push(sealer.open(sealed)), sealed));
    expect(leaves).toEqual([AGENT_SECRET]);

    // Workflow definitions: the webhookConfig's and the trigger's secrets open, the former the one shown at create.
    const version = await fixture.database.db.workflowDefinitionVersion.findFirstOrThrow({ where: { definitionId: 'sealed-secrets' } });
    const secrets: string[] = [];
    fixture.services.sealedColumns.find((c) => c.table === 'WorkflowDefinitionVersion')!.leaves!(version.body, (sealed) => (secrets.push(sealer.open(sealed)), sealed));
    expect(secrets).toEqual([before.workflowSecret, expect.stringMatching(/^whsec_/)]);
    expect(version.body).not.toContain(before.workflowSecret);
  }, 120_000);
});

function decodeAudience(token: string): { audience: string } {
  const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { aud: string };
  return { audience: payload.aud };
}

describe('an interrupted rotation', () => {
  const [oldKey, newKey, otherKey] = [hexKey(), hexKey(), hexKey()];
  let fixture: ProcessFixture;

  beforeAll(async () => {
    fixture = await processFixture({ COLLAB_MASTER_KEY: oldKey, MASTER_KEY_REFRESH_MS: '100' });
    for (let i = 0; i < 4; i += 1) recordSecretsIn(JSON.stringify(await fixture.services.accounts.createAuthToken(fixture.workspace.apiKey)));
    // Rows with a two-column key, walked one batch per row.
    for (const provider of ['openai', 'anthropic', 'gemini']) {
      const key = `sk-${provider}-${randomBytes(16).toString('hex')}`;
      recordSecret('provider key', key);
      await fixture.services.accounts.setAiKey(fixture.workspace.apiKey, provider, key);
    }
  }, 60_000);
  afterAll(() => fixture?.close());

  const keys = (a: string, b: string) => ({ current: Buffer.from(a, 'hex'), next: Buffer.from(b, 'hex') });
  const deps = () => ({ db: fixture.database.db, uow: fixture.database.uow, clock: systemClock, columns: fixture.services.sealedColumns, graceMs: 0 });

  it('stops half way with values under both keys, which a server started with either key opens', async () => {
    let batches = 0;
    const crash = () => {
      batches += 1;
      if (batches === 2) throw new Error('crashed');
    };
    await expect(rotateMasterKey({ ...deps(), batchSize: 1, afterBatch: crash }, keys(oldKey, newKey))).rejects.toThrow('crashed');
    const tokens = await fixture.database.db.authToken.findMany({ select: { tokenSealed: true } });
    const [under, over] = [new Sealer(Buffer.from(oldKey, 'hex')), new Sealer(Buffer.from(newKey, 'hex'))];
    expect(tokens.filter((t) => opens(over, t.tokenSealed)).length).toBeGreaterThan(0);
    expect(tokens.filter((t) => opens(under, t.tokenSealed)).length).toBeGreaterThan(0);
    for (const key of [oldKey, newKey]) {
      const sealer = await openVerifiedSealer(fixture.database.db, { envValue: key, dataDir: fixture.env.COLLAB_DATA_DIR! }, systemClock);
      expect(tokens.every((t) => opens(sealer, t.tokenSealed))).toBe(true);
      // Mid-rotation (the `reseal` phase) both seal with the new key.
      expect(opens(over, sealer.seal('x'))).toBe(true);
    }
  });

  it('refuses to start a rotation to a third key, and to rotate to the key in use', async () => {
    const third = await runCli(['master-key', 'rotate'], { ...process.env, ...fixture.env, COLLAB_NEW_MASTER_KEY: otherKey });
    expect(third.code).toBe(1);
    expect(third.stderr).toBe('error: FAILED_PRECONDITION: a rotation to another master key is under way: run master-key rotate again with that key to finish it\n');
    const same = await runCli(['master-key', 'rotate'], { ...process.env, ...fixture.env, COLLAB_NEW_MASTER_KEY: oldKey });
    expect(same.stderr).toBe('error: FAILED_PRECONDITION: the new master key is the one in use: nothing to rotate\n');
  });

  it('waits for a running server that has not applied the phase, and refuses after ten grace periods', async () => {
    const ack = { phase: 'announce', since: 0, at: Date.now() + 60_000 };
    await fixture.database.db.serverMeta.create({ data: { key: 'masterKeyAck:lagging', value: JSON.stringify(ack), createdAt: 0n } });
    const progress: string[] = [];
    await expect(rotateMasterKey({ ...deps(), graceMs: 50, progress: (line) => progress.push(line) }, keys(oldKey, newKey))).rejects.toThrow(
      "1 running server(s) have not applied the rotation's reseal phase: see their logs, then run master-key rotate again",
    );
    expect(progress).toContain('reseal: 1 server(s) have not applied it yet');
    await fixture.database.db.serverMeta.delete({ where: { key: 'masterKeyAck:lagging' } });
  });

  it('resumes when run again, with the new key configured by now, and then has nothing left to do', async () => {
    const resumed = await runCli(['master-key', 'rotate'], { ...process.env, ...fixture.env, COLLAB_MASTER_KEY: newKey, COLLAB_NEW_MASTER_KEY: newKey });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ rotated: true, unreadable: {}, passes: 2 });
    expect(await unopenable(fixture, fixture.services.sealedColumns, new Sealer(Buffer.from(newKey, 'hex')))).toEqual([]);
    expect(await fixture.database.db.serverMeta.findUnique({ where: { key: 'masterKeyRotation' } })).toBeNull();
    expect(await rotateMasterKey(deps(), keys(oldKey, newKey))).toEqual({ rotated: false, resealed: {}, unreadable: {}, passes: 0 });
    const again = await runCli(['master-key', 'rotate'], { ...process.env, ...fixture.env, COLLAB_MASTER_KEY: newKey, COLLAB_NEW_MASTER_KEY: newKey });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ rotated: false, resealed: {}, unreadable: {}, passes: 0 });
  });

  it('answers bad arguments with exit 2 and one line', async () => {
    const env = { ...process.env, ...fixture.env, COLLAB_MASTER_KEY: newKey };
    expect(await runCli(['master-key', 'rotate'], env)).toMatchObject({ code: 2, stderr: 'error: the new key is required: --new-key-file FILE or COLLAB_NEW_MASTER_KEY\n' });
    expect(await runCli(['master-key', 'rotate', '--new-key-file', '/nonexistent/key'], env)).toMatchObject({ code: 2, stderr: 'error: --new-key-file /nonexistent/key cannot be read (ENOENT)\n' });
    expect(await runCli(['master-key', 'rotate'], { ...env, COLLAB_NEW_MASTER_KEY: 'short' })).toMatchObject({ code: 1, stderr: 'error: COLLAB_NEW_MASTER_KEY must hold 32 bytes, as 64 hex characters or base64\n' });
  });
});

describe('the operator guide\'s rotation', () => {
  let fixture: ProcessFixture;
  const oldKey = hexKey();
  beforeAll(async () => {
    fixture = await processFixture({ COLLAB_MASTER_KEY: oldKey, MASTER_KEY_REFRESH_MS: '100' });
  }, 60_000);
  afterAll(() => fixture?.close());

  it('runs as written, and leaves the database under the key it wrote', async () => {
    const [block] = codeBlocks(readDocument('docs/operations.md'), 'sh key-rotation-test');
    expect(block).toBeDefined();
    const { code, stdout, stderr } = await runScript(block!, fixture.env);
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ rotated: true, unreadable: {} });
    const newKey = readFileSync(join(fixture.env.COLLAB_DATA_DIR!, 'master.key.new'), 'utf8').trim();
    expect(await unopenable(fixture, fixture.services.sealedColumns, new Sealer(Buffer.from(newKey, 'hex')))).toEqual([]);
    const restarted = await runCli(['workspace', 'get', '--api-key', fixture.workspace.apiKey], { ...process.env, ...fixture.env, COLLAB_MASTER_KEY: newKey });
    expect(restarted.code, restarted.stderr).toBe(0);
  }, 60_000);
});

describe('a server that missed a rotation', () => {
  it('is not ready, and refuses to seal with UNAVAILABLE', async () => {
    const server = await startTestServer({ COLLAB_MASTER_KEY: hexKey(), MASTER_KEY_REFRESH_MS: '100', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    try {
      const ws = await server.workspace();
      const client = server.client(ws);
      await client.webhooks.updateAdvancedWebhookConfig({ isEnabled: true });
      // The rotation finished to a key this process never saw (it could not read the database meanwhile).
      const elsewhere = new Sealer(randomBytes(32)).seal('collab-backend master key check v1');
      await server.running.database.db.serverMeta.update({ where: { key: 'masterKeyCheck' }, data: { value: elsewhere } });
      await eventually(async () => (await fetch(`${server.url}/readyz`)).status === 503, 'readiness to fail');
      const ready = (await (await fetch(`${server.url}/readyz`)).json()) as { reason: string };
      expect(ready.reason).toMatch(/restart it with the new COLLAB_MASTER_KEY/);
      const refused = await server.post('/v2/workspace/advancedwebhook/endpoints/create', { data: { url: 'http://127.0.0.1:9/hook' } }, appHeaders(ws));
      expect(refused).toMatchObject({ status: 503, body: { error: { status: 'UNAVAILABLE' } } });
    } finally {
      await server.close();
    }
  });
});
