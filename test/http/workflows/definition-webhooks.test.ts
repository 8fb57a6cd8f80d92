// A definition's webhookConfig: every event of its executions that its
// eventTypes take is POSTed to its URL, signed the Standard Webhooks way with
// its secret and retried on the advanced webhooks' schedule; and the secrets
// of definitions (webhookConfig's, inbound triggers'): generated and shown
// once, sealed, redacted on reads, kept on `__redacted__`.
import type { ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { testClock } from '../../../server/lib/clock.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { recordSecret } from '../../helpers/log-capture.js';
import { closeReceivers, startReceiver, type Received } from '../../helpers/receiver.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';
import { webhookDefinition } from './fixtures.js';

const clock = testClock(Date.now());
let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;
/** The webhook steps' receiver: approves. */
let gate: Awaited<ReturnType<typeof startReceiver>>;
/** The webhookConfig's receiver. */
let sink: Awaited<ReturnType<typeof startReceiver>>;
let sinkAnswer: (req: Received, res: ServerResponse) => void = (_req, res) => void res.writeHead(204).end();
/** Every due job, those the jobs enqueue included (the delivery lane runs beside the step lane). */
async function runJobs(): Promise<void> {
  while ((await server.running.services.jobs.runDue()) > 0);
}

beforeAll(async () => {
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }, { overrides: { clock } });
  ws = await server.workspace();
  client = server.client(ws);
  gate = await startReceiver((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"decision":"approve"}'));
  sink = await startReceiver((req, res) => sinkAnswer(req, res), '/events');
});
afterAll(async () => {
  await server?.close();
  await closeReceivers();
});

const deliveriesOf = (executionId: string) => sink.received.filter((r) => JSON.parse(r.body).executionId === executionId);

async function run(definitionId: string): Promise<string> {
  const { executionId } = (await client.workflowExecutions.dispatchWorkflowExecution({ definitionId })).data;
  await runJobs();
  return executionId;
}

describe('webhookConfig deliveries', () => {
  it('send each event its eventTypes take, signed with its secret, as Get Workflow Execution Events shows it', async () => {
    const created = (await client.workflowDefinitions.createWorkflowDefinition(webhookDefinition('delivered', gate.url, {}, { webhookConfig: { url: sink.url, eventTypes: ['step.completed', 'execution.completed'] } }))).data;
    const secret = created.webhookConfig!.secret!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const executionId = await run('delivered');
    const events = (await client.workflowExecutions.getWorkflowExecutionEvents({ executionId })).data.events;
    expect(events.map((e) => e.type)).toEqual(['execution.dispatched', 'step.completed', 'execution.completed']);

    const received = deliveriesOf(executionId);
    expect(received.map((r) => JSON.parse(r.body).type).sort()).toEqual(['execution.completed', 'step.completed']);
    const verifier = new Webhook(secret);
    for (const delivery of received) {
      const event = verifier.verify(delivery.body, delivery.headers as Record<string, string>) as { eventId: string };
      expect(event).toEqual(events.find((e) => e.eventId === event.eventId));
      expect(delivery.headers['webhook-id']).toBe(event.eventId);
    }
    // Another secret does not verify them.
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(received[0]!.body, received[0]!.headers as Record<string, string>)).toThrow();
  });

  it('without eventTypes send every event', async () => {
    await client.workflowDefinitions.createWorkflowDefinition(webhookDefinition('delivered-all', gate.url, {}, { webhookConfig: { url: sink.url } }));
    const executionId = await run('delivered-all');
    expect(deliveriesOf(executionId).map((r) => JSON.parse(r.body).seq).sort()).toEqual([1, 2, 3]);
  });

  it('are tried again after a failed try, on the advanced webhooks\' schedule, with the same webhook-id', async () => {
    await client.workflowDefinitions.createWorkflowDefinition(webhookDefinition('delivered-retry', gate.url, {}, { webhookConfig: { url: sink.url, eventTypes: ['execution.completed'] } }));
    let tries = 0;
    sinkAnswer = (_req, res) => void res.writeHead(++tries === 1 ? 500 : 204).end();
    try {
      const executionId = await run('delivered-retry');
      expect(deliveriesOf(executionId)).toHaveLength(1);
      clock.advance(4_000);
      await runJobs();
      expect(deliveriesOf(executionId)).toHaveLength(1);
      clock.advance(1_000); // 5 s after the failed try: the schedule's first wait
      await runJobs();
      const [first, second] = deliveriesOf(executionId);
      expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
      clock.advance(3_600_000);
      await runJobs();
      expect(deliveriesOf(executionId)).toHaveLength(2);
    } finally {
      sinkAnswer = (_req, res) => void res.writeHead(204).end();
    }
  });
});

