// The operations on one step of a running execution: a reviewer's decision,
// an operator's override (Resolve), a cancel, and a blocking agent step's
// resolution; each with its success, a validation failure, the credential
// checks, every domain error the contract names, and another application
// seeing nothing. Also cancelling a whole execution mid-run.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError, expectCredentialChecks } from '../../helpers/credentials.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

type Execution = Awaited<ReturnType<Client['workflowExecutions']['getWorkflowExecution']>>['data'];

const ORG = 'wf-steps';
let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;
let clientB: Client;
let pages: Server;
let site: string;
let documents = 0;

beforeAll(async () => {
  pages = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(req.url === '/clean' ? '<!doctype html><html><head><title>Clean</title></head><body><p>No links.</p></body></html>' : '<html><body>ok</body></html>');
  });
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
  site = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  ws = await server.workspace();
  client = server.client(ws);
  clientB = server.client(await server.workspace());
  await server.post('/v2/organizations/add', { data: { organizationId: ORG } }, appHeaders(ws));
  await server.post('/v2/users/add', { data: { organizationId: ORG, users: ['u-ana', 'u-bo', 'u-cy'].map((userId) => ({ userId, name: userId })) } }, appHeaders(ws));
  const notice = (nodeId: string) => ({ nodeId, type: 'notification' as const, config: { userIds: ['u-ana'], bodyTemplate: `${nodeId}: {{input.decision}}` } });
  await client.workflowDefinitions.createWorkflowDefinition({
    definitionId: 'steps-review',
    name: 'One review',
    nodes: [{ nodeId: 'review', type: 'human', config: { reviewers: [{ userId: 'u-ana', mandatory: true }, { userId: 'u-bo' }] } }, notice('done'), notice('rework'), notice('audit')],
    edges: [
      { from: 'review', to: 'done', on: 'approve' },
      { from: 'review', to: 'rework', on: 'reject' },
      { from: 'review', to: 'audit', on: 'always' },
    ],
  });
  await client.workflowDefinitions.createWorkflowDefinition({
    definitionId: 'steps-pair',
    name: 'Two reviews side by side',
    nodes: [
      { nodeId: 'a', type: 'human', config: { reviewerIds: ['u-ana'] } },
      { nodeId: 'b', type: 'human', config: { reviewerIds: ['u-bo'] } },
      notice('a-next'),
      notice('b-next'),
      notice('no'),
    ],
    edges: [
      { from: 'a', to: 'a-next', on: 'approve' },
      { from: 'a', to: 'no', on: 'reject' },
      { from: 'b', to: 'b-next', on: 'approve' },
      { from: 'b', to: 'no', on: 'reject' },
    ],
  });
  await client.workflowDefinitions.createWorkflowDefinition({
    definitionId: 'steps-agent',
    name: 'A blocking check',
    nodes: [{ nodeId: 'check', type: 'agent', config: { agentId: 'broken-links', urlPath: 'page.url', blocking: true } }, notice('ok'), notice('nope')],
    edges: [
      { from: 'check', to: 'ok', on: 'approve' },
      { from: 'check', to: 'nope', on: 'reject' },
    ],
  });
});
afterAll(async () => {
  await server?.close();
  pages?.closeAllConnections();
  await new Promise((resolve) => pages?.close(resolve));
});

async function runJobs(): Promise<void> {
  while ((await server.running.services.jobs.runDue()) > 0);
}
const get = async (executionId: string) => (await client.workflowExecutions.getWorkflowExecution({ executionId })).data;
const shape = (execution: Execution) => execution.steps.map((step) => [step.nodeId, step.status, step.decision]);
const stepOf = (execution: Execution, nodeId: string) => execution.steps.find((step) => step.nodeId === nodeId)!;
const eventsOf = async (executionId: string) => (await client.workflowExecutions.getWorkflowExecutionEvents({ executionId, pageSize: 500 })).data.events;

async function started(definitionId: string, triggerContext: Record<string, unknown> = {}, run = true): Promise<{ executionId: string; execution: Execution }> {
  const documentId = `doc-${++documents}`;
  await server.post('/v2/organizations/documents/add', { data: { organizationId: ORG, documentId } }, appHeaders(ws));
  const { executionId } = (await client.workflowExecutions.dispatchWorkflowExecution({ definitionId, organizationId: ORG, documentId, triggerContext })).data;
  if (run) await runJobs();
  return { executionId, execution: await get(executionId) };
}

