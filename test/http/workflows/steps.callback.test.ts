// Async webhook steps and Record Workflow Step Callback: the request carries
// a callback URL and token, the step waits, the receiver's callback (no API
// credentials) completes or fails it in one transition; a forged token, a
// second callback and a late one are refused; the callback timeout fails it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { testClock } from '../../../server/lib/clock.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { closeReceivers, startReceiver } from '../../helpers/receiver.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { webhookDefinition } from './fixtures.js';

const clock = testClock(Date.now());
let server: TestServer;
let client: Client;
/** The receiver's side: no credentials of ours. */
let anonymous: Client;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
/** Called by the receiver before it answers, with the request's callback. */
let onRequest: (body: any) => Promise<void> = async () => undefined;
const runJobs = () => server.running.services.jobs.runDue();

beforeAll(async () => {
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }, { overrides: { clock } });
  client = server.client(await server.workspace());
  anonymous = server.client({});
  receiver = await startReceiver((req, res) => {
    const body = JSON.parse(req.body);
    if (body.nodeId !== 'gate') return void res.writeHead(204).end();
    onRequest(body).then(
      () => res.writeHead(202).end(),
      () => res.writeHead(500).end(),
    );
  });
  await client.workflowDefinitions.createWorkflowDefinition(webhookDefinition('async-gate', receiver.url, { mode: 'async', callbackTimeoutMs: 60_000 }));
});
afterAll(async () => {
  await server?.close();
  await closeReceivers();
});

/** A run of async-gate whose gate step waits; its request's body. */
async function waitingRun() {
  const { executionId } = (await client.workflowExecutions.dispatchWorkflowExecution({ definitionId: 'async-gate', triggerContext: { doc: 'q3' } })).data;
  await runJobs();
  const request = receiver.received.map((r) => JSON.parse(r.body)).find((body) => body.executionId === executionId && body.nodeId === 'gate');
  return { executionId, request };
}
const execution = async (executionId: string) => (await client.workflowExecutions.getWorkflowExecution({ executionId })).data;

