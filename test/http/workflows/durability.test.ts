// Executions survive a crash and a race. A server process killed with
// SIGKILL while steps are pending, running and waiting is started again on
// the same database, and every execution finishes with no step run twice
// and its event log gapless (SQLite always; PostgreSQL with
// TEST_DATABASE_URL). On PostgreSQL, two service instances on one database
// run the same due jobs and record the same decisions at once: each step
// still runs once, each event is written once.
import { afterAll, describe, expect, it } from 'vitest';
import { createClient } from '../../../sdk/index.js';
import { loadConfig } from '../../../server/config.js';
import { openMigratedDatabase } from '../../../server/db/startup.js';
import { createLogger } from '../../../server/http/logging.js';
import { systemClock } from '../../../server/lib/clock.js';
import { openVerifiedSealer } from '../../../server/lib/master-key.js';
import type { Caller } from '../../../server/platform/caller.js';
import { createServices, type Services } from '../../../server/services.js';
import { usingPostgres } from '../../helpers/database.js';
import { eventually } from '../../helpers/eventually.js';
import { killServer, processFixture, spawnServer, type ProcessFixture, type ServerProcess } from '../../helpers/server-process.js';

const ORG = 'wf-durable';
const database = usingPostgres ? 'PostgreSQL' : 'SQLite';
let fixture: ProcessFixture | undefined;
const processes: ServerProcess[] = [];
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const p of processes) await killServer(p);
  for (const close of closers) await close();
  await fixture?.close();
});

type CreateInput = Parameters<Services['workflowDefinitions']['createWorkflowDefinition']>[1];
const notice = (nodeId: string) => ({ nodeId, type: 'notification' as const, config: { userIds: ['u-ana'], bodyTemplate: `${nodeId}: {{input.decision}}` } });
const reviewer = (nodeId: string, userId: string) => ({ nodeId, type: 'human' as const, config: { reviewers: [{ userId, mandatory: true }] } });

/** Six reviewers side by side (three with an audit notice of their own) and the group's collective branch: many jobs per execution, several due at once. */
const REVIEWERS = ['u-ana', 'u-bo', 'u-cy', 'u-di', 'u-ed', 'u-flo'];
const MEMBERS = REVIEWERS.map((_, i) => `r${i + 1}`);
const REVIEWER_OF: Record<string, string> = Object.fromEntries(MEMBERS.map((member, i) => [member, REVIEWERS[i]!]));
const PANEL: CreateInput = {
  definitionId: 'durable-panel',
  name: 'Six reviewers',
  nodes: [notice('intake'), ...MEMBERS.map((member) => reviewer(member, REVIEWER_OF[member]!)), notice('audit1'), notice('audit2'), notice('audit3'), notice('publish'), notice('rework')],
  groups: [{ groupId: 'panel', memberNodeIds: MEMBERS, quorum: 2, onQuorumMet: 'waitAll' }],
  edges: [
    { from: 'intake', to: { kind: 'group', groupId: 'panel' } },
    { from: 'r1', to: 'audit1', on: 'always' },
    { from: 'r2', to: 'audit2', on: 'always' },
    { from: 'r3', to: 'audit3', on: 'always' },
    { from: { kind: 'group', groupId: 'panel' }, to: 'publish', on: 'approve' },
    { from: { kind: 'group', groupId: 'panel' }, to: 'rework', on: 'reject' },
  ],
};
const NODES_OF_A_RUN = ['intake', ...MEMBERS, 'audit1', 'audit2', 'audit3', 'publish'];
/** Per execution: the six reviewers asked, and five notification steps. */
const NOTIFICATIONS_OF_A_RUN = MEMBERS.length + 5;

async function seed(services: Services, app: Caller): Promise<void> {
  await services.organizations.addOrganization(app, { organizationId: ORG });
  await services.users.addUsers(app, { organizationId: ORG, users: REVIEWERS.map((userId) => ({ userId, name: userId })) });
  await services.workflowDefinitions.createWorkflowDefinition(app, PANEL);
}

/**
 * What a finished execution must show however often its jobs were run,
 * interrupted or raced: completed, one step per node (none started twice),
 * and a log whose seqs run 1..n with each step's events once.
 */