describe('Record Workflow Reviewer Decision', () => {
  const path = '/v2/workflow/steps/recordReviewerDecision';

  it('records each reviewer once: pending until the mandatory one approves, then the step completes and routes', async () => {
    const { executionId, execution } = await started('steps-review');
    const stepId = stepOf(execution, 'review').stepId;
    expect((await client.workflowSteps.recordWorkflowReviewerDecision({ executionId, stepId, reviewerId: 'u-bo', decision: 'approve' })).data).toEqual({ recorded: true, aggregatorStatus: 'pending', stepStatus: 'waiting' });
    expect(stepOf(await get(executionId), 'review').output).toMatchObject({ approveCount: 1, totalResponses: 1, mandatoryCount: 1, mandatoryApproveCount: 0 });
    expect((await client.workflowSteps.recordWorkflowReviewerDecision({ executionId, stepId, reviewerId: 'u-ana', decision: 'approve', reason: 'Fine.' })).data).toEqual({ recorded: true, aggregatorStatus: 'resolved', stepStatus: 'completed' });
    await runJobs();
    const done = await get(executionId);
    expect(done.status).toBe('completed');
    expect(shape(done)).toEqual([
      ['review', 'completed', 'approve'],
      ['done', 'completed', null],
      ['audit', 'completed', null],
    ]);
    expect(stepOf(done, 'review').output).toMatchObject({ aggregatorStatus: 'resolved', decision: 'approve', approved: true, approveCount: 2, mandatoryApproveCount: 1 });
  });

  it('a reject by any reviewer rejects the step, with who and why', async () => {
    const { executionId, execution } = await started('steps-review');
    const stepId = stepOf(execution, 'review').stepId;
    expect((await client.workflowSteps.recordWorkflowReviewerDecision({ executionId, stepId, reviewerId: 'u-bo', decision: 'reject', reason: 'Typos.' })).data).toMatchObject({ aggregatorStatus: 'rejected', stepStatus: 'completed' });
    await runJobs();
    const done = await get(executionId);
    expect(shape(done).map(([nodeId]) => nodeId)).toEqual(['review', 'rework', 'audit']);
    expect(stepOf(done, 'review').output).toMatchObject({ rejectedBy: 'u-bo', rejectorMandatory: false, rejectionReason: 'Typos.' });
  });

  it('refuses a malformed request (INVALID_ARGUMENT)', async () => {
    const { executionId, execution } = await started('steps-review');
    const stepId = stepOf(execution, 'review').stepId;
    await expectCollabError(client.workflowSteps.recordWorkflowReviewerDecision({ executionId, stepId, reviewerId: 'u-ana', decision: 'maybe' } as never), 'INVALID_ARGUMENT', /decision/);
    await expectCollabError(client.workflowSteps.recordWorkflowReviewerDecision({ executionId, stepId, decision: 'approve' } as never), 'INVALID_ARGUMENT', /reviewerId/);
    await expectCollabError(client.workflowSteps.recordWorkflowReviewerDecision({ executionId, stepId, reviewerId: 'u-ana', decision: 'approve', extra: 1 } as never), 'INVALID_ARGUMENT');
  });

  it('refuses a missing or wrong credential', async () => {
    await expectCredentialChecks(server, ws, path, { executionId: 'wfx_x', stepId: 'step_x', reviewerId: 'u-ana', decision: 'approve' });
  });

  it('ALREADY_EXISTS for a reviewer\'s second decision; PERMISSION_DENIED for a non-reviewer; FAILED_PRECONDITION once the step ended or for a step that is not human; NOT_FOUND for an unknown execution or step', async () => {
    const { executionId, execution } = await started('steps-review');
    const stepId = stepOf(execution, 'review').stepId;
    await client.workflowSteps.recordWorkflowReviewerDecision({ executionId, stepId, reviewerId: 'u-bo', decision: 'approve' });
    await expectCollabError(client.workflowSteps.recordWorkflowReviewerDecision({ executionId, stepId, reviewerId: 'u-bo', decision: 'reject' }), 'ALREADY_EXISTS', /u-bo/);
    await expectCollabError(client.workflowSteps.recordWorkflowReviewerDecision({ executionId, stepId, reviewerId: 'u-cy', decision: 'approve' }), 'PERMISSION_DENIED', /u-cy/);
    // Nothing of the refused calls counts.
    expect(stepOf(await get(executionId), 'review')).toMatchObject({ status: 'waiting', output: { totalResponses: 1 } });
    await client.workflowSteps.recordWorkflowReviewerDecision({ executionId, stepId, reviewerId: 'u-ana', decision: 'approve' });
    await runJobs();
    await expectCollabError(client.workflowSteps.recordWorkflowReviewerDecision({ executionId, stepId, reviewerId: 'u-ana', decision: 'reject' }), 'FAILED_PRECONDITION', /completed/);
    const notice = stepOf(await get(executionId), 'done');
    await expectCollabError(client.workflowSteps.recordWorkflowReviewerDecision({ executionId, stepId: notice.stepId, reviewerId: 'u-ana', decision: 'approve' }), 'FAILED_PRECONDITION', /notification/);
    await expectCollabError(client.workflowSteps.recordWorkflowReviewerDecision({ executionId, stepId: 'step_nope_9', reviewerId: 'u-ana', decision: 'approve' }), 'NOT_FOUND');
    await expectCollabError(client.workflowSteps.recordWorkflowReviewerDecision({ executionId: 'wfx_00000000000000000000000000', stepId, reviewerId: 'u-ana', decision: 'approve' }), 'NOT_FOUND');
  });

  it('another application sees nothing: NOT_FOUND, and the step is untouched', async () => {
    const { executionId, execution } = await started('steps-review');
    const stepId = stepOf(execution, 'review').stepId;
    await expectCollabError(clientB.workflowSteps.recordWorkflowReviewerDecision({ executionId, stepId, reviewerId: 'u-ana', decision: 'approve' }), 'NOT_FOUND');
    expect(stepOf(await get(executionId), 'review')).toMatchObject({ status: 'waiting', output: { reviewerIds: ['u-ana', 'u-bo'] } });
    expect(stepOf(await get(executionId), 'review').output.totalResponses).toBeUndefined();
  });
});

