import type { WorkflowEventType } from '../../../../contract/workflows/schemas.js';
import { evaluate } from '../graph/condition.js';
import type { CompiledWorkflow, LoopRegion, NormalizedGroup, RouteEdge } from '../graph/compile.js';
import type { ExecutionRow, StepRow } from '../repos/executions.js';
import { ENDED_EXECUTION, ENDED_STEP, ROUTED_STEP, emptyState, parseJson, type Decision, type ExecutionState, type Failure, type GroupTally, type Json, type StepStatus } from './state.js';

export interface PendingEvent {
  seq: number;
  eventId: string;
  type: WorkflowEventType;
  stepId: string | null;
  timestamp: number;
  data: Json;
}

/** Work a transition asks for once it commits (jobs are written in its unit of work; run cancels after it). */
export type Scheduled =
  | { kind: 'run'; stepId: string }
  | { kind: 'timer'; stepId: string; reason: 'sla' | 'deadline'; at: number };

export interface Outcome {
  status: Exclude<StepStatus, 'pending' | 'running' | 'waiting'>;
  output?: Json;
  decision?: Decision | null;
  error?: Failure | null;
  /** Extra data of the step's event. */
  eventData?: Json;
}

const SYSTEM_QUORUM = 'system:group-quorum';
const SYSTEM_LOOP = 'system:loop-restart';
const SYSTEM_EXECUTION = 'system:execution';
/** Attempts handed to a loop's next pass: enough to see the history, bounded so a step's input stays small. */
const MAX_ATTEMPTS_KEPT = 20;

/**
 * One change of an execution, built in memory and written as one unit of
 * work by the engine (engine.ts): the steps it ends and starts, the events
 * it emits, the jobs it schedules and the execution's state. The routing
 * rules live here: which edges an ended step takes, what a group does on
 * its quorum, when a loop starts another pass, when the execution ends.
 */
export class Transition {
  readonly events: PendingEvent[] = [];
  readonly added: StepRow[] = [];
  readonly changed = new Set<string>();
  readonly scheduled: Scheduled[] = [];
  /** Agent runs of steps this transition cancelled: cancelled after it commits. */
  readonly runsToCancel: string[] = [];
  readonly state: ExecutionState;
  private readonly byId = new Map<string, StepRow>();
  private readonly loopOfNode = new Map<string, LoopRegion>();
  private executionChanged = false;

  constructor(
    readonly execution: ExecutionRow,
    steps: readonly StepRow[],
    readonly graph: CompiledWorkflow,
    readonly now: number,
  ) {
    for (const step of steps) this.byId.set(step.stepId, step);
    const parsed = execution.state === '' ? emptyState() : (JSON.parse(execution.state) as ExecutionState);
    this.state = { loops: parsed.loops ?? {}, groups: parsed.groups ?? {} };
    for (const loop of graph.loops) for (const nodeId of loop.bodyNodeIds) this.loopOfNode.set(nodeId, loop);
  }

  step(stepId: string): StepRow | undefined {
    return this.byId.get(stepId);
  }

  /** The step, if it has not ended and neither has the execution: what a timer or a failed job may still end. */
  openStep(stepId: string): StepRow | undefined {
    const step = this.byId.get(stepId);
    return step === undefined || ENDED_STEP.has(step.status) || this.ended ? undefined : step;
  }

  get steps(): StepRow[] {
    return [...this.byId.values()];
  }

  get ended(): boolean {
    return ENDED_EXECUTION.has(this.execution.status);
  }

  get touched(): boolean {
    return this.executionChanged || this.events.length > 0 || this.added.length > 0 || this.changed.size > 0;
  }

  emit(type: WorkflowEventType, stepId: string | null, data: Json): void {
    const seq = this.execution.nextSeq;
    this.execution.nextSeq = seq + 1;
    this.events.push({ seq, eventId: `${this.execution.id}.${seq}`, type, stepId, timestamp: this.now, data });
  }

  /** Marks the execution running once its first step starts. */
  started(): void {
    if (this.execution.status === 'pending') {
      this.execution.status = 'running';
      this.executionChanged = true;
    }
  }

