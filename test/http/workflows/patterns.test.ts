// The hosted service's documented patterns, end to end through the API with
// the jobs run by the test and time moved by a test clock: an agent gate in
// front of a human approval (a built-in agent against a local page, blocking
// steps, the run's time limit), parallel reviewers under each quorum policy,
// reject loops to their cap, and SLA breaches.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { testClock } from '../../../server/lib/clock.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

type CreateInput = Parameters<Client['workflowDefinitions']['createWorkflowDefinition']>[0];
type Execution = Awaited<ReturnType<Client['workflowExecutions']['getWorkflowExecution']>>['data'];
type Step = Execution['steps'][number];
type WorkflowEvent = Awaited<ReturnType<Client['workflowExecutions']['getWorkflowExecutionEvents']>>['data']['events'][number];

const ORG = 'wf-patterns';
const USERS = ['u-ana', 'u-bo', 'u-cy', 'u-di'];
const clock = testClock(Date.UTC(2026, 2, 1));
let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;
let pages: Server;
let site: string;
let documents = 0;

/** Pages for the broken-links agent: one whose link works, one with a dead link, one that never answers. */
function startPages(): Promise<Server> {
  const s = createServer((req, res) => {
    if (req.url === '/clean') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html><head><title>Clean</title></head><body><p>See <a href="/ok">pricing</a>.</p></body></html>');
    } else if (req.url === '/broken') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html><head><title>Broken</title></head><body><p>See <a href="/missing">old docs</a>.</p></body></html>');
    } else if (req.url === '/hang') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html><body>');
    } else if (req.url === '/ok') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>ok</body></html>');
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve(s)));
}

beforeAll(async () => {
  pages = await startPages();
  site = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
  // A page that never answers holds its run for this long (real time): far longer than any test waits for it.
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', AGENT_PAGE_TIMEOUT_MS: '60000' }, { overrides: { clock } });
  ws = await server.workspace();
  client = server.client(ws);
  await server.post('/v2/organizations/add', { data: { organizationId: ORG } }, appHeaders(ws));
  await server.post('/v2/users/add', { data: { organizationId: ORG, users: USERS.map((userId) => ({ userId, name: userId })) } }, appHeaders(ws));
});
afterAll(async () => {
  await server?.close();
  pages?.closeAllConnections();
  await new Promise((resolve) => pages?.close(resolve));
});

/** Runs due jobs until none is left: a job one lane enqueues (an agent run, from a workflow step) waits for the next round. */
async function runJobs(): Promise<void> {
  while ((await server.running.services.jobs.runDue()) > 0);
}
const define = (input: CreateInput) => client.workflowDefinitions.createWorkflowDefinition(input);
const get = async (executionId: string) => (await client.workflowExecutions.getWorkflowExecution({ executionId })).data;

/** A fresh document per run: an agent runs once at a time on a document. */
async function newDocument(): Promise<string> {
  const documentId = `doc-${++documents}`;
  await server.post('/v2/organizations/documents/add', { data: { organizationId: ORG, documentId } }, appHeaders(ws));
  return documentId;
}

async function dispatch(definitionId: string, triggerContext: Record<string, unknown> = {}): Promise<string> {
  const documentId = await newDocument();
  const { executionId } = (await client.workflowExecutions.dispatchWorkflowExecution({ definitionId, organizationId: ORG, documentId, triggerContext })).data;
  await runJobs();
  return executionId;
}

async function events(executionId: string): Promise<WorkflowEvent[]> {
  return (await client.workflowExecutions.getWorkflowExecutionEvents({ executionId, pageSize: 500 })).data.events;
}

const typesOf = (list: WorkflowEvent[]) => list.map((event) => event.type);

function stepsOf(execution: Execution, nodeId: string): Step[] {
  return execution.steps.filter((step) => step.nodeId === nodeId);
}

/** The one step of a node that is waiting. */
async function waitingStep(executionId: string, nodeId: string): Promise<Step> {
  const waiting = stepsOf(await get(executionId), nodeId).filter((step) => step.status === 'waiting');
  expect(waiting, `one waiting step of ${nodeId}`).toHaveLength(1);
  return waiting[0]!;
}

async function decide(executionId: string, nodeId: string, reviewerId: string, decision: 'approve' | 'reject', reason?: string) {
  const step = await waitingStep(executionId, nodeId);
  const { data } = await client.workflowSteps.recordWorkflowReviewerDecision({ executionId, stepId: step.stepId, reviewerId, decision, ...(reason === undefined ? {} : { reason }) });
  await runJobs();
  return data;
}

