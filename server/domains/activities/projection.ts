import { ACTIVITY_TRIGGERS, type ProjectedEventType } from '../../../contract/activities/triggers.js';
import type { TAgentExecution } from '../../../contract/agents/executions.js';
import type { TCommentAnnotation } from '../../../contract/comments/schemas.js';
import type { TUserRef } from '../../../contract/common/content.js';
import type { EventPayload } from '../../../contract/events.js';
import type { TActivityServiceConfig } from '../../../contract/workspace/schemas.js';
import type { Ids } from '../../lib/ids.js';
import type { DomainEvent, Projection } from '../../platform/events.js';
import type { ActivitiesRepo } from './repo.js';

/** What a record says about an event: where, on what, by whom (when the event names no actor), and its message. */
interface Described {
  organizationId: string;
  documentId: string | null;
  targetEntityId: string;
  author: TUserRef;
  template: string;
  data: Record<string, unknown>;
}

/** A run is on its document, by whoever started it (`ranBy`), or by the agent when nobody was named. */
const onRun = (execution: TAgentExecution) => ({
  organizationId: execution.metadata.organizationId,
  documentId: execution.metadata.documentId,
  targetEntityId: execution.id,
  author: execution.ranBy ?? { userId: `agent:${execution.agentId}`, name: execution.agentName },
});

const onThread = (annotation: TCommentAnnotation) => ({
  organizationId: annotation.organizationId,
  documentId: annotation.documentId,
  targetEntityId: annotation.annotationId,
  author: annotation.from,
});

/**
 * The message of each event type. Templates use `{{variable}}` placeholders
 * (dotted paths into the data); `actionUser` is always in the data. Other
 * users appear by ID only, so erasing a user (which deletes the records they
 * acted in) leaves no name of theirs in other users' records; documents are
 * not named in the message because metadata.documentId says where, and
 * follows the document when it is migrated.
 */
const DESCRIBE: { [T in ProjectedEventType]: (payload: EventPayload<T>, event: DomainEvent) => Described | null } = {
  'comment_annotation.add': ({ annotation }) => ({
    ...onThread(annotation),
    template: '{{actionUser.name}} started a comment thread',
    data: {},
  }),
  'comment_annotation.status_change': ({ annotation, previousStatus, status }) => ({
    ...onThread(annotation),
    template: '{{actionUser.name}} changed the status of a comment thread from {{previousStatus}} to {{status}}',
    data: { previousStatus, status },
  }),
  'comment_annotation.assign': ({ annotation, previousAssignee, assignedTo }) => ({
    ...onThread(annotation),
    ...(assignedTo !== null
      ? { template: '{{actionUser.name}} assigned a comment thread to {{assignedTo.userId}}', data: { assignedTo: { userId: assignedTo.userId } } }
      : { template: '{{actionUser.name}} unassigned a comment thread', data: { previousAssignee: previousAssignee === null ? null : { userId: previousAssignee.userId } } }),
  }),
  'comment_annotation.priority_change': ({ annotation, previousPriority, priority }) => ({
    ...onThread(annotation),
    template: '{{actionUser.name}} changed the priority of a comment thread from {{previousPriority}} to {{priority}}',
    data: { previousPriority: previousPriority ?? 'none', priority: priority ?? 'none' },
  }),
  'comment_annotation.delete': ({ annotation }) => ({
    ...onThread(annotation),
    template: '{{actionUser.name}} deleted a comment thread',
    data: {},
  }),
  'comment.add': ({ annotation, comment }) => ({
    ...onThread(annotation),
    author: comment.from,
    template: '{{actionUser.name}} commented',
    data: { commentId: comment.commentId },
  }),
  'comment.update': ({ annotation, comment }) => ({
    ...onThread(annotation),
    author: comment.from,
    template: '{{actionUser.name}} edited a comment',
    data: { commentId: comment.commentId },
  }),
  'comment.delete': ({ annotation, comment }) => ({
    ...onThread(annotation),
    author: comment.from,
    template: '{{actionUser.name}} deleted a comment',
    data: { commentId: comment.commentId },
  }),
  'comment.reaction_add': ({ annotation, comment, reaction }) => ({
    ...onThread(annotation),
    author: reaction.from,
    template: '{{actionUser.name}} reacted {{icon}} to a comment',
    data: { commentId: comment.commentId, reactionId: reaction.reactionId, icon: reaction.icon },
  }),
  'comment.reaction_delete': ({ annotation, comment, reaction }) => ({
    ...onThread(annotation),
    author: reaction.from,
    template: '{{actionUser.name}} removed the reaction {{icon}} from a comment',
    data: { commentId: comment.commentId, reactionId: reaction.reactionId, icon: reaction.icon },
  }),
  // A user's saved edits; REST writes (no user) are the application's own and not logged.
  'crdt.update_data': ({ editorId, type, updatedBy }, event) =>
    updatedBy === null || event.organizationId === null || event.documentId === null
      ? null
      : {
          organizationId: event.organizationId,
          documentId: event.documentId,
          targetEntityId: editorId,
          author: updatedBy,
          template: '{{actionUser.name}} edited {{editorId}}',
          data: { editorId, type },
        },
  'recorder.done': ({ recording }) => ({
    organizationId: recording.metadata.organizationId,
    documentId: recording.metadata.documentId ?? null,
    targetEntityId: recording.annotationId,
    author: recording.from,
    template: '{{actionUser.name}} added a {{recordingType}} recording ({{duration}})',
    data: { recordingType: recording.recordingType, duration: recording.recordedTime.display },
  }),
  'agent.execution.started': ({ execution }) => ({
    ...onRun(execution),
    template: '{{actionUser.name}} started a run of agent {{agentName}}',
    data: { agentName: execution.agentName },
  }),
  'agent.execution.completed': ({ execution }) => ({
    ...onRun(execution),
    template: 'A run of agent {{agentName}} ended {{status}}',
    data: { agentName: execution.agentName, status: execution.status },
  }),
};