  addStep(nodeId: string, input: Json): StepRow {
    const node = this.graph.nodes.get(nodeId);
    if (node === undefined) throw new Error(`node ${nodeId} is not in the definition`);
    this.execution.stepCount += 1;
    const loop = this.loopOfNode.get(nodeId);
    const step: StepRow = {
      apiKeyId: this.execution.apiKeyId,
      executionId: this.execution.id,
      stepId: `step_${nodeId}_${this.execution.stepCount}`,
      seq: this.execution.stepCount,
      nodeId,
      nodeType: node.type,
      groupId: this.graph.groupOf.get(nodeId) ?? null,
      iteration: loop === undefined ? 1 : (this.state.loops[loop.loopId]?.iteration ?? 1),
      status: 'pending',
      attempts: 0,
      input: JSON.stringify(input),
      output: '{}',
      decision: null,
      error: null,
      agentExecutionId: null,
      createdAt: BigInt(this.now),
      startedAt: null,
      completedAt: null,
    };
    this.byId.set(step.stepId, step);
    this.added.push(step);
    this.scheduled.push({ kind: 'run', stepId: step.stepId });
    return step;
  }

  change(step: StepRow, patch: Partial<StepRow>): void {
    Object.assign(step, patch);
    if (!this.added.includes(step)) this.changed.add(step.stepId);
  }

  /** The step starts (pending → running): its attempt is counted and its SLA clock set on the first. */
  begin(step: StepRow): void {
    const first = step.startedAt === null;
    this.change(step, { status: 'running', attempts: step.attempts + 1, startedAt: step.startedAt ?? BigInt(this.now) });
    this.started();
    const slaMs = this.graph.nodes.get(step.nodeId)?.slaMs;
    if (first && slaMs !== undefined) this.scheduled.push({ kind: 'timer', stepId: step.stepId, reason: 'sla', at: this.now + slaMs });
  }

  /** The step parks until a decision, a callback or its agent run ends. */
  wait(step: StepRow, patch: Partial<StepRow>, eventData: Json): void {
    this.change(step, { ...patch, status: 'waiting' });
    this.emit('step.awaiting-approval', step.stepId, eventData);
  }

  /** Ends a step that has not ended, emits its event, and takes its edges. */
  end(step: StepRow, outcome: Outcome): void {
    if (ENDED_STEP.has(step.status)) return;
    const output = outcome.output ?? parseJson(step.output);
    const decision = outcome.decision ?? null;
    // A step that ends while its agent run still goes (its time limit, a breach, an override, a cancel) takes the run
    // down with it: before, only cancels and breaches did, so an `agent-timeout` left the run going to its own deadline.
    const runGoing = step.agentExecutionId !== null && !runEnded(parseJson(step.output)) && !runEnded(output);
    this.change(step, {
      status: outcome.status,
      output: JSON.stringify(output),
      decision,
      error: outcome.error === undefined || outcome.error === null ? null : JSON.stringify(outcome.error),
      completedAt: BigInt(this.now),
    });
    if (runGoing) this.runsToCancel.push(step.agentExecutionId!);
    const base = { nodeId: step.nodeId, nodeType: step.nodeType, ...outcome.eventData };
    switch (outcome.status) {
      case 'completed':
        this.emit('step.completed', step.stepId, { ...base, decision });
        break;
      case 'failed':
        this.emit('step.failed', step.stepId, { ...base, reason: outcome.error?.code ?? 'failed' });
        break;
      case 'breached':
        this.emit('step.breached', step.stepId, { ...base, reason: outcome.error?.code ?? 'sla' });
        break;
      case 'cancelled':
        this.emit('step.cancelled', step.stepId, { actorId: SYSTEM_EXECUTION, reason: null, ...base });
        break;
      case 'skipped':
        break;
    }
    if (this.ended) return;
    this.route(step, output, decision);
  }

  /** Cancels a step that has not ended: no edge is taken from it. */
  cancel(step: StepRow, actorId: string, reason: string | null): void {
    this.end(step, { status: 'cancelled', eventData: { actorId, reason } });
  }