/** Every step's node, status and decision, oldest first. */
const shape = (execution: Execution) => execution.steps.map((step) => [step.nodeId, step.status, step.decision]);

const notice = (nodeId: string, bodyTemplate = `${nodeId}: {{input.decision}}`) => ({ nodeId, type: 'notification' as const, config: { userIds: ['u-ana'], bodyTemplate } });
const reviewer = (nodeId: string, userId: string) => ({ nodeId, type: 'human' as const, config: { reviewers: [{ userId, mandatory: true }] } });

describe('An agent gate, then a human approval', () => {
  beforeAll(async () => {
    await define({
      definitionId: 'agent-gate',
      name: 'Links, then sign-off',
      nodes: [
        { nodeId: 'links', type: 'agent', config: { agentId: 'broken-links', urlPath: 'page.url' } },
        reviewer('review', 'u-ana'),
        notice('published', 'Published after {{input.decision}}'),
        notice('fix', 'Fix it: {{input.agentResultsSummary.totalFindings}} finding(s)'),
      ],
      edges: [
        { from: 'links', to: 'review', on: 'approve' },
        { from: 'links', to: 'fix', on: 'reject' },
        { from: 'review', to: 'published', on: 'approve' },
        { from: 'review', to: 'fix', on: 'reject' },
      ],
    });
  });

  it('a page without a broken link passes the agent; the reviewer approves; the notification goes; the run completes', async () => {
    const executionId = await dispatch('agent-gate', { page: { url: `${site}/clean` } });
    const waiting = await get(executionId);
    expect(shape(waiting)).toEqual([
      ['links', 'completed', 'approve'],
      ['review', 'waiting', null],
    ]);
    const links = waiting.steps[0]!;
    expect(links.output).toMatchObject({
      agentId: 'broken-links',
      agentExecutionId: expect.stringMatching(/^aex_/),
      agentExecutionStatus: 'passed',
      agentResultsSummary: { totalFindings: 0, urlsProcessed: 1 },
      resolvedUrl: `${site}/clean`,
      decision: 'approve',
    });
    const run = (await client.agentRuns.getAgentExecution({ executionId: links.output.agentExecutionId as string })).data.execution;
    expect(run).toMatchObject({ status: 'passed', trigger: 'workflow', workflowExecutionId: executionId, agentId: 'broken-links', metadata: { organizationId: ORG, documentId: waiting.documentId } });
    // The human step waits until its reviewer decides.
    await runJobs();
    expect((await get(executionId)).status).toBe('running');

    expect(await decide(executionId, 'review', 'u-ana', 'approve')).toEqual({ recorded: true, aggregatorStatus: 'resolved', stepStatus: 'completed' });
    const done = await get(executionId);
    expect(done.status).toBe('completed');
    expect(shape(done)).toEqual([
      ['links', 'completed', 'approve'],
      ['review', 'completed', 'approve'],
      ['published', 'completed', null],
    ]);
    expect(stepsOf(done, 'published')[0]!.output).toMatchObject({ body: 'Published after approve', reached: ['u-ana'] });
    const log = await events(executionId);
    expect(typesOf(log)).toEqual(['execution.dispatched', 'step.awaiting-approval', 'step.completed', 'step.awaiting-approval', 'step.completed', 'step.completed', 'execution.completed']);
    expect(log[1]!.data).toMatchObject({ nodeType: 'agent', agentId: 'broken-links', agentExecutionId: links.output.agentExecutionId });
    expect(log[2]!.data).toMatchObject({ nodeType: 'agent', agentExecutionStatus: 'passed', decision: 'approve', source: 'agent' });
  });

  it('a page with a broken link makes the agent step reject, and the reject route is taken', async () => {
    const executionId = await dispatch('agent-gate', { page: { url: `${site}/broken` } });
    const done = await get(executionId);
    expect(done.status).toBe('completed');
    expect(shape(done)).toEqual([
      ['links', 'completed', 'reject'],
      ['fix', 'completed', null],
    ]);
    const [links, fix] = done.steps;
    expect(links!.output).toMatchObject({ agentExecutionStatus: 'failed', agentResultsSummary: { totalFindings: 1 }, decision: 'reject' });
    expect(fix!.input).toMatchObject({ decision: 'reject', agentExecutionId: links!.output.agentExecutionId });
    expect(fix!.output).toMatchObject({ body: 'Fix it: 1 finding(s)' });
    const run = (await client.agentRuns.getAgentExecution({ executionId: links!.output.agentExecutionId as string })).data.execution;
    expect(run).toMatchObject({ status: 'failed', trigger: 'workflow', workflowExecutionId: executionId });
  });

  describe('a blocking agent step', () => {
    beforeAll(async () => {
      await define({
        definitionId: 'agent-blocking',
        name: 'Links, resolved by a person',
        nodes: [{ nodeId: 'links', type: 'agent', config: { agentId: 'broken-links', urlPath: 'page.url', blocking: true, agentMaxRuntimeMs: 5000 } }, notice('ok'), notice('nope')],
        edges: [
          { from: 'links', to: 'ok', on: 'approve' },
          { from: 'links', to: 'nope', on: 'reject' },
        ],
      });
    });

    it('waits with the run\'s outcome proposed, past its run limit, until a resolution accepts it', async () => {
      const executionId = await dispatch('agent-blocking', { page: { url: `${site}/clean` } });
      const waiting = await get(executionId);
      expect(shape(waiting)).toEqual([['links', 'waiting', null]]);
      expect(waiting.steps[0]!.output).toMatchObject({ agentExecutionStatus: 'passed', proposedDecision: 'approve' });
      expect(typesOf(await events(executionId)).slice(-1)).toEqual(['step.awaiting-approval']);
      expect((await events(executionId)).at(-1)!.data).toMatchObject({ awaiting: 'agent-resolution', proposedDecision: 'approve' });
      // The run ended: its time limit no longer applies to the wait for a person.
      clock.advance(5001);
      await runJobs();
      expect(shape(await get(executionId))).toEqual([['links', 'waiting', null]]);

      const stepId = waiting.steps[0]!.stepId;
      expect((await client.workflowSteps.recordWorkflowAgentResolution({ executionId, stepId, actorId: 'u-ana', resolution: 'accept' })).data).toEqual({ recorded: true, decision: 'approve', stepStatus: 'completed' });
      await runJobs();
      const done = await get(executionId);
      expect(done.status).toBe('completed');
      expect(shape(done)).toEqual([
        ['links', 'completed', 'approve'],
        ['ok', 'completed', null],
      ]);
      expect(done.steps[0]!.output).toMatchObject({ decision: 'approve', resolvedBy: 'u-ana', resolution: 'accept' });
    });

    it('an override takes the other route', async () => {
      const executionId = await dispatch('agent-blocking', { page: { url: `${site}/broken` } });
      const step = await waitingStep(executionId, 'links');
      expect(step.output).toMatchObject({ agentExecutionStatus: 'failed', proposedDecision: 'reject' });
      await client.workflowSteps.recordWorkflowAgentResolution({ executionId, stepId: step.stepId, actorId: 'u-bo', resolution: 'override', decision: 'approve', reason: 'The dead link is intended.' });
      await runJobs();
      const done = await get(executionId);
      expect(shape(done)).toEqual([
        ['links', 'completed', 'approve'],
        ['ok', 'completed', null],
      ]);
      expect(done.steps[0]!.output).toMatchObject({ resolution: 'override', resolvedBy: 'u-bo', resolutionReason: 'The dead link is intended.', proposedDecision: 'reject' });
    });
  });

  it('a run past agentMaxRuntimeMs fails its step agent-timeout and is cancelled', async () => {
    await define({
      definitionId: 'agent-slow',
      name: 'A page that never answers',
      nodes: [{ nodeId: 'links', type: 'agent', config: { agentId: 'broken-links', urlPath: 'page.url', agentMaxRuntimeMs: 2000 } }, notice('ok'), notice('nope')],
      edges: [
        { from: 'links', to: 'ok', on: 'approve' },
        { from: 'links', to: 'nope', on: 'reject' },
      ],
    });
    const documentId = await newDocument();
    const { executionId } = (await client.workflowExecutions.dispatchWorkflowExecution({ definitionId: 'agent-slow', organizationId: ORG, documentId, triggerContext: { page: { url: `${site}/hang` } } })).data;
    // The step job alone: it starts the run, which is left waiting (its job not run yet).
    expect(await server.running.services.jobs.runDue(1)).toBe(1);
    const waiting = await waitingStep(executionId, 'links');
    const runId = waiting.output.agentExecutionId as string;
    expect((await client.agentRuns.getAgentExecution({ executionId: runId })).data.execution.status).toBe('running');

    // Past the limit, the timer ends the step while the run's page still hangs.
    clock.advance(2001);
    await runJobs();
    const failed = await get(executionId);
    expect(failed.status).toBe('failed');
    expect(failed.failureReason).toMatchObject({ code: 'step-failed' });
    expect(failed.steps).toMatchObject([{ nodeId: 'links', status: 'failed', error: { code: 'agent-timeout' } }]);
    expect((await client.agentRuns.getAgentExecution({ executionId: runId })).data.execution.status).toBe('cancelled');
    expect(typesOf(await events(executionId)).slice(-2)).toEqual(['step.failed', 'execution.failed']);
  });
});

