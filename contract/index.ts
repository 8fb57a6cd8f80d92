import { initContract } from '@ts-rest/core';
import { addCommentAnnotations, deleteCommentAnnotations, getCommentAnnotations, getCommentAnnotationsCount, updateCommentAnnotations } from './comments/comment-annotations.js';
import { addComments, deleteComments, getComments, updateComment } from './comments/comments.js';
import { addReaction, deleteReaction } from './comments/reactions.js';
import { addActivities } from './activities/add-activities.js';
import { deleteActivities } from './activities/delete-activities.js';
import { getActivityLogs } from './activities/get-activity-logs.js';
import { updateActivity } from './activities/update-activity.js';
import { addCrdtData, deleteCrdtData, getCrdtData, updateCrdtData } from './crdt/crdt-data.js';
import { addDocument, deleteDocument, moveDocument, updateDocument, updateDocumentAccess, updateDocumentDisableState } from './documents/documents.js';
import { getDocuments } from './documents/get-documents.js';
import { getMigrateDocumentsStatus, migrateDocuments } from './documents/migrate-documents.js';
import { addFolder, deleteFolder, updateFolder, updateFolderAccess } from './folders/folders.js';
import { getFolders } from './folders/get-folders.js';
import { broadcastEvent, getLiveStateData } from './live-state/live-state.js';
import { addPresence, deletePresence, getPresence, updatePresence } from './live-state/presence.js';
import { addNotification, deleteNotifications, updateNotifications } from './notifications/custom-notifications.js';
import { getNotifications } from './notifications/get-notifications.js';
import { getNotificationConfig, getNotificationConfigV2, setNotificationConfig } from './notifications/notification-config.js';
import { addOrganization, deleteOrganization, getOrganizations, updateOrganization, updateOrganizationDisableState } from './organizations/organizations.js';
import { addPermissions } from './permissions/add-permissions.js';
import { generateToken } from './permissions/generate-token.js';
import { getPermissions } from './permissions/get-permissions.js';
import { addRecording } from './recordings/add-recording.js';
import { deleteRecordings } from './recordings/delete-recordings.js';
import { getRecordings } from './recordings/get-recordings.js';
import { removePermissions } from './permissions/remove-permissions.js';
import { addUsers } from './users/add-users.js';
import { deleteAllUserData, getDeleteAllUserDataStatus } from './users/delete-all-user-data.js';
import { deleteUsers, deleteUsersV2 } from './users/delete-users.js';
import { getAllUserData, getAllUserDataV2 } from './users/get-all-user-data.js';
import { getUsers } from './users/get-users.js';
import { updateUsers } from './users/update-users.js';
import { addUserGroup, addUsersToGroup, deleteUsersFromGroup, deleteUsersFromGroupV2 } from './users/user-groups.js';
import { getActivityConfig } from './workspace/get-activity-config.js';
import { getAuthTokens } from './workspace/get-auth-tokens.js';
import { getEmailConfig } from './workspace/get-email-config.js';
import { getEmailVerificationStatus } from './workspace/get-email-verification-status.js';
import { getPermissionProviderConfig } from './workspace/get-permission-provider-config.js';
import { updateActivityConfig } from './workspace/update-activity-config.js';
import { updateEmailConfig } from './workspace/update-email-config.js';
import { updatePermissionProviderConfig } from './workspace/update-permission-provider-config.js';
import { getAdvancedWebhookConfig, updateAdvancedWebhookConfig } from './webhooks/config.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoints,
  getWebhookEndpointSecret,
  rotateWebhookEndpointSecret,
  sendWebhookTestEvent,
  updateWebhookEndpoint,
} from './webhooks/endpoints.js';
import { getWebhookAttempts, getWebhookMessages, resendWebhookMessage } from './webhooks/messages.js';
import { askAi } from './ai/ask-ai.js';
import { addJudgment } from './memory/add-judgment.js';
import { deleteJudgments } from './memory/delete-judgments.js';
import { getJudgments } from './memory/get-judgments.js';
import { suggestDecision } from './memory/suggest-decision.js';
import { createAgent, deleteAgent, getAgents, updateAgent } from './agents/agents.js';
import { createAgentGroup, deleteAgentGroup, getAgentGroups, updateAgentGroup } from './agents/groups.js';
import { getAgentVersion, getAgentVersions, restoreAgentVersion, updateAgentVersion } from './agents/versions.js';
import { enhanceAgentPrompt, refineAgentPrompt, validateAgentPrompt } from './agents/prompts.js';
import { createWorkflowDefinition, deleteWorkflowDefinition, getWorkflowDefinition, listWorkflowDefinitions, updateWorkflowDefinition } from './workflows/definitions.js';
import { cancelWorkflowExecution, dispatchWorkflowExecution, getWorkflowExecution, getWorkflowExecutionEvents, listWorkflowExecutions } from './workflows/executions.js';
import { cancelWorkflowStep, recordWorkflowAgentResolution, recordWorkflowReviewerDecision, recordWorkflowStepCallback, resolveWorkflowStep } from './workflows/steps.js';
import { inboundWorkflowTrigger } from './workflows/triggers.js';
import { cancelAgentExecution, countAgentExecutions, getAgentAnalytics, getAgentExecution, listAgentExecutions, runAgent } from './agents/executions.js';

const c = initContract();

// One router per group, named: the SDK's declaration output refers to each
// group by name, where one inferred literal for the whole contract grew past
// what the compiler will serialize (TS7056).
const workspace = c.router({
    getActivityConfig,
    updateActivityConfig,
    getPermissionProviderConfig,
    updatePermissionProviderConfig,
    getEmailConfig,
    updateEmailConfig,
    getEmailVerificationStatus,
    getAuthTokens,
});