  private route(step: StepRow, output: Json, decision: Decision | null): void {
    const group = this.groupOfNode(step.nodeId);
    let routed = false;
    if (group !== undefined) routed = this.tally(group, step, output, decision);
    // The tally may have failed the execution (a quorum that can no longer be met): then the member's own edges
    // are not taken either; before, they added pending steps to a failed execution that no job would ever run.
    if (step.status === 'cancelled' || this.ended) return;
    if (group === undefined || group.onQuorumMet !== 'joinOnQuorum') {
      for (const edge of this.graph.nodeEdges.get(step.nodeId) ?? []) {
        if (this.matches(edge, step, output, decision)) {
          this.follow(edge, output);
          routed = true;
        }
      }
      const loop = this.graph.loopBySource.get(`node:${step.nodeId}`);
      if (loop !== undefined && step.status === 'completed' && decision === 'reject') {
        this.loopBack(loop, output, rejectorOf(output), reasonOf(output), mandatoryOf(output));
        routed = true;
      }
    }
    const ownRoutes = group === undefined || (group.onQuorumMet === 'waitAll' && !this.groupRoutes(group));
    if (!routed && ownRoutes) this.unrouted(step, decision);
  }

  private matches(edge: RouteEdge, step: StepRow, output: Json, decision: Decision | null): boolean {
    switch (edge.role) {
      case 'approve':
        return step.status === 'completed' && decision === 'approve';
      case 'reject':
        return step.status === 'completed' && decision === 'reject';
      case 'always':
        return ROUTED_STEP.has(step.status);
      case 'breached':
        return step.status === 'breached';
      case 'custom':
        return ROUTED_STEP.has(step.status) && edge.when !== null && evaluate(edge.when, this.scopeOf(step, output));
      case 'exhausted':
        return false;
    }
  }

  private scopeOf(step: StepRow, output: Json) {
    return {
      output,
      step: { stepId: step.stepId, nodeId: step.nodeId, nodeType: step.nodeType, status: step.status, attempts: step.attempts, iteration: step.iteration, decision: step.decision },
      execution: {
        input: parseJson(this.execution.triggerContext),
        executionId: this.execution.id,
        definitionId: this.execution.definitionId,
        correlationId: this.execution.correlationId,
      },
    };
  }

  private follow(edge: RouteEdge, input: Json): void {
    if (this.ended) return;
    this.addStep(edge.to, input);
  }

  /** An outcome no edge takes: a failure, a breach or a reject ends the execution `failed`; an approval ends its path. */
  private unrouted(step: StepRow, decision: Decision | null): void {
    const what = `step ${step.stepId} (node ${step.nodeId})`;
    if (step.status === 'failed') {
      const error = step.error === null ? null : (JSON.parse(step.error) as Failure);
      this.fail({ code: 'step-failed', message: `${what} failed${error === null ? '' : `: ${error.message}`}, and no edge routes a failure` });
    } else if (step.status === 'breached') {
      this.fail({ code: 'step-breached', message: `${what} passed its SLA, and no edge routes a breach` });
    } else if (step.status === 'completed' && decision === 'reject') {
      this.fail({ code: 'rejected', message: `${what} rejected, and no edge routes a reject` });
    }
  }

  private groupOfNode(nodeId: string): NormalizedGroup | undefined {
    const groupId = this.graph.groupOf.get(nodeId);
    return groupId === undefined ? undefined : this.graph.groups.get(groupId);
  }

  private groupRoutes(group: NormalizedGroup): boolean {
    return (this.graph.groupEdges.get(group.groupId)?.length ?? 0) > 0 || this.graph.loopBySource.has(`group:${group.groupId}`);
  }

