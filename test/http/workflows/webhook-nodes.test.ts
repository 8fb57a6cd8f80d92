// Sync webhook steps end to end against a real local receiver: the envelope
// and its headers, the answer's decision and output, a 4xx that fails at
// once, a 5xx the job tries again, tries that run out, the signature with the
// definition's webhookConfig secret, and an address the guard refuses.
import type { ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { testClock } from '../../../server/lib/clock.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { closeReceivers, startReceiver, type Received } from '../../helpers/receiver.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';
import { webhookDefinition } from './fixtures.js';

const clock = testClock(Date.now());
let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
/** What the receiver answers next, by the step's node. */
let answer: (req: Received, res: ServerResponse) => void = (_req, res) => void res.writeHead(204).end();
const runJobs = () => server.running.services.jobs.runDue();
const json = (res: ServerResponse, status: number, body: unknown) => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

beforeAll(async () => {
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }, { overrides: { clock } });
  ws = await server.workspace();
  client = server.client(ws);
  receiver = await startReceiver((req, res) => answer(req, res));
});
afterAll(async () => {
  await server?.close();
  await closeReceivers();
});

async function dispatched(definitionId: string, triggerContext: Record<string, unknown> = {}) {
  const { executionId } = (await client.workflowExecutions.dispatchWorkflowExecution({ definitionId, triggerContext })).data;
  return executionId;
}
const execution = async (executionId: string) => (await client.workflowExecutions.getWorkflowExecution({ executionId })).data;
const requestsOf = (executionId: string) => receiver.received.filter((r) => JSON.parse(r.body).executionId === executionId);

describe('sync webhook steps', () => {
  it('post the envelope with the node\'s headers; an approve answer completes the step with its output', async () => {
    await client.workflowDefinitions.createWorkflowDefinition(webhookDefinition('hook-approve', receiver.url, { requestHeaders: { 'x-team': 'legal', Authorization: 'Bearer team-token' } }));
    answer = (_req, res) => json(res, 200, { decision: 'approve', output: { ticket: 'LEGAL-1' } });
    const id = await dispatched('hook-approve', { page: 'q3' });
    await runJobs();

    const [request] = requestsOf(id);
    expect(request!.method).toBe('POST');
    expect(request!.headers).toMatchObject({ 'content-type': 'application/json', 'x-team': 'legal', authorization: 'Bearer team-token', 'webhook-id': expect.stringContaining(id) });
    expect(request!.headers['webhook-signature']).toBeUndefined(); // no webhookConfig: unsigned
    const run = await execution(id);
    expect(JSON.parse(request!.body)).toEqual({ executionId: id, definitionId: 'hook-approve', correlationId: run.correlationId, stepId: run.steps[0]!.stepId, nodeId: 'gate', iteration: 1, input: {}, triggerContext: { page: 'q3' } });
    expect(run.status).toBe('completed');
    expect(run.steps).toMatchObject([{ nodeId: 'gate', nodeType: 'webhook', status: 'completed', decision: 'approve', attempts: 1, output: { ticket: 'LEGAL-1', decision: 'approve', httpStatus: 200, responseJson: { decision: 'approve', output: { ticket: 'LEGAL-1' } } } }]);
    const events = (await client.workflowExecutions.getWorkflowExecutionEvents({ executionId: id })).data.events;
    expect(events.map((e) => e.type)).toEqual(['execution.dispatched', 'step.completed', 'execution.completed']);
    expect(events[1]!.data).toMatchObject({ nodeType: 'webhook', decision: 'approve', httpStatus: 200 });
  });

  it('are signed the Standard Webhooks way with the definition\'s webhookConfig secret', async () => {
    const sink = await startReceiver((_req, res) => void res.writeHead(204).end(), '/events');
    const created = (await client.workflowDefinitions.createWorkflowDefinition(webhookDefinition('hook-signed', receiver.url, {}, { webhookConfig: { url: sink.url, eventTypes: ['execution.completed'] } }))).data;
    const secret = created.webhookConfig!.secret!;
    answer = (_req, res) => json(res, 200, { decision: 'approve' });
    const id = await dispatched('hook-signed');
    await runJobs();
    const [request] = requestsOf(id);
    expect(new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>)).toMatchObject({ executionId: id, nodeId: 'gate' });
  });

  it('a reject answer takes the reject edge, the next step getting the output as input; an answer without decision completes without one', async () => {
    await client.workflowDefinitions.createWorkflowDefinition(webhookDefinition('hook-reject', receiver.url));
    answer = (req, res) => (JSON.parse(req.body).nodeId === 'gate' ? json(res, 200, { decision: 'reject', output: { reason: 'missing clause' } }) : res.writeHead(200, { 'content-type': 'text/plain' }).end('noted'));
    const id = await dispatched('hook-reject');
    await runJobs();
    const run = await execution(id);
    expect(run.status).toBe('completed');
    expect(run.steps.map((s) => [s.nodeId, s.status, s.decision])).toEqual([
      ['gate', 'completed', 'reject'],
      ['after', 'completed', null],
    ]);
    expect(run.steps[1]!.input).toMatchObject({ reason: 'missing clause', decision: 'reject' });
    expect(JSON.parse(requestsOf(id)[1]!.body).input).toMatchObject({ reason: 'missing clause', decision: 'reject' });
    expect(run.steps[1]!.output).toEqual({ httpStatus: 200, responseText: 'noted' });
  });

  it('a 4xx fails the step at once (webhook-http-4xx), and the run with it', async () => {
    await client.workflowDefinitions.createWorkflowDefinition(webhookDefinition('hook-4xx', receiver.url));
    answer = (_req, res) => json(res, 422, { error: 'bad' });
    const id = await dispatched('hook-4xx');
    await runJobs();
    clock.advance(600_000);
    await runJobs();
    const run = await execution(id);
    expect(requestsOf(id)).toHaveLength(1);
    expect(run.steps[0]).toMatchObject({ status: 'failed', attempts: 1, error: { code: 'webhook-http-4xx', message: 'the webhook answered 422' }, output: { httpStatus: 422 } });
    expect(run).toMatchObject({ status: 'failed', failureReason: { code: 'step-failed' } });
  });

  it('a 5xx is tried again on the job\'s schedule, with the same webhook-id, and the next answer decides', async () => {
    await client.workflowDefinitions.createWorkflowDefinition(webhookDefinition('hook-5xx', receiver.url));
    let calls = 0;
    answer = (_req, res) => (++calls === 1 ? json(res, 503, {}) : json(res, 200, { decision: 'approve' }));
    const id = await dispatched('hook-5xx');
    await runJobs();
    expect((await execution(id)).steps[0]).toMatchObject({ status: 'running', attempts: 1 });
    clock.advance(1_000);
    await runJobs();
    const run = await execution(id);
    expect(run.steps[0]).toMatchObject({ status: 'completed', decision: 'approve', attempts: 2 });
    const [first, second] = requestsOf(id);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
  });

  it('fails the step webhook-unreachable once every try failed', async () => {
    await client.workflowDefinitions.createWorkflowDefinition(webhookDefinition('hook-down', receiver.url, { timeoutMs: 1000 }));
    answer = (_req, res) => json(res, 500, {});
    const id = await dispatched('hook-down');
    for (let i = 0; i < 10; i++) {
      await runJobs();
      clock.advance(300_000);
    }
    const run = await execution(id);
    expect(requestsOf(id)).toHaveLength(8);
    expect(run.steps[0]).toMatchObject({ status: 'failed', attempts: 8, error: { code: 'webhook-unreachable', message: expect.stringContaining('the webhook answered 500') } });
    expect(run.status).toBe('failed');
  });

  it('an answer whose decision is neither approve nor reject fails the step', async () => {
    await client.workflowDefinitions.createWorkflowDefinition(webhookDefinition('hook-odd', receiver.url));
    answer = (_req, res) => json(res, 200, { decision: 'approved' });
    const id = await dispatched('hook-odd');
    await runJobs();
    expect((await execution(id)).steps[0]).toMatchObject({ status: 'failed', error: { code: 'webhook-invalid-answer' } });
  });

  it('expectedStatusCodes replace 2xx as success', async () => {
    await client.workflowDefinitions.createWorkflowDefinition(webhookDefinition('hook-expected', receiver.url, { expectedStatusCodes: [202] }));
    answer = (_req, res) => json(res, 202, { decision: 'approve' });
    const accepted = await dispatched('hook-expected');
    await runJobs();
    expect((await execution(accepted)).steps[0]).toMatchObject({ status: 'completed', decision: 'approve' });
    answer = (_req, res) => json(res, 200, { decision: 'approve' });
    const other = await dispatched('hook-expected');
    await runJobs();
    expect((await execution(other)).steps[0]).toMatchObject({ status: 'failed', error: { code: 'webhook-unexpected-status' } });
  });

});

