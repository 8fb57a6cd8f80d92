import type { Logger } from 'pino';
import { z } from 'zod';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Clock } from '../../../lib/clock.js';
import type { EventBus } from '../../../platform/events.js';
import type { JobDef, Jobs } from '../../../platform/jobs.js';
import type { ExecutionRow, ExecutionsRepo, StepRow } from '../repos/executions.js';
import type { Runtimes } from './runtimes.js';
import { toWorkflowEvent } from './state.js';
import { Transition } from './transition.js';

/** What the engine's jobs carry: never a secret, only where the work is. */
export const ZStepJob = z.object({ apiKeyId: z.string(), executionId: z.string(), stepId: z.string() });
export type StepJob = z.infer<typeof ZStepJob>;
export interface TimerJob extends StepJob {
  reason: 'sla' | 'deadline';
}

export interface EngineDeps {
  repo: ExecutionsRepo;
  runtimes: Runtimes;
  uow: UnitOfWork;
  jobs: Jobs;
  events: EventBus;
  clock: Clock;
  log: Logger;
  /** Cancels agent runs of steps a transition cancelled, after it committed. */
  cancelAgentRun(apiKeyId: string, agentExecutionId: string): Promise<void>;
}

/**
 * Transitions that lost a race with another (the execution moved on meanwhile) are built again from what is now
 * stored. Of k transitions of one execution at once, one commits per round, so the last needs k-1 retries: the
 * steps of a wide group start together (each worker runs 4 step jobs at once), and with 5 tries, on PostgreSQL
 * with two workers, an 11-member group's last step job gave up (a job retried a second later, or an INTERNAL
 * answer to a reviewer). A short random pause spreads the losers so they do not all collide again.
 */
const MAX_TRIES = 16;
const retryPause = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 5 * Math.min(attempt, 8))));

export class Conflict extends Error {
  constructor() {
    super('the execution changed meanwhile');
    this.name = 'Conflict';
  }
}

/**
 * Loads an execution, hands a Transition to `change`, and writes what it
 * did as one unit of work: the steps, the events (in the execution's log
 * and as domain events for the webhooks), the jobs, and the execution row,
 * the last only if nobody else wrote it since it was read (its `nextSeq`).
 * A lost race is retried from a fresh read, so two processes never apply
 * the same step's end twice.
 */