async function expectFinishedOnce(fixtureDb: ProcessFixture['database']['db'], apiKeyId: string, executionIds: readonly string[]): Promise<void> {
  const executions = await fixtureDb.workflowExecution.findMany({ where: { apiKeyId, id: { in: [...executionIds] } } });
  expect(executions.filter((e) => e.status !== 'completed').map((e) => [e.id, e.status, e.failureReason])).toEqual([]);
  for (const executionId of executionIds) {
    const steps = await fixtureDb.workflowStep.findMany({ where: { apiKeyId, executionId }, orderBy: { seq: 'asc' } });
    expect(steps.map((s) => s.nodeId).sort(), executionId).toEqual([...NODES_OF_A_RUN].sort());
    expect(steps.filter((s) => s.status !== 'completed' || s.attempts !== 1).map((s) => [s.nodeId, s.status, s.attempts]), executionId).toEqual([]);
    const events = await fixtureDb.workflowEvent.findMany({ where: { apiKeyId, executionId }, orderBy: { seq: 'asc' } });
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const once = new Map<string, number>();
    for (const e of events) once.set(`${e.type} ${e.stepId ?? ''}`, (once.get(`${e.type} ${e.stepId ?? ''}`) ?? 0) + 1);
    expect([...once].filter(([, n]) => n > 1), executionId).toEqual([]);
    // dispatched, one awaiting per reviewer, one completed per step, the quorum met, completed.
    expect(events).toHaveLength(1 + MEMBERS.length + NODES_OF_A_RUN.length + 1 + 1);
    expect(events.at(-1)!.type).toBe('execution.completed');
  }
}

it(`finishes every execution after a SIGKILL mid-run and a restart, no step run twice (${database})`, async () => {
  const EXECUTIONS = 40;
  fixture = await processFixture();
  const { services, database: db, workspace } = fixture;
  const app: Caller = { apiKeyId: fixture.apiKeyId, apiKey: workspace.apiKey };
  await seed(services, app);
  const ids: string[] = [];
  for (let i = 0; i < EXECUTIONS; i++) ids.push((await services.workflowExecutions.dispatchWorkflowExecution(app, { definitionId: PANEL.definitionId, organizationId: ORG, triggerContext: { i } })).executionId);
  const countSteps = (status: string) => db.db.workflowStep.count({ where: { apiKeyId: app.apiKeyId, status } });

  // The server runs the jobs itself (polling): it is killed once a part of the reviewers' steps wait.
  const env = { ...fixture.env, JOB_POLL_INTERVAL_MS: '10' };
  const first = await spawnServer(env);
  processes.push(first);
  await eventually(async () => (await countSteps('waiting')) >= EXECUTIONS * 2, 'a third of the reviewers\' steps to wait', 60_000, 5);
  first.child.kill('SIGKILL');
  await first.exited;
  const atKill = { waiting: await countSteps('waiting'), pending: await countSteps('pending'), running: await countSteps('running') };
  const heldJobs = await db.db.job.count({ where: { kind: { startsWith: 'workflow-' }, state: 'running' } });
  expect(atKill.pending).toBeGreaterThan(0);

  // While no server runs: the reviewers of the waiting steps decide (each a transition written by this process).
  const decide = async (decided: Set<string>) => {
    const waiting = await db.db.workflowStep.findMany({ where: { apiKeyId: app.apiKeyId, status: 'waiting' } });
    for (const step of waiting) {
      if (decided.has(step.stepId + step.executionId)) continue;
      decided.add(step.stepId + step.executionId);
      await services.workflowSteps.recordWorkflowReviewerDecision(app, { executionId: step.executionId, stepId: step.stepId, reviewerId: REVIEWER_OF[step.nodeId]!, decision: 'approve' });
    }
    return waiting.length;
  };
  const decided = new Set<string>();
  const decidedWhileDown = await decide(decided);

  const restartedAt = Date.now();
  const second = await spawnServer(env);
  processes.push(second);
  const client = createClient({ baseUrl: second.url, apiKey: workspace.apiKey, authToken: workspace.authToken });
  // The rest wait once the second process (after the killed one's leases ran out) has run their jobs.
  await eventually(
    async () => {
      for (const step of await db.db.workflowStep.findMany({ where: { apiKeyId: app.apiKeyId, status: 'waiting' } })) {
        if (decided.has(step.stepId + step.executionId)) continue;
        decided.add(step.stepId + step.executionId);
        await client.workflowSteps.recordWorkflowReviewerDecision({ executionId: step.executionId, stepId: step.stepId, reviewerId: REVIEWER_OF[step.nodeId]!, decision: 'approve' });
      }
      return (await db.db.workflowExecution.count({ where: { apiKeyId: app.apiKeyId, status: 'completed' } })) === EXECUTIONS;
    },
    'every execution to complete after the restart',
    120_000,
    50,
  );
  const recoveryMs = Date.now() - restartedAt;
  await expectFinishedOnce(db.db, app.apiKeyId, ids);
  expect(decided.size).toBe(EXECUTIONS * MEMBERS.length);
  // One inbox notification per reviewer asked and per notification step, none twice: each is written in its step's own transition.
  const asked = await db.db.notification.count({ where: { apiKeyId: app.apiKeyId } });
  expect(asked).toBe(EXECUTIONS * NOTIFICATIONS_OF_A_RUN);
  console.log(
    `workflow SIGKILL (${database}): at the kill ${atKill.pending} steps pending, ${atKill.running} running, ${atKill.waiting} waiting, ${heldJobs} jobs held; ` +
      `${decidedWhileDown} decided while down; all ${EXECUTIONS} executions completed ${recoveryMs} ms after the restart; ${asked} notifications`,
  );
}, 180_000);

