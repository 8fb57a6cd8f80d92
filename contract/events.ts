import { z } from 'zod';
import { WORKFLOW_EVENT_TYPES, ZWorkflowEvent, ZWorkflowNotification, type WorkflowEventType } from './workflows/schemas.js';
import { ZActivity } from './activities/schemas.js';
import { ZAgentExecution } from './agents/executions.js';
import { ZComment, ZCommentAnnotation, ZReaction } from './comments/schemas.js';
import { ZTimestampMs, ZUserRef } from './common/content.js';
import { ZCrdtType } from './crdt/crdt-data.js';
import { ZRecording } from './recordings/schemas.js';

/**
 * Every domain event type and the shape of its payload. Activity action types
 * and webhook event types use these names; a payload is parsed through its
 * schema when it is published, so projections and webhook receivers get
 * exactly this shape.
 */
const annotation = { annotation: ZCommentAnnotation };
const onComment = { ...annotation, comment: ZComment };

export const EVENT_PAYLOADS = {
  'comment_annotation.add': z.object(annotation),
  'comment_annotation.status_change': z.object({ ...annotation, previousStatus: z.string(), status: z.string() }),
  'comment_annotation.assign': z.object({ ...annotation, previousAssignee: ZUserRef.nullable(), assignedTo: ZUserRef.nullable() }),
  'comment_annotation.priority_change': z.object({ ...annotation, previousPriority: z.string().nullable(), priority: z.string().nullable() }),
  'comment_annotation.delete': z.object(annotation),
  'comment.add': z.object(onComment),
  'comment.update': z.object({ ...onComment, previousCommentText: z.string() }),
  'comment.delete': z.object(onComment),
  'comment.reaction_add': z.object({ ...onComment, reaction: ZReaction }),
  'comment.reaction_delete': z.object({ ...onComment, reaction: ZReaction }),
  'recorder.done': z.object({ recording: ZRecording }),
  'activity.add': z.object({ activity: ZActivity }),
  // Debounced per editor document: one event per save (at most every few seconds while clients type), and one per REST write.
  'crdt.update_data': z.object({
    editorId: z.string(),
    type: ZCrdtType.nullable().describe('null when the data was never added (only edited over WebSocket) or was deleted.'),
    contentKey: z.string().nullable(),
    lastUpdated: ZTimestampMs,
    updatedBy: ZUserRef.nullable().describe('The last user whose edit this save contains; null for REST writes.'),
  }),
  // An agent run: when Run Agent starts it, and when it ends (any final status, cancelled included).
  'agent.execution.started': z.object({ execution: ZAgentExecution }),
  'agent.execution.completed': z.object({ execution: ZAgentExecution }),
  // Approval workflows: every event of an execution's log (Get Workflow Execution Events), the same event as the log has it.
  ...(Object.fromEntries(WORKFLOW_EVENT_TYPES.map((type) => [type, ZWorkflowEvent])) as Record<WorkflowEventType, typeof ZWorkflowEvent>),
  // A message a workflow step sent its users (review requested, a notification node's message): the email channel sends it.
  'workflow.notification': ZWorkflowNotification,
  // Emitted by webhook delivery when every try of a message to an endpoint failed. Delivered like any
  // event, except to the endpoint it is about; its own exhaustion emits nothing (no loops).
  'message.attempt.exhausted': z.object({
    endpointId: z.string(),
    messageId: z.string().describe('The message that could not be delivered (its webhook-id).'),
    eventType: z.string(),
    attempts: z.number().int(),
    lastResponseStatusCode: z.number().int().nullable().describe('null when the last try got no answer.'),
  }),
} as const;

export type EventType = keyof typeof EVENT_PAYLOADS;
export const EVENT_TYPES = Object.keys(EVENT_PAYLOADS) as EventType[];
export type EventPayload<T extends EventType> = z.infer<(typeof EVENT_PAYLOADS)[T]>;

export function isEventType(value: string): value is EventType {
  return Object.prototype.hasOwnProperty.call(EVENT_PAYLOADS, value);
}