describe('Record Workflow Step Callback', () => {
  it('completes the waiting step with the callback\'s decision and output, without API credentials', async () => {
    const { executionId, request } = await waitingRun();
    const run = await execution(executionId);
    expect(run.steps[0]).toMatchObject({ nodeId: 'gate', status: 'waiting', attempts: 1, output: { httpStatus: 202, callbackExpiresAt: clock.nowMs() + 60_000 } });
    expect(request.callback).toEqual({ url: `${server.url}/v2/workflow/steps/callback`, token: expect.any(String) });
    const awaiting = (await client.workflowExecutions.getWorkflowExecutionEvents({ executionId })).data.events.find((e) => e.type === 'step.awaiting-approval')!;
    expect(awaiting).toMatchObject({ stepId: run.steps[0]!.stepId, data: { nodeId: 'gate', nodeType: 'webhook', callbackExpiresAt: clock.nowMs() + 60_000 } });

    // The receiver posts to the URL it was given, as our docs tell it to.
    const response = await fetch(request.callback.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ data: { token: request.callback.token, status: 'completed', decision: 'approve', output: { ticket: 'LEGAL-7' } } }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { result: unknown }).result).toEqual({ status: 'success', message: 'Workflow step callback recorded.', data: { recorded: true, executionId, stepId: run.steps[0]!.stepId, stepStatus: 'completed' } });
    const done = await execution(executionId);
    expect(done.status).toBe('completed');
    expect(done.steps).toMatchObject([{ status: 'completed', decision: 'approve', output: { ticket: 'LEGAL-7', callback: true, decision: 'approve' } }]);
    const completed = (await client.workflowExecutions.getWorkflowExecutionEvents({ executionId })).data.events.find((e) => e.type === 'step.completed')!;
    expect(completed.data).toMatchObject({ source: 'callback', decision: 'approve' });

    // A second callback for the ended step.
    await expectCollabError(anonymous.workflowSteps.recordWorkflowStepCallback({ token: request.callback.token, status: 'completed', decision: 'reject' }), 'FAILED_PRECONDITION', /already ended \(completed\)/);
  });

  it('a reject routes the reject edge; a failed callback fails the step with its error', async () => {
    const rejected = await waitingRun();
    await anonymous.workflowSteps.recordWorkflowStepCallback({ token: rejected.request.callback.token, status: 'completed', decision: 'reject', output: { reason: 'no' } });
    await runJobs();
    expect((await execution(rejected.executionId)).steps.map((s) => [s.nodeId, s.status, s.decision])).toEqual([
      ['gate', 'completed', 'reject'],
      ['after', 'completed', null],
    ]);

    const failed = await waitingRun();
    const result = (await anonymous.workflowSteps.recordWorkflowStepCallback({ token: failed.request.callback.token, status: 'failed', error: { code: 'legal-down', message: 'Legal system offline' } })).data;
    expect(result.stepStatus).toBe('failed');
    const run = await execution(failed.executionId);
    expect(run.steps[0]).toMatchObject({ status: 'failed', error: { code: 'legal-down', message: 'Legal system offline' } });
    expect(run.status).toBe('failed');
  });

  it('refuses a token it did not issue, whatever part is wrong, as PERMISSION_DENIED', async () => {
    const { executionId, request } = await waitingRun();
    const token: string = request.callback.token;
    const [target, tag] = token.split('.') as [string, string];
    const [apiKeyId, , stepId] = JSON.parse(Buffer.from(target, 'base64url').toString('utf8'));
    const otherTarget = Buffer.from(JSON.stringify([apiKeyId, 'wfx_someone_else', stepId]), 'utf8').toString('base64url');
    for (const forged of [`${target}.${tag.slice(0, -2)}AA`, `${otherTarget}.${tag}`, 'not-a-token', `${target}.`]) {
      await expectCollabError(anonymous.workflowSteps.recordWorkflowStepCallback({ token: forged, status: 'completed', decision: 'approve' }), 'PERMISSION_DENIED', /^workflowSteps\.recordWorkflowStepCallback: callback token does not match$|callback token does not match/);
    }
    expect((await execution(executionId)).steps[0]!.status).toBe('waiting');
    // The data is checked as any operation's.
    await expectCollabError(anonymous.workflowSteps.recordWorkflowStepCallback({ token, status: 'failed', decision: 'approve' }), 'INVALID_ARGUMENT', /decision/);
  });

  it('the callback timeout fails the step (callback-timeout), and a late callback is refused', async () => {
    const { executionId, request } = await waitingRun();
    clock.advance(59_000);
    await runJobs();
    expect((await execution(executionId)).steps[0]!.status).toBe('waiting');
    clock.advance(1_000);
    await runJobs();
    const run = await execution(executionId);
    expect(run.steps[0]).toMatchObject({ status: 'failed', error: { code: 'callback-timeout' } });
    expect(run.status).toBe('failed');
    await expectCollabError(anonymous.workflowSteps.recordWorkflowStepCallback({ token: request.callback.token, status: 'completed', decision: 'approve' }), 'FAILED_PRECONDITION', /already ended \(failed\)/);
  });

  it('takes a callback that comes before the receiver answered the request', async () => {
    onRequest = async (body) => {
      await anonymous.workflowSteps.recordWorkflowStepCallback({ token: body.callback.token, status: 'completed', decision: 'approve' });
    };
    try {
      const { executionId } = await waitingRun();
      const run = await execution(executionId);
      expect(run.status).toBe('completed');
      expect(run.steps[0]).toMatchObject({ status: 'completed', decision: 'approve', output: { callback: true } });
      const types = (await client.workflowExecutions.getWorkflowExecutionEvents({ executionId })).data.events.map((e) => e.type);
      expect(types).toEqual(['execution.dispatched', 'step.completed', 'execution.completed']);
    } finally {
      onRequest = async () => undefined;
    }
  });

  it('is NOT_FOUND once the execution is purged', async () => {
    await client.workflowDefinitions.createWorkflowDefinition(webhookDefinition('async-purged', receiver.url, { mode: 'async' }));
    const { executionId } = (await client.workflowExecutions.dispatchWorkflowExecution({ definitionId: 'async-purged' })).data;
    await runJobs();
    const request = receiver.received.map((r) => JSON.parse(r.body)).find((body) => body.executionId === executionId)!;
    await client.workflowExecutions.cancelWorkflowExecution({ executionId });
    await client.workflowDefinitions.deleteWorkflowDefinition({ definitionId: 'async-purged', purge: true });
    await expectCollabError(anonymous.workflowSteps.recordWorkflowStepCallback({ token: request.callback.token, status: 'completed' }), 'NOT_FOUND');
  });
});
