// Workflow executions end to end: dispatch (idempotent), the jobs walk the
// graph (run here by the test), reviewers decide, events are logged in
// order; list, cancel, and another application's view.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';
import { reviewDefinition } from './fixtures.js';

const ORG = 'wf-org';
let server: TestServer;
let a: WorkspaceCredentials;
let client: Client;
let clientB: Client;
const runJobs = () => server.running.services.jobs.runDue();

beforeAll(async () => {
  server = await startTestServer();
  a = await server.workspace();
  const b = await server.workspace();
  client = server.client(a);
  clientB = server.client(b);
  await server.post('/v2/organizations/add', { data: { organizationId: ORG } }, appHeaders(a));
  await server.post('/v2/organizations/documents/add', { data: { organizationId: ORG, documentId: 'doc-1' } }, appHeaders(a));
  await server.post('/v2/users/add', { data: { organizationId: ORG, users: [{ userId: 'u-ana', name: 'Ana' }, { userId: 'u-bo', name: 'Bo' }] } }, appHeaders(a));
  await client.workflowDefinitions.createWorkflowDefinition(reviewDefinition('signoff', [{ userId: 'u-ana', mandatory: true }, { userId: 'u-bo' }]));
});
afterAll(async () => {
  await server?.close();
});

describe('Dispatch Workflow Execution, Get Workflow Execution and Get Workflow Execution Events', () => {
  it('runs a human review to its approve route, with the events in order', async () => {
    const dispatched = (await client.workflowExecutions.dispatchWorkflowExecution({ definitionId: 'signoff', idempotencyKey: 'k-1', organizationId: ORG, documentId: 'doc-1', triggerContext: { title: 'Plan' } })).data;
    expect(dispatched).toMatchObject({ deduplicated: false, correlationId: dispatched.executionId });
    expect(dispatched.executionId).toMatch(/^wfx_/);
    const again = (await client.workflowExecutions.dispatchWorkflowExecution({ definitionId: 'signoff', idempotencyKey: 'k-1' })).data;
    expect(again).toEqual({ ...dispatched, deduplicated: true });

    const pending = (await client.workflowExecutions.getWorkflowExecution({ executionId: dispatched.executionId })).data;
    expect(pending).toMatchObject({ status: 'pending', definitionVersion: 1, organizationId: ORG, documentId: 'doc-1', triggerContext: { title: 'Plan' } });
    expect(pending.steps).toMatchObject([{ nodeId: 'review', status: 'pending', attempts: 0 }]);

    await runJobs();
    const waiting = (await client.workflowExecutions.getWorkflowExecution({ executionId: dispatched.executionId })).data;
    expect(waiting.status).toBe('running');
    const review = waiting.steps[0]!;
    expect(review).toMatchObject({ status: 'waiting', attempts: 1, output: { reviewerIds: ['u-ana', 'u-bo'] } });
    // The reviewers were told in their inbox.
    const inbox = (await client.notifications.getNotifications({ organizationId: ORG, userId: 'u-ana' })).data;
    expect(inbox.some((n) => JSON.stringify(n).includes('Review requested'))).toBe(true);

    // Bo is not mandatory: his approval alone does not decide.
    expect((await client.workflowSteps.recordWorkflowReviewerDecision({ executionId: dispatched.executionId, stepId: review.stepId, reviewerId: 'u-bo', decision: 'approve' })).data).toEqual({ recorded: true, aggregatorStatus: 'pending', stepStatus: 'waiting' });
    expect((await client.workflowSteps.recordWorkflowReviewerDecision({ executionId: dispatched.executionId, stepId: review.stepId, reviewerId: 'u-ana', decision: 'approve' })).data).toEqual({ recorded: true, aggregatorStatus: 'resolved', stepStatus: 'completed' });
    await runJobs();

    const done = (await client.workflowExecutions.getWorkflowExecution({ executionId: dispatched.executionId })).data;
    expect(done.status).toBe('completed');
    expect(done.steps.map((s) => [s.nodeId, s.status, s.decision])).toEqual([
      ['review', 'completed', 'approve'],
      ['approved', 'completed', null],
    ]);
    expect(done.steps[1]!.output).toMatchObject({ body: 'Approved: approve', reached: ['u-ana'] });

    const { events, hasMore, nextCursor } = (await client.workflowExecutions.getWorkflowExecutionEvents({ executionId: dispatched.executionId })).data;
    expect(events.map((e) => e.type)).toEqual(['execution.dispatched', 'step.awaiting-approval', 'step.completed', 'step.completed', 'execution.completed']);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect({ hasMore, nextCursor }).toEqual({ hasMore: false, nextCursor: 5 });
    const later = (await client.workflowExecutions.getWorkflowExecutionEvents({ executionId: dispatched.executionId, sinceSeq: 3, pageSize: 1 })).data;
    expect(later).toMatchObject({ events: [{ seq: 4 }], nextCursor: 4, hasMore: true });
  });

  it('refuses an unknown or tombstoned definition, and a document that does not exist', async () => {
    await expectCollabError(client.workflowExecutions.dispatchWorkflowExecution({ definitionId: 'never-made' }), 'NOT_FOUND');
    await expectCollabError(client.workflowExecutions.dispatchWorkflowExecution({ definitionId: 'signoff', organizationId: ORG, documentId: 'doc-missing' }), 'NOT_FOUND');
    await client.workflowDefinitions.createWorkflowDefinition(reviewDefinition('retired', [{ userId: 'u-ana' }]));
    await client.workflowDefinitions.deleteWorkflowDefinition({ definitionId: 'retired' });
    await expectCollabError(client.workflowExecutions.dispatchWorkflowExecution({ definitionId: 'retired' }), 'FAILED_PRECONDITION');
    await expectCollabError(client.workflowExecutions.getWorkflowExecution({ executionId: 'wfx_00000000000000000000000000' }), 'NOT_FOUND');
  });

  it('another application sees nothing of it', async () => {
    const { executionId } = (await client.workflowExecutions.dispatchWorkflowExecution({ definitionId: 'signoff', organizationId: ORG })).data;
    await expectCollabError(clientB.workflowExecutions.getWorkflowExecution({ executionId }), 'NOT_FOUND');
    await expectCollabError(clientB.workflowExecutions.getWorkflowExecutionEvents({ executionId }), 'NOT_FOUND');
    await expectCollabError(clientB.workflowExecutions.cancelWorkflowExecution({ executionId }), 'NOT_FOUND');
    expect((await clientB.workflowExecutions.listWorkflowExecutions({})).data).toEqual([]);
    await expectCollabError(clientB.workflowExecutions.dispatchWorkflowExecution({ definitionId: 'signoff' }), 'NOT_FOUND');
  });
});