describe('Resolve Workflow Step', () => {
  const path = '/v2/workflow/steps/resolve';

  it('force-approve completes a waiting human step as approved, recorded as an override; a given decision cannot contradict it', async () => {
    const { executionId, execution } = await started('steps-review');
    const stepId = stepOf(execution, 'review').stepId;
    const { data } = await client.workflowSteps.resolveWorkflowStep({ executionId, stepId, action: 'force-approve', actorId: 'ops-jane', reason: 'Reviewer away.', output: { decision: 'reject', ticket: 'OPS-1' } });
    expect(data).toEqual({ resolved: true, executionId, stepId, action: 'force-approve', stepStatus: 'completed' });
    await runJobs();
    const done = await get(executionId);
    expect(shape(done)).toEqual([
      ['review', 'completed', 'approve'],
      ['done', 'completed', null],
      ['audit', 'completed', null],
    ]);
    expect(stepOf(done, 'review').output).toMatchObject({ decision: 'approve', approved: true, ticket: 'OPS-1', overriddenBy: 'ops-jane', overrideAction: 'force-approve', overrideReason: 'Reviewer away.', overriddenAt: expect.any(Number) });
    const completed = (await eventsOf(executionId)).find((event) => event.type === 'step.completed' && event.stepId === stepId);
    expect(completed?.data).toMatchObject({ actorId: 'ops-jane', action: 'force-approve', overridden: true, decision: 'approve' });
  });

  it('force-fail fails the step and takes only its always edge; the run completes, routed', async () => {
    const { executionId, execution } = await started('steps-review');
    const stepId = stepOf(execution, 'review').stepId;
    expect((await client.workflowSteps.resolveWorkflowStep({ executionId, stepId, action: 'force-fail', actorId: 'ops-jane', reason: 'Reviewer gone.' })).data.stepStatus).toBe('failed');
    await runJobs();
    const done = await get(executionId);
    expect(done.status).toBe('completed');
    expect(shape(done)).toEqual([
      ['review', 'failed', null],
      ['audit', 'completed', null],
    ]);
    expect(stepOf(done, 'review').error).toEqual({ code: 'force-failed', message: 'Reviewer gone.' });
  });

  it('force-approve on an agent step whose run still goes routes its approve edge and cancels the run', async () => {
    const { executionId } = await started('steps-agent', { page: { url: `${site}/clean` } }, false);
    await server.running.services.jobs.runDue(1);
    const check = stepOf(await get(executionId), 'check');
    const runId = check.output.agentExecutionId as string;
    expect((await client.agentRuns.getAgentExecution({ executionId: runId })).data.execution.status).toBe('running');
    await client.workflowSteps.resolveWorkflowStep({ executionId, stepId: check.stepId, action: 'force-approve', actorId: 'ops-jane' });
    await runJobs();
    expect(shape(await get(executionId))).toEqual([
      ['check', 'completed', 'approve'],
      ['ok', 'completed', null],
    ]);
    expect((await client.agentRuns.getAgentExecution({ executionId: runId })).data.execution.status).toBe('cancelled');
  });

  it('reviewer-reject by one of the step\'s reviewers rejects it', async () => {
    const { executionId, execution } = await started('steps-review');
    const stepId = stepOf(execution, 'review').stepId;
    await client.workflowSteps.resolveWorkflowStep({ executionId, stepId, action: 'reviewer-reject', actorId: 'u-bo' });
    await runJobs();
    expect(shape(await get(executionId))).toEqual([
      ['review', 'completed', 'reject'],
      ['rework', 'completed', null],
      ['audit', 'completed', null],
    ]);
  });

  it('refuses a malformed request (INVALID_ARGUMENT)', async () => {
    const { executionId, execution } = await started('steps-review');
    const stepId = stepOf(execution, 'review').stepId;
    await expectCollabError(client.workflowSteps.resolveWorkflowStep({ executionId, stepId, action: 'force-maybe', actorId: 'ops' } as never), 'INVALID_ARGUMENT', /action/);
    await expectCollabError(client.workflowSteps.resolveWorkflowStep({ executionId, stepId, action: 'force-approve' } as never), 'INVALID_ARGUMENT', /actorId/);
    await expectCollabError(client.workflowSteps.resolveWorkflowStep({ executionId, stepId, action: 'force-approve', actorId: 'x'.repeat(257) }), 'INVALID_ARGUMENT', /actorId/);
  });

  it('refuses a missing or wrong credential', async () => {
    await expectCredentialChecks(server, ws, path, { executionId: 'wfx_x', stepId: 'step_x', action: 'force-approve', actorId: 'ops' });
  });

  it('PERMISSION_DENIED for a reviewer action by a non-reviewer; FAILED_PRECONDITION for a step in a state the action does not take, or reviewer actions on other steps; NOT_FOUND for an unknown execution or step', async () => {
    const { executionId, execution } = await started('steps-review');
    const stepId = stepOf(execution, 'review').stepId;
    await expectCollabError(client.workflowSteps.resolveWorkflowStep({ executionId, stepId, action: 'reviewer-approve', actorId: 'u-cy' }), 'PERMISSION_DENIED', /u-cy/);
    expect(stepOf(await get(executionId), 'review').status).toBe('waiting');
    await client.workflowSteps.resolveWorkflowStep({ executionId, stepId, action: 'reviewer-approve', actorId: 'u-ana' });
    await expectCollabError(client.workflowSteps.resolveWorkflowStep({ executionId, stepId, action: 'force-reject', actorId: 'ops' }), 'FAILED_PRECONDITION', /completed/);
    await expectCollabError(client.workflowSteps.resolveWorkflowStep({ executionId, stepId, action: 'force-fail', actorId: 'ops' }), 'FAILED_PRECONDITION', /completed/);
    // The notification steps the approval started are still pending: approve/reject take a waiting step only.
    const pending = stepOf(await get(executionId), 'done');
    expect(pending.status).toBe('pending');
    await expectCollabError(client.workflowSteps.resolveWorkflowStep({ executionId, stepId: pending.stepId, action: 'force-approve', actorId: 'ops' }), 'FAILED_PRECONDITION', /pending/);
    await expectCollabError(client.workflowSteps.resolveWorkflowStep({ executionId, stepId: pending.stepId, action: 'reviewer-approve', actorId: 'u-ana' }), 'FAILED_PRECONDITION', /human/);
    await expectCollabError(client.workflowSteps.resolveWorkflowStep({ executionId, stepId: 'step_nope_9', action: 'force-approve', actorId: 'ops' }), 'NOT_FOUND');
    await expectCollabError(client.workflowSteps.resolveWorkflowStep({ executionId: 'wfx_00000000000000000000000000', stepId, action: 'force-approve', actorId: 'ops' }), 'NOT_FOUND');
    await runJobs();
  });

  it('another application sees nothing: NOT_FOUND, and the step is untouched', async () => {
    const { executionId, execution } = await started('steps-review');
    const stepId = stepOf(execution, 'review').stepId;
    await expectCollabError(clientB.workflowSteps.resolveWorkflowStep({ executionId, stepId, action: 'force-approve', actorId: 'ops' }), 'NOT_FOUND');
    expect(stepOf(await get(executionId), 'review').status).toBe('waiting');
  });
});