  /**
   * Counts a member's end in its group's tally for this pass and does what
   * the group's policy says when the quorum is met or can no longer be.
   * Returns whether the group took the member's outcome over (its own edges
   * then stay untaken: joinOnQuorum).
   */
  private tally(group: NormalizedGroup, step: StepRow, output: Json, decision: Decision | null): boolean {
    const key = `${group.groupId}#${step.iteration}`;
    const tally: GroupTally = (this.state.groups[key] ??= { approved: [], ended: [], outputs: {}, quorumMet: false, settled: false });
    this.executionChanged = true;
    const owned = group.onQuorumMet === 'joinOnQuorum';
    if (tally.settled) return owned;
    if (!tally.ended.includes(step.nodeId)) tally.ended.push(step.nodeId);
    if (step.status === 'completed' && decision === 'approve' && !tally.approved.includes(step.nodeId)) tally.approved.push(step.nodeId);
    if (step.status !== 'cancelled') tally.outputs[step.nodeId] = output;

    const joinInput = (): Json => ({ groupOutputs: tally.outputs, groupId: group.groupId, quorum: group.quorum, totalApproved: tally.approved.length });
    const met = tally.approved.length >= group.quorum && group.requiredNodeIds.every((id) => tally.approved.includes(id));
    if (met && !tally.quorumMet) {
      tally.quorumMet = true;
      this.emit('group.quorum-met', null, { groupId: group.groupId, total: tally.approved.length, quorum: group.quorum, completedTotal: tally.ended.length, expectedSteps: group.expectedSteps });
      if (group.onQuorumMet !== 'waitAll') {
        tally.settled = true;
        this.cancelSiblings(group, step, 'group-quorum-met');
        for (const edge of this.successorsOf(group)) if (edge.role !== 'reject') this.follow(edge, joinInput());
        return owned;
      }
      // waitAll goes on to the check below: the approval that meets the quorum may also be the last member's end,
      // and then the group routes now (before, it returned here and the group's edges were never taken).
    }

    const left = group.expectedSteps - tally.ended.length;
    if (group.onQuorumMet === 'waitAll') {
      if (left > 0 || !this.groupRoutes(group)) return owned;
      tally.settled = true;
      const unanimous = tally.approved.length === tally.ended.length && tally.ended.length >= group.expectedSteps;
      const groupDecision: Decision = unanimous ? 'approve' : 'reject';
      const groupOutput = { ...joinInput(), decision: groupDecision };
      let routed = false;
      for (const edge of this.graph.groupEdges.get(group.groupId) ?? []) {
        const take =
          edge.role === 'always' ||
          (edge.role === 'approve' && groupDecision === 'approve') ||
          (edge.role === 'reject' && groupDecision === 'reject') ||
          (edge.role === 'custom' && edge.when !== null && evaluate(edge.when, this.scopeOf(step, groupOutput)));
        if (take) {
          this.follow(edge, groupOutput);
          routed = true;
        }
      }
      const loop = this.graph.loopBySource.get(`group:${group.groupId}`);
      if (groupDecision === 'reject' && loop !== undefined) {
        this.loopBack(loop, groupOutput, rejectorOf(output), reasonOf(output), mandatoryOf(output));
        routed = true;
      }
      if (!routed && groupDecision === 'reject') this.fail({ code: 'rejected', message: `group ${group.groupId} rejected (not every member approved), and no edge routes a reject` });
      return owned;
    }

    const requiredLost = group.requiredNodeIds.some((id) => tally.ended.includes(id) && !tally.approved.includes(id));
    if (requiredLost || tally.approved.length + left < group.quorum) {
      tally.settled = true;
      const loop = this.graph.loopBySource.get(`group:${group.groupId}`);
      if (loop !== undefined) {
        // The next pass cancels the members still waiting as a loop restart (`system:loop-restart`, as the hosted
        // service's cancellation reasons say); only at the cap, with no next pass, are they cancelled as the group's.
        this.loopBack(loop, { ...joinInput(), decision: 'reject' }, rejectorOf(output), reasonOf(output), mandatoryOf(output));
        this.cancelSiblings(group, step, 'group-quorum-lost');
      } else if (owned || (this.graph.groupEdges.get(group.groupId)?.length ?? 0) > 0) {
        this.fail({ code: 'quorum-not-met', message: `group ${group.groupId} can no longer reach its quorum of ${group.quorum}` });
      }
    }
    return owned;
  }

  /** The edges a group takes as a whole: its own, and for joinOnQuorum the targets its members share. */
  private successorsOf(group: NormalizedGroup): RouteEdge[] {
    const own = this.graph.groupEdges.get(group.groupId) ?? [];
    if (group.onQuorumMet !== 'joinOnQuorum') return own;
    const first = group.memberNodeIds[0];
    const shared = first === undefined ? [] : (this.graph.nodeEdges.get(first) ?? []);
    const seen = new Set(own.map((edge) => edge.to));
    return [...own, ...shared.filter((edge) => !seen.has(edge.to) && (edge.role === 'approve' || edge.role === 'always'))];
  }

  private cancelSiblings(group: NormalizedGroup, except: StepRow, reason: string): void {
    for (const sibling of this.steps) {
      if (sibling === except || sibling.groupId !== group.groupId || sibling.iteration !== except.iteration || ENDED_STEP.has(sibling.status)) continue;
      this.end(sibling, { status: 'cancelled', eventData: { actorId: SYSTEM_QUORUM, reason } });
    }
  }