describe('Create Workflow Definition of webhook nodes', () => {
  it('refuses reserved or too many request headers, and a URL that is not http(s)', async () => {
    for (const [name, pattern] of [
      ['Content-Type', /reserved/],
      ['webhook-signature', /reserved/],
      ['Host', /reserved/],
      ['Connection', /reserved/],
      ['x-workflow-event', /reserved/],
      ['bad header', /not a header name/],
    ] as const) {
      await expectCollabError(client.workflowDefinitions.createWorkflowDefinition(webhookDefinition('hook-bad-headers', receiver.url, { requestHeaders: { [name]: 'x' } })), 'INVALID_ARGUMENT', pattern);
    }
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`x-h${i}`, 'v']));
    await expectCollabError(client.workflowDefinitions.createWorkflowDefinition(webhookDefinition('hook-bad-headers', receiver.url, { requestHeaders: many })), 'INVALID_ARGUMENT', /at most 20/);
    await expectCollabError(client.workflowDefinitions.createWorkflowDefinition(webhookDefinition('hook-bad-headers', receiver.url, { requestHeaders: { 'x-a': 'line\r\nbreak' } })), 'INVALID_ARGUMENT', /control character/);
    await expectCollabError(client.workflowDefinitions.createWorkflowDefinition(webhookDefinition('hook-bad-headers', 'ftp://example.com/x')), 'INVALID_ARGUMENT', /nodes\[0\].*url/);
  });
});

// Last: it restarts the server without private addresses.
describe('a webhook step whose URL the outbound guard refuses', () => {
  it('fails at once, webhook-blocked, without a request', async () => {
    await client.workflowDefinitions.createWorkflowDefinition(webhookDefinition('hook-blocked', receiver.url));
    server.env.WEBHOOK_ALLOW_PRIVATE_URLS = 'false';
    await server.restart();
    client = server.client(ws);
    const before = receiver.received.length;
    const id = await dispatched('hook-blocked');
    await runJobs();
    const run = await execution(id);
    expect(run.steps[0]).toMatchObject({ status: 'failed', attempts: 1, error: { code: 'webhook-blocked', message: expect.stringContaining('127.0.0.1') } });
    expect(receiver.received.length).toBe(before);
    // And such a URL is refused when a definition is written.
    await expectCollabError(client.workflowDefinitions.createWorkflowDefinition(webhookDefinition('hook-blocked-2', receiver.url)), 'INVALID_ARGUMENT', /not publicly routable/);
  });
});