describe('Update Workflow Definition secrets', () => {
  it('are shown once, redacted on every read, kept on __redacted__, replaced when left out, and never stored in the clear', async () => {
    clock.set(Date.now()); // the verifier holds signatures to its own clock
    const given = 'a-trigger-secret-of-our-own';
    recordSecret('webhook signing secret', given);
    const created = (
      await client.workflowDefinitions.createWorkflowDefinition(
        webhookDefinition('secretive', gate.url, {}, { webhookConfig: { url: sink.url, eventTypes: ['execution.completed'] }, triggers: [{ triggerId: 'gen', inboundWebhook: {} }, { triggerId: 'own', inboundWebhook: { secret: given } }] }),
      )
    ).data;
    const hookSecret = created.webhookConfig!.secret!;
    const triggerSecret = created.triggers![0]!.inboundWebhook.secret!;
    expect(hookSecret).toMatch(/^whsec_/);
    expect(triggerSecret).toMatch(/^whsec_/);
    expect(created.triggers![1]!.inboundWebhook.secret).toBe('__redacted__');

    const read = (await client.workflowDefinitions.getWorkflowDefinition({ definitionId: 'secretive' })).data;
    expect(read.webhookConfig!.secret).toBe('__redacted__');
    expect(read.triggers!.map((t) => t.inboundWebhook.secret)).toEqual(['__redacted__', '__redacted__']);
    const listed = (await client.workflowDefinitions.listWorkflowDefinitions({})).data.find((d) => d.definitionId === 'secretive')!;
    expect(JSON.stringify(listed)).not.toContain('whsec_');

    const stored = await server.running.database.db.workflowDefinitionVersion.findMany({ where: { definitionId: 'secretive' } });
    for (const secret of [hookSecret, triggerSecret, given]) expect(stored[0]!.body).not.toContain(secret);

    // Sent back as read: every secret kept, none shown.
    const { version: _v, status: _s, compiled: _c, createdAt: _ca, updatedAt: _ua, description: _d, groups: _g, tags: _t, custom: _cu, webhookConfig, triggers, ...input } = read;
    const kept = (await client.workflowDefinitions.updateWorkflowDefinition({ ...input, webhookConfig: webhookConfig!, triggers: triggers!, ifVersion: 1 })).data;
    expect(JSON.stringify(kept)).not.toContain('whsec_');
    const executionId = await run('secretive');
    const [delivery] = deliveriesOf(executionId);
    expect(new Webhook(hookSecret).verify(delivery!.body, delivery!.headers as Record<string, string>)).toMatchObject({ type: 'execution.completed' });
    for (const [triggerId, secret] of [['gen', triggerSecret], ['own', given]] as const) {
      const signed = await client.workflowExecutions.inboundWorkflowTrigger({ params: { definitionId: 'secretive' }, query: { triggerId }, body: { kept: true }, signingSecret: secret });
      expect(signed.data.accepted).toBe(true);
    }

    // Left out on update: a new one, shown in that response only.
    const replaced = (await client.workflowDefinitions.updateWorkflowDefinition({ ...input, webhookConfig: { url: sink.url }, triggers: [{ triggerId: 'gen', inboundWebhook: { secret: '__redacted__' } }], ifVersion: 2 })).data;
    const newHookSecret = replaced.webhookConfig!.secret!;
    expect(newHookSecret).toMatch(/^whsec_/);
    expect(newHookSecret).not.toBe(hookSecret);
    expect(replaced.triggers![0]!.inboundWebhook.secret).toBe('__redacted__');
    // The deliveries sign with the current version's secret.
    const later = await run('secretive');
    expect(() => new Webhook(newHookSecret).verify(deliveriesOf(later)[0]!.body, deliveriesOf(later)[0]!.headers as Record<string, string>)).not.toThrow();

    // __redacted__ for a trigger that had no stored secret, and a webhookConfig secret in another form.
    await expectCollabError(
      client.workflowDefinitions.updateWorkflowDefinition({ ...input, triggers: [{ triggerId: 'new-one', inboundWebhook: { secret: '__redacted__' } }], ifVersion: 3 }),
      'INVALID_ARGUMENT',
      /triggers\[0\].inboundWebhook.secret is "__redacted__", but there is no stored secret/,
    );
    await expectCollabError(client.workflowDefinitions.updateWorkflowDefinition({ ...input, webhookConfig: { url: sink.url, secret: 'not-a-standard-webhooks-secret' }, ifVersion: 3 }), 'INVALID_ARGUMENT', /whsec_/);
  });
});
