import { initContract } from '@ts-rest/core';
import { addCommentAnnotations, deleteCommentAnnotations, getCommentAnnotations, getCommentAnnotationsCount, updateCommentAnnotations } from './comments/comment-annotations.js';
import { addComments, deleteComments, getComments, updateComment } from './comments/comments.js';
import { addReaction, deleteReaction } from './comments/reactions.js';
import { addActivities } from './activities/add-activities.js';
import { deleteActivities } from './activities/delete-activities.js';
import { getActivityLogs } from './activities/get-activity-logs.js';
import { updateActivity } from './activities/update-activity.js';
import { addDocument, deleteDocument, moveDocument, updateDocument, updateDocumentAccess, updateDocumentDisableState } from './documents/documents.js';
import { getDocuments } from './documents/get-documents.js';
import { getMigrateDocumentsStatus, migrateDocuments } from './documents/migrate-documents.js';
import { addFolder, deleteFolder, updateFolder, updateFolderAccess } from './folders/folders.js';
import { getFolders } from './folders/get-folders.js';
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
import { updatePermissionProviderConfig } from './workspace/update-permission-provider-config.js';

const c = initContract();

/** Every operation of the service, and nothing else. Leaf keys are the OpenAPI operationIds (unique across groups). */
export const contract = c.router({
  workspace: {
    getActivityConfig,
    updateActivityConfig,
    getPermissionProviderConfig,
    updatePermissionProviderConfig,
    getEmailConfig,
    getEmailVerificationStatus,
    getAuthTokens,
  },
  permissions: {
    getPermissions,
    addPermissions,
    removePermissions,
    generateToken,
  },
  users: {
    addUsers,
    getUsers,
    updateUsers,
    deleteUsers,
    deleteUsersV2,
    addUserGroup,
    addUsersToGroup,
    deleteUsersFromGroup,
    deleteUsersFromGroupV2,
  },
  organizations: {
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
  },
  comments: {
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
  },
  notifications: {
    getNotifications,
    getNotificationConfig,
    getNotificationConfigV2,
    setNotificationConfig,
    addNotification,
    updateNotifications,
    deleteNotifications,
  },
  activities: {
    getActivityLogs,
    addActivities,
    updateActivity,
    deleteActivities,
  },
  recordings: {
    getRecordings,
    addRecording,
    deleteRecordings,
  },
  userData: {
    getAllUserData,
    getAllUserDataV2,
    deleteAllUserData,
    getDeleteAllUserDataStatus,
  },
  migrations: {
    migrateDocuments,
    getMigrateDocumentsStatus,
  },
});

export type Contract = typeof contract;
export * from './common/errors.js';
export * from './common/envelope.js';