describe('Two of three reviewers: parallel groups and quorum policies', () => {
  const members = [reviewer('r1', 'u-ana'), reviewer('r2', 'u-bo'), reviewer('r3', 'u-cy')];
  const panel = (policy: 'waitAll' | 'cancelOnQuorum' | 'joinOnQuorum', extra: Record<string, unknown> = {}) => ({ groupId: 'panel', memberNodeIds: ['r1', 'r2', 'r3'], quorum: 2, onQuorumMet: policy, ...extra });
  const quorumEvents = async (executionId: string) => (await events(executionId)).filter((event) => event.type === 'group.quorum-met');

  beforeAll(async () => {
    await define({
      definitionId: 'panel-wait-all',
      name: 'Everyone decides, the group routes',
      nodes: [...members, notice('publish'), notice('rework'), notice('audit')],
      groups: [panel('waitAll')],
      edges: [
        { from: { kind: 'group', groupId: 'panel' }, to: 'publish', on: 'approve' },
        { from: { kind: 'group', groupId: 'panel' }, to: 'rework', on: 'reject' },
        // A member's own edge fires on its own end, beside the group's branch.
        { from: 'r1', to: 'audit', on: 'always' },
      ],
    });
    await define({
      definitionId: 'panel-cancel',
      name: 'Two of three, the third freed',
      nodes: [...members, notice('publish'), notice('rejected'), notice('collective')],
      groups: [panel('cancelOnQuorum')],
      edges: [
        ...['r1', 'r2', 'r3'].flatMap((r) => [
          { from: r, to: 'publish', on: 'approve' as const },
          { from: r, to: 'rejected', on: 'reject' as const },
        ]),
        { from: { kind: 'group', groupId: 'panel' }, to: 'collective', on: 'approve' },
      ],
    });
    const joined = (definitionId: string, extra: Record<string, unknown> = {}): CreateInput => ({
      definitionId,
      name: 'Two of three, then publish once',
      nodes: [...members, notice('publish'), notice('rejected')],
      groups: [panel('joinOnQuorum', extra)],
      edges: ['r1', 'r2', 'r3'].flatMap((r) => [
        { from: r, to: 'publish', on: 'approve' as const },
        { from: r, to: 'rejected', on: 'reject' as const },
      ]),
    });
    await define(joined('panel-join'));
    await define(joined('panel-required', { requiredNodeIds: ['r1'] }));
  });

  describe('waitAll', () => {
    it('emits group.quorum-met once at two approvals, waits for the third, and a reject among them takes the collective reject', async () => {
      const executionId = await dispatch('panel-wait-all');
      expect(shape(await get(executionId))).toEqual([
        ['r1', 'waiting', null],
        ['r2', 'waiting', null],
        ['r3', 'waiting', null],
      ]);
      await decide(executionId, 'r1', 'u-ana', 'approve');
      expect(await quorumEvents(executionId)).toEqual([]);
      await decide(executionId, 'r2', 'u-bo', 'approve');
      const met = await quorumEvents(executionId);
      expect(met.map((event) => event.data)).toEqual([{ groupId: 'panel', total: 2, quorum: 2, completedTotal: 2, expectedSteps: 3 }]);
      // Nothing routed by the group yet: it waits for every member.
      expect(stepsOf(await get(executionId), 'publish')).toEqual([]);
      await decide(executionId, 'r3', 'u-cy', 'reject', 'Not yet.');
      const done = await get(executionId);
      expect(done.status).toBe('completed');
      expect(shape(done)).toEqual([
        ['r1', 'completed', 'approve'],
        ['r2', 'completed', 'approve'],
        ['r3', 'completed', 'reject'],
        ['audit', 'completed', null],
        ['rework', 'completed', null],
      ]);
      expect(stepsOf(done, 'rework')[0]!.input).toMatchObject({ groupId: 'panel', decision: 'reject', totalApproved: 2, quorum: 2, groupOutputs: { r1: { decision: 'approve' }, r2: { decision: 'approve' }, r3: { decision: 'reject' } } });
      expect(await quorumEvents(executionId)).toHaveLength(1);
    });

    it('routes the group when the approval that meets the quorum is also the last member to end', async () => {
      const executionId = await dispatch('panel-wait-all');
      await decide(executionId, 'r1', 'u-ana', 'reject');
      await decide(executionId, 'r2', 'u-bo', 'approve');
      await decide(executionId, 'r3', 'u-cy', 'approve');
      const done = await get(executionId);
      expect(done.status).toBe('completed');
      expect(stepsOf(done, 'rework').map((step) => step.status)).toEqual(['completed']);
      expect(stepsOf(done, 'publish')).toEqual([]);
      expect(await quorumEvents(executionId)).toHaveLength(1);
    });

    it('approves by unanimity', async () => {
      const executionId = await dispatch('panel-wait-all');
      for (const [r, user] of [['r3', 'u-cy'], ['r1', 'u-ana'], ['r2', 'u-bo']] as const) await decide(executionId, r, user, 'approve');
      const done = await get(executionId);
      expect(done.status).toBe('completed');
      expect(stepsOf(done, 'publish').map((step) => [step.status, step.input.decision])).toEqual([['completed', 'approve']]);
      expect(stepsOf(done, 'rework')).toEqual([]);
      expect(await quorumEvents(executionId)).toHaveLength(1);
    });
  });

  it('cancelOnQuorum: the third reviewer is cancelled by system:group-quorum; each approver fans out, the group once', async () => {
    const executionId = await dispatch('panel-cancel');
    await decide(executionId, 'r1', 'u-ana', 'approve');
    await decide(executionId, 'r3', 'u-cy', 'approve');
    const done = await get(executionId);
    expect(done.status).toBe('completed');
    expect(stepsOf(done, 'r2')).toMatchObject([{ status: 'cancelled' }]);
    expect(stepsOf(done, 'publish').map((step) => step.status)).toEqual(['completed', 'completed']);
    expect(stepsOf(done, 'collective')).toMatchObject([{ status: 'completed', input: { groupId: 'panel', quorum: 2, totalApproved: 2 } }]);
    const log = await events(executionId);
    const cancelled = log.find((event) => event.type === 'step.cancelled');
    expect(cancelled).toMatchObject({ stepId: stepsOf(done, 'r2')[0]!.stepId, data: { actorId: 'system:group-quorum', reason: 'group-quorum-met' } });
    expect(log.filter((event) => event.type === 'group.quorum-met')).toHaveLength(1);
    // The cancelled reviewer has nothing left to decide.
    await expectCollabError(
      client.workflowSteps.recordWorkflowReviewerDecision({ executionId, stepId: stepsOf(done, 'r2')[0]!.stepId, reviewerId: 'u-bo', decision: 'approve' }),
      'FAILED_PRECONDITION',
    );
  });

  it('joinOnQuorum: one successor, with {groupOutputs, groupId, quorum, totalApproved}; members fan out no more', async () => {
    const executionId = await dispatch('panel-join');
    await decide(executionId, 'r1', 'u-ana', 'approve');
    expect(stepsOf(await get(executionId), 'publish')).toEqual([]);
    await decide(executionId, 'r3', 'u-cy', 'approve');
    const done = await get(executionId);
    expect(done.status).toBe('completed');
    expect(stepsOf(done, 'r2')).toMatchObject([{ status: 'cancelled' }]);
    const publish = stepsOf(done, 'publish');
    expect(publish).toHaveLength(1);
    expect(publish[0]!.input).toEqual({
      groupId: 'panel',
      quorum: 2,
      totalApproved: 2,
      groupOutputs: { r1: expect.objectContaining({ decision: 'approve' }), r3: expect.objectContaining({ decision: 'approve' }) },
    });
    expect(Object.keys(publish[0]!.input.groupOutputs as object).sort()).toEqual(['r1', 'r3']);
    expect((await quorumEvents(executionId)).map((event) => event.data)).toEqual([{ groupId: 'panel', total: 2, quorum: 2, completedTotal: 2, expectedSteps: 3 }]);
  });

  it('requiredNodeIds: two approvals without the required member do not meet the quorum; its approval does', async () => {
    const executionId = await dispatch('panel-required');
    await decide(executionId, 'r2', 'u-bo', 'approve');
    await decide(executionId, 'r3', 'u-cy', 'approve');
    expect(await quorumEvents(executionId)).toEqual([]);
    expect(stepsOf(await get(executionId), 'publish')).toEqual([]);
    await decide(executionId, 'r1', 'u-ana', 'approve');
    const done = await get(executionId);
    expect(done.status).toBe('completed');
    expect(stepsOf(done, 'publish')).toMatchObject([{ status: 'completed', input: { totalApproved: 3 } }]);
    expect((await quorumEvents(executionId)).map((event) => event.data.total)).toEqual([3]);
  });

  it('requiredNodeIds: the required member\'s reject fails the run (quorum-not-met) and cancels the others', async () => {
    const executionId = await dispatch('panel-required');
    await decide(executionId, 'r2', 'u-bo', 'approve');
    await decide(executionId, 'r1', 'u-ana', 'reject');
    const done = await get(executionId);
    expect(done.status).toBe('failed');
    expect(done.failureReason).toMatchObject({ code: 'quorum-not-met' });
    expect(stepsOf(done, 'r3')).toMatchObject([{ status: 'cancelled' }]);
    expect(stepsOf(done, 'publish')).toEqual([]);
    expect(done.steps.every((step) => step.status !== 'pending')).toBe(true);
    expect(typesOf(await events(executionId)).at(-1)).toBe('execution.failed');
  });
});

