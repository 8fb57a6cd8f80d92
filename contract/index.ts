import { initContract } from '@ts-rest/core';
import { getActivityConfig } from './workspace/get-activity-config.js';
import { getAuthTokens } from './workspace/get-auth-tokens.js';
import { getEmailConfig } from './workspace/get-email-config.js';
import { getEmailVerificationStatus } from './workspace/get-email-verification-status.js';
import { getPermissionProviderConfig } from './workspace/get-permission-provider-config.js';

const c = initContract();

/** Every operation of the service, and nothing else. Keys are the OpenAPI operationIds. */
export const contract = c.router({
  workspace: {
    getActivityConfig,
    getPermissionProviderConfig,
    getEmailConfig,
    getEmailVerificationStatus,
    getAuthTokens,
  },
});

export type Contract = typeof contract;
export * from './common/errors.js';
export * from './common/envelope.js';