describe('Cancel Workflow Step', () => {
  const path = '/v2/workflow/steps/cancel';

  it('cancels one waiting step: no edge is taken from it, its sibling goes on, and the run completes', async () => {
    const { executionId, execution } = await started('steps-pair');
    const a = stepOf(execution, 'a');
    expect((await client.workflowSteps.cancelWorkflowStep({ executionId, stepId: a.stepId, actorId: 'ops-jane', reason: 'Reviewer unavailable' })).data).toEqual({ cancelled: true, executionId, stepId: a.stepId });
    await runJobs();
    expect((await get(executionId)).status).toBe('running');
    await client.workflowSteps.recordWorkflowReviewerDecision({ executionId, stepId: stepOf(execution, 'b').stepId, reviewerId: 'u-bo', decision: 'approve' });
    await runJobs();
    const done = await get(executionId);
    expect(done.status).toBe('completed');
    expect(shape(done)).toEqual([
      ['a', 'cancelled', null],
      ['b', 'completed', 'approve'],
      ['b-next', 'completed', null],
    ]);
    const cancelled = (await eventsOf(executionId)).find((event) => event.type === 'step.cancelled');
    expect(cancelled).toMatchObject({ stepId: a.stepId, data: { actorId: 'ops-jane', reason: 'Reviewer unavailable', nodeId: 'a' } });
  });

  it('cancels a step whose job has not run yet: the job finds it cancelled and starts nothing', async () => {
    const { executionId, execution } = await started('steps-pair', {}, false);
    expect(shape(execution)).toEqual([
      ['a', 'pending', null],
      ['b', 'pending', null],
    ]);
    await client.workflowSteps.cancelWorkflowStep({ executionId, stepId: stepOf(execution, 'a').stepId, actorId: 'ops' });
    await runJobs();
    const now = await get(executionId);
    expect(shape(now)).toEqual([
      ['a', 'cancelled', null],
      ['b', 'waiting', null],
    ]);
    expect(stepOf(now, 'a').attempts).toBe(0);
    expect((await eventsOf(executionId)).filter((event) => event.type === 'step.awaiting-approval').map((event) => event.stepId)).toEqual([stepOf(now, 'b').stepId]);
  });

  it('refuses a malformed request (INVALID_ARGUMENT)', async () => {
    const { executionId, execution } = await started('steps-pair');
    const stepId = stepOf(execution, 'a').stepId;
    await expectCollabError(client.workflowSteps.cancelWorkflowStep({ executionId, stepId } as never), 'INVALID_ARGUMENT', /actorId/);
    await expectCollabError(client.workflowSteps.cancelWorkflowStep({ executionId, stepId, actorId: 'ops', reason: 'x'.repeat(501) }), 'INVALID_ARGUMENT', /reason/);
  });

  it('refuses a missing or wrong credential', async () => {
    await expectCredentialChecks(server, ws, path, { executionId: 'wfx_x', stepId: 'step_x', actorId: 'ops' });
  });

  it('FAILED_PRECONDITION for a step that already ended; NOT_FOUND for an unknown execution or step', async () => {
    const { executionId, execution } = await started('steps-pair');
    const stepId = stepOf(execution, 'a').stepId;
    await client.workflowSteps.cancelWorkflowStep({ executionId, stepId, actorId: 'ops' });
    await expectCollabError(client.workflowSteps.cancelWorkflowStep({ executionId, stepId, actorId: 'ops' }), 'FAILED_PRECONDITION', /cancelled/);
    await expectCollabError(client.workflowSteps.cancelWorkflowStep({ executionId, stepId: 'step_nope_9', actorId: 'ops' }), 'NOT_FOUND');
    await expectCollabError(client.workflowSteps.cancelWorkflowStep({ executionId: 'wfx_00000000000000000000000000', stepId, actorId: 'ops' }), 'NOT_FOUND');
  });

  it('another application sees nothing: NOT_FOUND, and the step is untouched', async () => {
    const { executionId, execution } = await started('steps-pair');
    const stepId = stepOf(execution, 'a').stepId;
    await expectCollabError(clientB.workflowSteps.cancelWorkflowStep({ executionId, stepId, actorId: 'ops' }), 'NOT_FOUND');
    expect(stepOf(await get(executionId), 'a').status).toBe('waiting');
  });
});