describe('List Workflow Executions and Cancel Workflow Execution', () => {
  it('lists newest first by filter, and cancels a running one with its waiting step', async () => {
    const { executionId } = (await client.workflowExecutions.dispatchWorkflowExecution({ definitionId: 'signoff', organizationId: ORG, documentId: 'doc-1' })).data;
    await runJobs();
    const listed = (await client.workflowExecutions.listWorkflowExecutions({ definitionId: 'signoff', status: 'running' })).data;
    expect(listed[0]).toMatchObject({ executionId, status: 'running', steps: [] });
    await expectCollabError(client.workflowExecutions.listWorkflowExecutions({ documentId: 'doc-1' }), 'INVALID_ARGUMENT');

    expect((await client.workflowExecutions.cancelWorkflowExecution({ executionId, reason: 'withdrawn' })).data).toEqual({ executionId, cancelled: true, status: 'cancelled' });
    const cancelled = (await client.workflowExecutions.getWorkflowExecution({ executionId })).data;
    expect(cancelled).toMatchObject({ status: 'cancelled', steps: [{ status: 'cancelled' }] });
    expect(cancelled.cancelledAt).not.toBeNull();
    expect((await client.workflowExecutions.cancelWorkflowExecution({ executionId })).data).toEqual({ executionId, cancelled: false, status: 'cancelled' });
    const types = (await client.workflowExecutions.getWorkflowExecutionEvents({ executionId })).data.events.map((e) => e.type);
    expect(types.slice(-2)).toEqual(['step.cancelled', 'execution.cancelled']);
  });
});
