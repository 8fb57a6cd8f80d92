import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract/index.js';
import { applicationOf, workspaceOf } from '../../http/context.js';
import { ok } from '../../http/respond.js';
import type { AccountsService } from '../accounts/service.js';
import type { WorkspaceConfigService } from './service.js';

export function workspaceRouter(deps: { config: WorkspaceConfigService; accounts: AccountsService }) {
  return initServer().router(contract.workspace, {
    getActivityConfig: async ({ req }) =>
      ok('Activity config retrieved successfully.', {
        activityServiceConfig: await deps.config.activityConfig(applicationOf(req).apiKeyId),
      }),

    updateActivityConfig: async ({ req, body }) =>
      ok('Activity config updated successfully.', {
        activityServiceConfig: await deps.config.updateActivityConfig(applicationOf(req).apiKeyId, body.data),
      }),

    getPermissionProviderConfig: async ({ req }) =>
      ok('Permission provider config retrieved successfully.', await deps.config.permissionProviderConfig(applicationOf(req).apiKeyId)),

    updatePermissionProviderConfig: async ({ req, body }) =>
      ok('Permission provider config updated successfully.', await deps.config.updatePermissionProviderConfig(applicationOf(req).apiKeyId, body.data)),

    getEmailConfig: async ({ req }) =>
      ok('Email config retrieved successfully.', await deps.config.emailConfig(applicationOf(req).apiKeyId)),

    updateEmailConfig: async ({ req, body }) =>
      ok('Email config updated successfully.', await deps.config.updateEmailConfig(applicationOf(req).apiKeyId, body.data)),

    getEmailVerificationStatus: async ({ body }) => {
      const { verified } = await deps.accounts.emailVerificationStatus(body.data.ownerEmail);
      return ok(
        verified
          ? 'Email verified. The workspace is active and any expired API keys were reactivated.'
          : 'Email not verified yet. Follow the link sent to the owner email to verify it.',
        { verified },
      );
    },

    getAuthTokens: async ({ req, body }) =>
      ok('Auth tokens retrieved successfully.', await deps.accounts.listAuthTokens(workspaceOf(req).workspaceId, body.data.apiKey)),
  });
}