const permissions = c.router({
    getPermissions,
    addPermissions,
    removePermissions,
    generateToken,
});

const users = c.router({
    addUsers,
    getUsers,
    updateUsers,
    deleteUsers,
    deleteUsersV2,
    addUserGroup,
    addUsersToGroup,
    deleteUsersFromGroup,
    deleteUsersFromGroupV2,
});

const organizations = c.router({
    addOrganization,
    getOrganizations,
    updateOrganization,
    deleteOrganization,
    updateOrganizationDisableState,
    getFolders,
    addFolder,
    updateFolder,
    deleteFolder,
    updateFolderAccess,
    getDocuments,
    addDocument,
    updateDocument,
    deleteDocument,
    moveDocument,
    updateDocumentAccess,
    updateDocumentDisableState,
});

const comments = c.router({
    addCommentAnnotations,
    getCommentAnnotations,
    updateCommentAnnotations,
    deleteCommentAnnotations,
    getCommentAnnotationsCount,
    addComments,
    getComments,
    updateComment,
    deleteComments,
    addReaction,
    deleteReaction,
});

const notifications = c.router({
    getNotifications,
    getNotificationConfig,
    getNotificationConfigV2,
    setNotificationConfig,
    addNotification,
    updateNotifications,
    deleteNotifications,
});

const activities = c.router({
    getActivityLogs,
    addActivities,
    updateActivity,
    deleteActivities,
});

const recordings = c.router({
    getRecordings,
    addRecording,
    deleteRecordings,
});

const userData = c.router({
    getAllUserData,
    getAllUserDataV2,
    deleteAllUserData,
    getDeleteAllUserDataStatus,
});

const migrations = c.router({
    migrateDocuments,
    getMigrateDocumentsStatus,
});

const crdt = c.router({
    addCrdtData,
    updateCrdtData,
    getCrdtData,
    deleteCrdtData,
});

const liveState = c.router({
    broadcastEvent,
    getLiveStateData,
});

const presence = c.router({
    addPresence,
    updatePresence,
    deletePresence,
    getPresence,
});

const webhooks = c.router({
    getAdvancedWebhookConfig,
    updateAdvancedWebhookConfig,
    createWebhookEndpoint,
    getWebhookEndpoints,
    updateWebhookEndpoint,
    deleteWebhookEndpoint,
    getWebhookEndpointSecret,
    rotateWebhookEndpointSecret,
    sendWebhookTestEvent,
    getWebhookMessages,
    getWebhookAttempts,
    resendWebhookMessage,
});

const ai = c.router({
    askAi,
});

const memory = c.router({
    addJudgment,
    getJudgments,
    deleteJudgments,
    suggestDecision,
});

const agents = c.router({
    getAgents,
    createAgent,
    updateAgent,
    updateAgentVersion,
    deleteAgent,
    getAgentVersions,
    getAgentVersion,
    restoreAgentVersion,
    getAgentGroups,
    createAgentGroup,
    updateAgentGroup,
    deleteAgentGroup,
});

// Agent runs and the prompt tools: groups of their own (the SDK's `agentRuns`, `agentPrompts`),
// one `agents` group with them outgrew what the compiler serializes (TS7056).
const agentRuns = c.router({
    runAgent,
    getAgentExecution,
    listAgentExecutions,
    countAgentExecutions,
    cancelAgentExecution,
    getAgentAnalytics,
});

const agentPrompts = c.router({
    enhanceAgentPrompt,
    refineAgentPrompt,
    validateAgentPrompt,
});

// Approval workflows: definitions, their executions, and what reviewers and operators do to steps.
const workflowDefinitions = c.router({
  createWorkflowDefinition,
  updateWorkflowDefinition,
  getWorkflowDefinition,
  listWorkflowDefinitions,
  deleteWorkflowDefinition,
});

const workflowExecutions = c.router({
  dispatchWorkflowExecution,
  getWorkflowExecution,
  listWorkflowExecutions,
  cancelWorkflowExecution,
  getWorkflowExecutionEvents,
  inboundWorkflowTrigger,
});

// In the order of the examples' story: the agent step's resolution, the review, an override, a cancel.
const workflowSteps = c.router({
  recordWorkflowAgentResolution,
  recordWorkflowReviewerDecision,
  resolveWorkflowStep,
  cancelWorkflowStep,
  recordWorkflowStepCallback,
});

/** The contract's shape, group by group (see above). */
export type Contract = {
  workspace: typeof workspace;
  permissions: typeof permissions;
  users: typeof users;
  organizations: typeof organizations;
  comments: typeof comments;
  notifications: typeof notifications;
  activities: typeof activities;
  recordings: typeof recordings;
  userData: typeof userData;
  migrations: typeof migrations;
  crdt: typeof crdt;
  liveState: typeof liveState;
  presence: typeof presence;
  webhooks: typeof webhooks;
  ai: typeof ai;
  memory: typeof memory;
  agents: typeof agents;
  agentRuns: typeof agentRuns;
  agentPrompts: typeof agentPrompts;
  workflowDefinitions: typeof workflowDefinitions;
  workflowExecutions: typeof workflowExecutions;
  workflowSteps: typeof workflowSteps;
};

/** Every operation of the service, and nothing else. Leaf keys are the OpenAPI operationIds (unique across groups). */
export const contract: Contract = c.router({ workspace, permissions, users, organizations, comments, notifications, activities, recordings, userData, migrations, crdt, liveState, presence, webhooks, ai, memory, agents, agentRuns, agentPrompts, workflowDefinitions, workflowExecutions, workflowSteps });
export * from './common/errors.js';
export * from './common/envelope.js';