  /** A reject at a loop's end: the next pass from its entry node, or `loop.exhausted` at the cap. */
  private loopBack(loop: LoopRegion, authorOutput: Json, rejectedBy: string | null, rejectionReason: string | null, rejectorMandatory: boolean): void {
    const state = (this.state.loops[loop.loopId] ??= { iteration: 1, attempts: [], exhausted: false });
    this.executionChanged = true;
    if (state.exhausted) return;
    state.attempts = [...state.attempts, { iteration: state.iteration, authorOutput, rejectedBy, rejectorMandatory, rejectionReason, rejectedAt: this.now }].slice(-MAX_ATTEMPTS_KEPT);
    if (state.iteration < loop.maxIterations) {
      for (const step of this.steps) {
        if (loop.bodyNodeIds.includes(step.nodeId) && !ENDED_STEP.has(step.status)) {
          this.end(step, { status: 'cancelled', eventData: { actorId: SYSTEM_LOOP, reason: 'loop-restart' } });
        }
      }
      state.iteration += 1;
      this.emit('loop.iteration-started', null, { loopId: loop.loopId, iteration: state.iteration, triggeredBy: 'rejection' });
      this.addStep(loop.entryNodeId, { iteration: state.iteration, loopId: loop.loopId, previousAttempts: state.attempts });
      return;
    }
    state.exhausted = true;
    this.emit('loop.exhausted', null, { loopId: loop.loopId, iteration: state.iteration, lastRejectedBy: rejectedBy, lastRejectionReason: rejectionReason });
    if (loop.exhaustedTo.length === 0) {
      this.fail({ code: 'loop-exhausted', message: `loop ${loop.loopId} was rejected ${loop.maxIterations} time(s), its limit, and no edge routes its exhaustion` });
      return;
    }
    for (const edge of loop.exhaustedTo) this.follow(edge, authorOutput);
  }

  /** Ends the execution `failed` and cancels what still runs in it. */
  fail(reason: Failure): void {
    if (this.ended) return;
    this.execution.status = 'failed';
    this.execution.failureReason = JSON.stringify(reason);
    this.execution.completedAt = BigInt(this.now);
    this.executionChanged = true;
    // The steps' cancellations first, the execution's end last, as cancelExecution does: a reader of the log
    // (or of the webhooks, in seq order) sees nothing of the execution after its terminal event.
    this.cancelOpen('execution-failed');
    this.emit('execution.failed', null, reason as unknown as Json);
  }

  /** Cancels the execution and every step not ended. */
  cancelExecution(reason: string | null): void {
    if (this.ended) return;
    this.execution.status = 'cancelled';
    this.execution.cancelledAt = BigInt(this.now);
    this.execution.completedAt = BigInt(this.now);
    this.executionChanged = true;
    this.cancelOpen(reason ?? 'execution-cancelled');
    this.emit('execution.cancelled', null, { reason });
  }

  private cancelOpen(reason: string): void {
    for (const step of this.steps) {
      if (ENDED_STEP.has(step.status)) continue;
      this.change(step, { status: 'cancelled', completedAt: BigInt(this.now) });
      if (step.agentExecutionId !== null) this.runsToCancel.push(step.agentExecutionId);
      this.emit('step.cancelled', step.stepId, { nodeId: step.nodeId, nodeType: step.nodeType, actorId: SYSTEM_EXECUTION, reason });
    }
  }

  /** Completes the execution once every step ended and nothing failed it. */
  settle(): void {
    if (this.ended) return;
    if (this.steps.some((step) => !ENDED_STEP.has(step.status))) return;
    this.execution.status = 'completed';
    this.execution.completedAt = BigInt(this.now);
    this.executionChanged = true;
    this.emit('execution.completed', null, {});
  }

  /** The execution row's new state, as the engine writes it. */
  serializedState(): string {
    return JSON.stringify(this.state);
  }
}

function rejectorOf(output: Json): string | null {
  return typeof output.rejectedBy === 'string' ? output.rejectedBy : null;
}

function reasonOf(output: Json): string | null {
  return typeof output.rejectionReason === 'string' ? output.rejectionReason : null;
}

function mandatoryOf(output: Json): boolean {
  return output.rejectorMandatory === true;
}

/** An agent step's run has reported its end once the step's output carries the run's status (runner.ts onAgentDone). */
function runEnded(output: Json): boolean {
  return typeof output.agentExecutionStatus === 'string';
}