describe('Cancel Workflow Execution mid-run', () => {
  it('cancels pending and waiting steps together; their jobs start nothing and no successor is ever scheduled', async () => {
    const { executionId, execution } = await started('steps-pair');
    await client.workflowSteps.recordWorkflowReviewerDecision({ executionId, stepId: stepOf(execution, 'a').stepId, reviewerId: 'u-ana', decision: 'approve' });
    // a-next is pending (its job not run), b waits for its reviewer.
    expect(shape(await get(executionId))).toEqual([
      ['a', 'completed', 'approve'],
      ['b', 'waiting', null],
      ['a-next', 'pending', null],
    ]);
    expect((await client.workflowExecutions.cancelWorkflowExecution({ executionId, reason: 'withdrawn' })).data).toEqual({ executionId, cancelled: true, status: 'cancelled' });
    await runJobs();
    const done = await get(executionId);
    expect(shape(done)).toEqual([
      ['a', 'completed', 'approve'],
      ['b', 'cancelled', null],
      ['a-next', 'cancelled', null],
    ]);
    expect(stepOf(done, 'a-next').attempts).toBe(0);
    await expectCollabError(client.workflowSteps.recordWorkflowReviewerDecision({ executionId, stepId: stepOf(done, 'b').stepId, reviewerId: 'u-bo', decision: 'approve' }), 'FAILED_PRECONDITION');
    await runJobs();
    expect((await get(executionId)).steps).toHaveLength(3);
    const types = (await eventsOf(executionId)).map((event) => event.type);
    expect(types.slice(-3)).toEqual(['step.cancelled', 'step.cancelled', 'execution.cancelled']);
    // No notification went out for the cancelled step.
    const inbox = (await client.notifications.getNotifications({ organizationId: ORG, userId: 'u-ana' })).data;
    expect(inbox.filter((n) => JSON.stringify(n).includes(executionId) && JSON.stringify(n).includes('"notification"'))).toEqual([]);
  });
});