describe.skipIf(!usingPostgres)('two service instances on one PostgreSQL database', () => {
  async function instance(env: NodeJS.ProcessEnv): Promise<Services> {
    const config = loadConfig({ ...process.env, ...env });
    const { database: opened } = await openMigratedDatabase(config.databaseUrl);
    closers.push(() => opened.close());
    const sealer = await openVerifiedSealer(opened.db, { envValue: config.masterKey, dataDir: config.dataDir }, systemClock);
    return createServices({ config, db: opened.db, uow: opened.uow, sealer, logger: createLogger('silent'), clock: systemClock });
  }

  it('racing the same due jobs and the same decisions, never run a step twice nor write an event twice', async () => {
    const EXECUTIONS = 30;
    const race = await processFixture();
    closers.push(() => race.close());
    const one = race.services;
    const two = await instance(race.env);
    const app: Caller = { apiKeyId: race.apiKeyId, apiKey: race.workspace.apiKey };
    await seed(one, app);
    const ids: string[] = [];
    for (let i = 0; i < EXECUTIONS; i++) ids.push((await one.workflowExecutions.dispatchWorkflowExecution(app, { definitionId: PANEL.definitionId, organizationId: ORG })).executionId);
    const drain = async () => {
      // Both workers at once, again until neither finds anything due.
      for (;;) {
        const ran = await Promise.all([one.jobs.runDue(), two.jobs.runDue()]);
        if (ran[0] + ran[1] === 0) return;
      }
    };
    await drain();
    const waiting = await race.database.db.workflowStep.findMany({ where: { apiKeyId: app.apiKeyId, status: 'waiting' } });
    expect(waiting).toHaveLength(EXECUTIONS * MEMBERS.length);

    // Each decision sent to both instances at once, and the six of an execution all at once: one of each pair is recorded.
    const outcomes = await Promise.allSettled(
      waiting.flatMap((step) =>
        [one, two].map((services) => services.workflowSteps.recordWorkflowReviewerDecision(app, { executionId: step.executionId, stepId: step.stepId, reviewerId: REVIEWER_OF[step.nodeId]!, decision: 'approve' })),
      ),
    );
    const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [(o.reason as { status?: string }).status ?? String(o.reason)] : []));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(EXECUTIONS * MEMBERS.length);
    // The loser of each pair saw the winner's decision (ALREADY_EXISTS) or the step it completed (FAILED_PRECONDITION); nothing else.
    expect(refused.filter((status) => status !== 'ALREADY_EXISTS' && status !== 'FAILED_PRECONDITION')).toEqual([]);
    expect(await race.database.db.workflowReviewerDecision.count({ where: { apiKeyId: app.apiKeyId } })).toBe(EXECUTIONS * MEMBERS.length);
    await drain();

    await expectFinishedOnce(race.database.db, app.apiKeyId, ids);
    const failedJobs = await race.database.db.job.findMany({ where: { kind: { startsWith: 'workflow-' }, OR: [{ state: { not: 'completed' } }, { lastError: { not: null } }] }, select: { kind: true, state: true, lastError: true } });
    expect(failedJobs).toEqual([]);
    console.log(`workflow race (PostgreSQL): ${EXECUTIONS} executions, two workers; ${refused.length} duplicate decisions refused (${[...new Set(refused)].join(', ')})`);
  }, 120_000);
});
if (!usingPostgres) console.log('skipping the two-instance workflow race: it needs TEST_DATABASE_URL (PostgreSQL)');