export function createTransitions(deps: EngineDeps & { jobDefs: () => { run: JobDef<StepJob>; timer: JobDef<TimerJob> } }) {
  const { repo, uow } = deps;

  async function write(t: Transition, expectedSeq: number): Promise<void> {
    const { execution } = t;
    // The execution row first: its compare-and-set is what orders two transitions of one execution. Written
    // last (as it was), the loser of a race on PostgreSQL reached its event inserts first, waited there on the
    // winner's rows with the same seq, and then failed with a unique violation instead of a Conflict: a job
    // attempt lost with a backoff, an INTERNAL answer to a reviewer. Now the loser waits on the row lock, finds
    // nextSeq moved once the winner commits (READ COMMITTED re-checks the condition), and is retried afresh.
    const wrote = await repo.updateIf(execution.apiKeyId, execution.id, expectedSeq, {
      status: execution.status,
      state: t.serializedState(),
      nextSeq: execution.nextSeq,
      stepCount: execution.stepCount,
      failureReason: execution.failureReason,
      completedAt: execution.completedAt,
      cancelledAt: execution.cancelledAt,
      updatedAt: BigInt(t.now),
    });
    if (!wrote) throw new Conflict();
    if (t.added.length > 0) await repo.insertSteps(t.added);
    for (const stepId of t.changed) {
      const step = t.step(stepId)!;
      await repo.updateStep(execution.apiKeyId, execution.id, stepId, {
        status: step.status,
        attempts: step.attempts,
        input: step.input,
        output: step.output,
        decision: step.decision,
        error: step.error,
        agentExecutionId: step.agentExecutionId,
        startedAt: step.startedAt,
        completedAt: step.completedAt,
      });
    }
    if (t.events.length > 0) {
      await repo.insertEvents(
        t.events.map((event) => ({
          apiKeyId: execution.apiKeyId,
          executionId: execution.id,
          seq: event.seq,
          eventId: event.eventId,
          type: event.type,
          stepId: event.stepId,
          timestamp: BigInt(event.timestamp),
          data: JSON.stringify(event.data),
        })),
      );
      for (const event of t.events) {
        await deps.events.publish({
          type: event.type,
          apiKeyId: execution.apiKeyId,
          ...(execution.organizationId === null ? {} : { organizationId: execution.organizationId }),
          ...(execution.documentId === null ? {} : { documentId: execution.documentId }),
          payload: toWorkflowEvent(execution, event),
        });
      }
    }
    const { run, timer } = deps.jobDefs();
    for (const work of t.scheduled) {
      const payload = { apiKeyId: execution.apiKeyId, executionId: execution.id, stepId: work.stepId };
      if (work.kind === 'run') await deps.jobs.enqueue(run, payload, { apiKeyId: execution.apiKeyId });
      else await deps.jobs.enqueue(timer, { ...payload, reason: work.reason }, { apiKeyId: execution.apiKeyId, runAt: work.at, key: `wf-${work.reason}:${execution.id}:${work.stepId}` });
    }
  }

  /**
   * Runs `change` on the stored execution and commits it. `change` returns
   * what the caller gets back; it may throw an AppError to refuse (nothing
   * is written then). Returns undefined when the execution is unknown.
   */
  async function transact<T>(apiKeyId: string, executionId: string, change: (t: Transition) => Promise<T> | T): Promise<{ result: T; transition: Transition } | undefined> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const done = await uow.run(async () => {
          await repo.lock(apiKeyId, executionId);
          const execution = await repo.find(apiKeyId, executionId);
          if (execution === null) return undefined;
          const steps = await repo.steps(apiKeyId, executionId);
          const graph = await deps.runtimes.of(apiKeyId, execution.definitionId, execution.definitionVersion);
          const t = new Transition(execution, steps, graph.compiled, deps.clock.nowMs());
          const expectedSeq = execution.nextSeq;
          const result = await change(t);
          t.settle();
          if (t.touched) await write(t, expectedSeq);
          return { result, transition: t };
        });
        if (done !== undefined) {
          // A run is named once however many rules asked for its cancel (a step's end, an override's own).
          for (const runId of new Set(done.transition.runsToCancel)) {
            await deps.cancelAgentRun(apiKeyId, runId).catch((error: unknown) => deps.log.warn({ err: error, executionId, runId }, 'could not cancel the agent run of a cancelled workflow step'));
          }
        }
        return done;
      } catch (error) {
        if (!(error instanceof Conflict) || attempt >= MAX_TRIES) throw error;
        await retryPause(attempt);
      }
    }
  }

  /** Writes a new execution with its root steps (and their jobs) in the caller's unit of work. */
  async function start(execution: ExecutionRow, roots: readonly string[], input: Record<string, unknown>): Promise<void> {
    const graph = await deps.runtimes.of(execution.apiKeyId, execution.definitionId, execution.definitionVersion);
    await repo.insert(execution);
    const t = new Transition(execution, [], graph.compiled, Number(execution.startedAt));
    const expectedSeq = execution.nextSeq;
    const rootSteps: StepRow[] = roots.map((nodeId) => t.addStep(nodeId, input));
    t.emit('execution.dispatched', null, { definitionId: execution.definitionId, definitionVersion: execution.definitionVersion, rootStepIds: rootSteps.map((step) => step.stepId) });
    await write(t, expectedSeq);
  }

  return { transact, start };
}

export type Transitions = ReturnType<typeof createTransitions>;