/** Whether the config logs this event type: enabled, and its trigger not set to false (absent triggers are on). */
export function triggerOn(config: TActivityServiceConfig, type: ProjectedEventType): boolean {
  if (!config.isEnabled) return false;
  const [feature, action] = ACTIVITY_TRIGGERS[type];
  const actions = config.triggers !== undefined && Object.hasOwn(config.triggers, feature) ? config.triggers[feature]! : undefined;
  return !(actions !== undefined && Object.hasOwn(actions, action) && actions[action] === false);
}

/**
 * The activity projection: every domain event except `activity.add` becomes
 * an activity record, written in the event's own transaction, when the
 * application's activity config logs it. It publishes nothing itself:
 * `activity.add` announces only records added through the API.
 */
export function activityProjection(deps: {
  repo: ActivitiesRepo;
  config: { activityConfig(apiKeyId: string): Promise<TActivityServiceConfig> };
  ids: Ids;
}): Projection {
  return async (event: DomainEvent) => {
    const type = event.type as ProjectedEventType;
    if (!Object.hasOwn(ACTIVITY_TRIGGERS, type)) return;
    if (!triggerOn(await deps.config.activityConfig(event.apiKeyId), type)) return;
    const described = (DESCRIBE[type] as (payload: unknown, event: DomainEvent) => Described | null)(event.payload, event);
    if (described === null) return;
    const actor = event.actor ?? described.author;
    // The name is always there for the template: the user ID when no name was given.
    const actionUser = { ...actor, name: actor.name ?? actor.userId };
    await deps.repo.insertMany([
      {
        apiKeyId: event.apiKeyId,
        id: deps.ids.next('act'),
        organizationId: event.organizationId ?? described.organizationId,
        documentId: event.documentId ?? described.documentId,
        featureType: ACTIVITY_TRIGGERS[type][0],
        actionType: type,
        userId: actor.userId,
        actionUser: actor,
        targetEntityId: described.targetEntityId,
        template: described.template,
        templateData: { actionUser, ...described.data },
        timestamp: BigInt(event.occurredAt),
      },
    ]);
  };
}