describe('Loop regions: a reject loop to its cap', () => {
  beforeAll(async () => {
    const revise = (definitionId: string, maxIterations: number, exhausted: boolean): CreateInput => ({
      definitionId,
      name: 'Draft until approved',
      nodes: [notice('draft', 'Draft pass {{input.iteration}}'), reviewer('review', 'u-ana'), notice('publish'), ...(exhausted ? [notice('escalate', 'Escalated')] : [])],
      edges: [
        { from: 'draft', to: 'review' },
        { from: 'review', to: 'publish', on: 'approve' },
        { from: 'review', to: 'draft', on: 'reject', loop: { maxIterations } },
        ...(exhausted ? [{ from: 'review', to: 'escalate', on: 'exhausted' as const }] : []),
      ],
    });
    await define(revise('revise', 3, true));
    await define(revise('revise-bare', 2, false));
    await define({
      definitionId: 'revise-panel',
      name: 'Draft until both approve',
      nodes: [notice('draft', 'Draft pass {{input.iteration}}'), reviewer('r1', 'u-ana'), reviewer('r2', 'u-bo'), notice('publish'), notice('escalate')],
      groups: [{ groupId: 'panel', memberNodeIds: ['r1', 'r2'], quorum: 2, onQuorumMet: 'joinOnQuorum' }],
      edges: [
        { from: 'draft', to: { kind: 'group', groupId: 'panel' } },
        { from: { kind: 'group', groupId: 'panel' }, to: 'publish', on: 'approve' },
        { from: { kind: 'group', groupId: 'panel' }, to: 'draft', on: 'reject', loop: { maxIterations: 3 } },
        { from: { kind: 'group', groupId: 'panel' }, to: 'escalate', on: 'exhausted' },
      ],
    });
  });

  it('ends exhausted after maxIterations rejects and takes the exhausted edge; each pass\'s entry gets the previous attempts', async () => {
    const executionId = await dispatch('revise');
    for (const pass of [1, 2, 3]) await decide(executionId, 'review', 'u-ana', 'reject', `not yet (${pass})`);
    const done = await get(executionId);
    expect(done.status).toBe('completed');
    expect(shape(done)).toEqual([
      ['draft', 'completed', null],
      ['review', 'completed', 'reject'],
      ['draft', 'completed', null],
      ['review', 'completed', 'reject'],
      ['draft', 'completed', null],
      ['review', 'completed', 'reject'],
      ['escalate', 'completed', null],
    ]);
    expect(done.steps.map((step) => step.iteration)).toEqual([1, 1, 2, 2, 3, 3, 1]);
    const drafts = stepsOf(done, 'draft');
    expect(drafts[1]!.input).toMatchObject({ iteration: 2, loopId: expect.any(String), previousAttempts: [{ iteration: 1, rejectedBy: 'u-ana', rejectorMandatory: true, rejectionReason: 'not yet (1)', rejectedAt: expect.any(Number), authorOutput: expect.objectContaining({ decision: 'reject' }) }] });
    expect(drafts[2]!.input.previousAttempts).toHaveLength(2);
    expect(drafts[2]!.output).toMatchObject({ body: 'Draft pass 3' });

    const log = await events(executionId);
    const loopEvents = log.filter((event) => event.type.startsWith('loop.'));
    expect(loopEvents.map((event) => [event.type, event.data.iteration])).toEqual([
      ['loop.iteration-started', 2],
      ['loop.iteration-started', 3],
      ['loop.exhausted', 3],
    ]);
    expect(loopEvents[0]!.data).toMatchObject({ triggeredBy: 'rejection' });
    expect(loopEvents[2]!.data).toMatchObject({ lastRejectedBy: 'u-ana', lastRejectionReason: 'not yet (3)' });
  });

  it('an approval in a later pass leaves the loop by its approve edge', async () => {
    const executionId = await dispatch('revise');
    await decide(executionId, 'review', 'u-ana', 'reject');
    await decide(executionId, 'review', 'u-ana', 'approve');
    const done = await get(executionId);
    expect(done.status).toBe('completed');
    expect(shape(done).slice(-1)).toEqual([['publish', 'completed', null]]);
    expect(typesOf(await events(executionId)).filter((type) => type.startsWith('loop.'))).toEqual(['loop.iteration-started']);
  });

  it('without an exhausted edge the execution fails loop-exhausted at the cap', async () => {
    const executionId = await dispatch('revise-bare');
    await decide(executionId, 'review', 'u-ana', 'reject');
    await decide(executionId, 'review', 'u-ana', 'reject');
    const done = await get(executionId);
    expect(done.status).toBe('failed');
    expect(done.failureReason).toMatchObject({ code: 'loop-exhausted' });
    expect(typesOf(await events(executionId)).slice(-2)).toEqual(['loop.exhausted', 'execution.failed']);
  });

  it('a group in the loop body counts its quorum afresh on every pass; its waiting member is cancelled by the restart', async () => {
    const executionId = await dispatch('revise-panel');
    // Pass 1: r2 rejects while r1 still waits.
    await decide(executionId, 'r2', 'u-bo', 'reject', 'Too long.');
    let now = await get(executionId);
    expect(shape(now)).toEqual([
      ['draft', 'completed', null],
      ['r1', 'cancelled', null],
      ['r2', 'completed', 'reject'],
      ['draft', 'completed', null],
      ['r1', 'waiting', null],
      ['r2', 'waiting', null],
    ]);
    const cancelled = (await events(executionId)).find((event) => event.type === 'step.cancelled');
    expect(cancelled?.data).toMatchObject({ actorId: 'system:loop-restart', reason: 'loop-restart' });

    // Pass 2: r1 approves, r2 rejects.
    await decide(executionId, 'r1', 'u-ana', 'approve');
    await decide(executionId, 'r2', 'u-bo', 'reject');
    // Pass 3: r1's approval of pass 2 does not count; one approval is not the quorum, two are.
    await decide(executionId, 'r1', 'u-ana', 'approve');
    now = await get(executionId);
    expect(stepsOf(now, 'publish')).toEqual([]);
    await decide(executionId, 'r2', 'u-bo', 'approve');
    const done = await get(executionId);
    expect(done.status).toBe('completed');
    expect(stepsOf(done, 'publish')).toMatchObject([{ status: 'completed', iteration: 1, input: { totalApproved: 2 } }]);
    expect(stepsOf(done, 'escalate')).toEqual([]);
    const log = await events(executionId);
    expect(log.filter((event) => event.type === 'group.quorum-met').map((event) => event.data)).toEqual([{ groupId: 'panel', total: 2, quorum: 2, completedTotal: 2, expectedSteps: 2 }]);
    expect(log.filter((event) => event.type === 'loop.iteration-started').map((event) => event.data.iteration)).toEqual([2, 3]);
    expect(stepsOf(done, 'draft')[2]!.input.previousAttempts).toMatchObject([
      { iteration: 1, rejectedBy: 'u-bo', rejectionReason: 'Too long.' },
      { iteration: 2, rejectedBy: 'u-bo' },
    ]);
  });

  it('the group\'s exhausted edge is taken at the cap, and a member still waiting is cancelled', async () => {
    const executionId = await dispatch('revise-panel');
    for (let pass = 1; pass <= 3; pass++) await decide(executionId, 'r1', 'u-ana', 'reject');
    const done = await get(executionId);
    expect(done.status).toBe('completed');
    expect(stepsOf(done, 'escalate')).toMatchObject([{ status: 'completed' }]);
    expect(done.steps.filter((step) => step.nodeId === 'r2').map((step) => step.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    expect(typesOf(await events(executionId)).filter((type) => type.startsWith('loop.'))).toEqual(['loop.iteration-started', 'loop.iteration-started', 'loop.exhausted']);
  });
});

describe('SLA and breach handling', () => {
  beforeAll(async () => {
    await define({
      definitionId: 'sla-review',
      name: 'A day to decide',
      nodes: [{ ...reviewer('review', 'u-ana'), slaMs: 86_400_000 }, notice('ok'), notice('no'), notice('late', 'Late: {{input.reviewerIds}}')],
      edges: [
        { from: 'review', to: 'ok', on: 'approve' },
        { from: 'review', to: 'no', on: 'reject' },
        { from: 'review', to: 'late', on: 'breached' },
      ],
    });
    // A terminal node with an SLA and no edge: a breach has nowhere to go.
    await define({
      definitionId: 'sla-dead-end',
      name: 'A blocking check with a deadline',
      nodes: [{ nodeId: 'links', type: 'agent', slaMs: 60_000, config: { agentId: 'broken-links', urlPath: 'page.url', blocking: true } }],
    });
  });

  it('a step past its SLA is breached (step.breached) and the on: breached edge is taken; a late decision is refused', async () => {
    const executionId = await dispatch('sla-review');
    const review = await waitingStep(executionId, 'review');
    clock.advance(86_400_000 - 1);
    await runJobs();
    expect((await get(executionId)).steps[0]!.status).toBe('waiting');
    clock.advance(1);
    await runJobs();
    const done = await get(executionId);
    expect(done.status).toBe('completed');
    expect(shape(done)).toEqual([
      ['review', 'breached', null],
      ['late', 'completed', null],
    ]);
    expect(done.steps[0]!.error).toMatchObject({ code: 'sla-breached' });
    expect(done.steps[1]!.output).toMatchObject({ body: 'Late: ["u-ana"]' });
    const breached = (await events(executionId)).find((event) => event.type === 'step.breached');
    expect(breached).toMatchObject({ stepId: review.stepId, data: { reason: 'sla-breached', nodeId: 'review' } });
    await expectCollabError(client.workflowSteps.recordWorkflowReviewerDecision({ executionId, stepId: review.stepId, reviewerId: 'u-ana', decision: 'approve' }), 'FAILED_PRECONDITION');
  });

  it('a decision in time leaves the SLA timer nothing to do', async () => {
    const executionId = await dispatch('sla-review');
    await decide(executionId, 'review', 'u-ana', 'approve');
    clock.advance(86_400_000);
    await runJobs();
    const done = await get(executionId);
    expect(shape(done)).toEqual([
      ['review', 'completed', 'approve'],
      ['ok', 'completed', null],
    ]);
    expect(typesOf(await events(executionId))).not.toContain('step.breached');
  });

  it('an on: custom edge whose when tests step.status "breached" routes the breach too', async () => {
    await define({
      definitionId: 'sla-custom',
      name: 'An hour to decide',
      nodes: [{ ...reviewer('review', 'u-ana'), slaMs: 3_600_000 }, notice('ok'), notice('no'), notice('late')],
      edges: [
        { from: 'review', to: 'ok', on: 'approve' },
        { from: 'review', to: 'no', on: 'reject' },
        { from: 'review', to: 'late', on: 'custom', when: '{"op":"eq","args":[{"var":"step.status"},"breached"]}' },
      ],
    });
    const executionId = await dispatch('sla-custom');
    clock.advance(3_600_000);
    await runJobs();
    const done = await get(executionId);
    expect(done.status).toBe('completed');
    expect(shape(done)).toEqual([
      ['review', 'breached', null],
      ['late', 'completed', null],
    ]);
  });

  it('a breach with no route fails the execution', async () => {
    const executionId = await dispatch('sla-dead-end', { page: { url: `${site}/clean` } });
    expect(shape(await get(executionId))).toEqual([['links', 'waiting', null]]);
    clock.advance(60_000);
    await runJobs();
    const done = await get(executionId);
    expect(done.status).toBe('failed');
    expect(done.failureReason).toMatchObject({ code: 'step-breached' });
    expect(typesOf(await events(executionId)).slice(-2)).toEqual(['step.breached', 'execution.failed']);
  });
});
