import { MAX_JSON_BYTES, type TWorkflowEvent, type TWorkflowStep, type WorkflowEventType } from '../../../../contract/workflows/schemas.js';

/** A step's statuses that no longer change. */
export const ENDED_STEP = new Set(['completed', 'failed', 'skipped', 'cancelled', 'breached']);
/** Statuses whose edges may be taken (a cancelled step takes none). */
export const ROUTED_STEP = new Set(['completed', 'failed', 'skipped', 'breached']);
export const ENDED_EXECUTION = new Set(['completed', 'failed', 'cancelled']);

export type StepStatus = TWorkflowStep['status'];
export type Decision = 'approve' | 'reject';
export type Json = Record<string, unknown>;

/** One rejected pass through a loop, handed to the next pass's entry step. */
export interface LoopAttempt {
  iteration: number;
  authorOutput: Json;
  rejectedBy: string | null;
  /** Whether the rejecting reviewer was a mandatory one (the hosted service's attempt carries it). */
  rejectorMandatory: boolean;
  rejectionReason: string | null;
  rejectedAt: number;
}

export interface LoopState {
  /** The pass running now (1: the first). */
  iteration: number;
  attempts: LoopAttempt[];
  exhausted: boolean;
}

/** A group's tally in one pass (a group inside a loop starts from zero on every pass). */
export interface GroupTally {
  approved: string[];
  ended: string[];
  outputs: Record<string, Json>;
  quorumMet: boolean;
  /** The group's own edges were taken (or it failed): nothing more happens for it in this pass. */
  settled: boolean;
}

/** What an execution keeps besides its steps: `state` of its row. */
export interface ExecutionState {
  loops: Record<string, LoopState>;
  groups: Record<string, GroupTally>;
}

export const emptyState = (): ExecutionState => ({ loops: {}, groups: {} });

export function parseJson(text: string | null): Json {
  if (text === null || text === '') return {};
  const value = JSON.parse(text) as unknown;
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
}

/** Whether a JSON value a caller hands us to keep (triggerContext, custom, a step's output) is over the size we keep. */
export const overJsonLimit = (value: unknown): boolean => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8') > MAX_JSON_BYTES;

/** An event as Get Workflow Execution Events shows it, the webhooks carry it and the definition's receiver gets it: one shape. */
export function toWorkflowEvent(
  execution: { id: string; definitionId: string; correlationId: string },
  event: { eventId: string; seq: number; type: WorkflowEventType; stepId: string | null; timestamp: number; data: Json },
): TWorkflowEvent {
  return {
    eventId: event.eventId,
    seq: event.seq,
    type: event.type,
    executionId: execution.id,
    definitionId: execution.definitionId,
    correlationId: execution.correlationId,
    stepId: event.stepId,
    timestamp: event.timestamp,
    data: event.data,
  };
}

/** A reason an execution or a step failed, as reads show it. */
export interface Failure {
  code: string;
  message: string;
}