describe('Record Workflow Agent Resolution', () => {
  const path = '/v2/workflow/steps/recordAgentResolution';

  it('accepts the run\'s proposed decision, which then routes the step', async () => {
    const { executionId, execution } = await started('steps-agent', { page: { url: `${site}/clean` } });
    const check = stepOf(execution, 'check');
    expect(check).toMatchObject({ status: 'waiting', output: { proposedDecision: 'approve', agentExecutionStatus: 'passed' } });
    expect((await client.workflowSteps.recordWorkflowAgentResolution({ executionId, stepId: check.stepId, actorId: 'u-ana', resolution: 'accept' })).data).toEqual({ recorded: true, decision: 'approve', stepStatus: 'completed' });
    await runJobs();
    expect(shape(await get(executionId))).toEqual([
      ['check', 'completed', 'approve'],
      ['ok', 'completed', null],
    ]);
  });

  it('an override before the run ended completes the step and cancels the run', async () => {
    const { executionId } = await started('steps-agent', { page: { url: `${site}/clean` } }, false);
    await server.running.services.jobs.runDue(1);
    const check = stepOf(await get(executionId), 'check');
    const runId = check.output.agentExecutionId as string;
    await client.workflowSteps.recordWorkflowAgentResolution({ executionId, stepId: check.stepId, actorId: 'u-ana', resolution: 'override', decision: 'reject' });
    await runJobs();
    expect(shape(await get(executionId))).toEqual([
      ['check', 'completed', 'reject'],
      ['nope', 'completed', null],
    ]);
    expect((await client.agentRuns.getAgentExecution({ executionId: runId })).data.execution.status).toBe('cancelled');
  });

  it('refuses a malformed request (INVALID_ARGUMENT): an override without its decision', async () => {
    await expectCollabError(client.workflowSteps.recordWorkflowAgentResolution({ executionId: 'wfx_x', stepId: 'step_x', actorId: 'u-ana', resolution: 'override' }), 'INVALID_ARGUMENT', /decision/);
    await expectCollabError(client.workflowSteps.recordWorkflowAgentResolution({ executionId: 'wfx_x', stepId: 'step_x', actorId: 'u-ana', resolution: 'ignore' } as never), 'INVALID_ARGUMENT', /resolution/);
  });

  it('refuses a missing or wrong credential', async () => {
    await expectCredentialChecks(server, ws, path, { executionId: 'wfx_x', stepId: 'step_x', actorId: 'u-ana', resolution: 'accept' });
  });

  it('FAILED_PRECONDITION for an accept while the run still goes, once resolved, and for a step that is not a blocking agent step; NOT_FOUND for an unknown execution or step', async () => {
    const { executionId, execution } = await started('steps-agent', { page: { url: `${site}/clean` } }, false);
    // The step's job alone: the run is started, not yet run.
    await server.running.services.jobs.runDue(1);
    const check = stepOf(await get(executionId), 'check');
    expect(check.status).toBe('waiting');
    expect(check.output.proposedDecision).toBeUndefined();
    await expectCollabError(client.workflowSteps.recordWorkflowAgentResolution({ executionId, stepId: check.stepId, actorId: 'u-ana', resolution: 'accept' }), 'FAILED_PRECONDITION', /no outcome to accept/);
    await runJobs();
    await client.workflowSteps.recordWorkflowAgentResolution({ executionId, stepId: check.stepId, actorId: 'u-ana', resolution: 'override', decision: 'reject' });
    await expectCollabError(client.workflowSteps.recordWorkflowAgentResolution({ executionId, stepId: check.stepId, actorId: 'u-ana', resolution: 'accept' }), 'FAILED_PRECONDITION', /completed/);
    await runJobs();
    expect(shape(await get(executionId))).toEqual([
      ['check', 'completed', 'reject'],
      ['nope', 'completed', null],
    ]);

    const review = await started('steps-review');
    await expectCollabError(
      client.workflowSteps.recordWorkflowAgentResolution({ executionId: review.executionId, stepId: stepOf(review.execution, 'review').stepId, actorId: 'u-ana', resolution: 'accept' }),
      'FAILED_PRECONDITION',
      /not a blocking agent step/,
    );
    await expectCollabError(client.workflowSteps.recordWorkflowAgentResolution({ executionId, stepId: 'step_nope_9', actorId: 'u-ana', resolution: 'accept' }), 'NOT_FOUND');
    await expectCollabError(client.workflowSteps.recordWorkflowAgentResolution({ executionId: 'wfx_00000000000000000000000000', stepId: check.stepId, actorId: 'u-ana', resolution: 'accept' }), 'NOT_FOUND');
  });

  it('another application sees nothing: NOT_FOUND, and the step is untouched', async () => {
    const { executionId, execution } = await started('steps-agent', { page: { url: `${site}/clean` } });
    const stepId = stepOf(execution, 'check').stepId;
    await expectCollabError(clientB.workflowSteps.recordWorkflowAgentResolution({ executionId, stepId, actorId: 'u-ana', resolution: 'accept' }), 'NOT_FOUND');
    expect(stepOf(await get(executionId), 'check').status).toBe('waiting');
    await client.workflowExecutions.cancelWorkflowExecution({ executionId });
  });
});
