import type { EventType } from '../events.js';
import type { WorkflowEventType } from '../workflows/schemas.js';
import type { TFeatureType } from './schemas.js';

/** Event types the activity projection logs; `activity.add` is the API's own record, never projected again, webhook delivery reports are not activity, and workflow events (their messages included) have their own log (Get Workflow Execution Events). */
export type ProjectedEventType = Exclude<EventType, 'activity.add' | 'message.attempt.exhausted' | WorkflowEventType | 'workflow.notification'>;

/**
 * Which activity config trigger governs each domain event, as
 * `triggers[feature][action]` (the specification's example is
 * `comment -> added -> boolean`). The feature is also the record's
 * `featureType`. A trigger is on unless it is set to `false`, so an enabled
 * config without `triggers` logs every event below.
 */
export const ACTIVITY_TRIGGERS = {
  'comment_annotation.add': ['comment', 'annotationAdded'],
  'comment_annotation.status_change': ['comment', 'statusChanged'],
  'comment_annotation.assign': ['comment', 'assigned'],
  'comment_annotation.priority_change': ['comment', 'priorityChanged'],
  'comment_annotation.delete': ['comment', 'annotationDeleted'],
  'comment.add': ['comment', 'added'],
  'comment.update': ['comment', 'updated'],
  'comment.delete': ['comment', 'deleted'],
  'comment.reaction_add': ['reaction', 'added'],
  'comment.reaction_delete': ['reaction', 'deleted'],
  'recorder.done': ['recorder', 'done'],
  'crdt.update_data': ['crdt', 'updated'],
  // The specification's feature types have none for agents: their runs are the application's `custom` activity.
  'agent.execution.started': ['custom', 'agentRunStarted'],
  'agent.execution.completed': ['custom', 'agentRunEnded'],
} as const satisfies Record<ProjectedEventType, readonly [TFeatureType, string]>;

export const PROJECTED_EVENT_TYPES = Object.keys(ACTIVITY_TRIGGERS) as ProjectedEventType[];

/** The table above as text, for operation descriptions. */
export const ACTIVITY_TRIGGERS_TEXT = PROJECTED_EVENT_TYPES.map((type) => `\`${type}\` → \`${ACTIVITY_TRIGGERS[type].join('.')}\``).join(', ');
