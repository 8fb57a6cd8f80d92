import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract/index.js';
import { applicationOf } from '../../http/context.js';
import { ok, paged } from '../../http/respond.js';
import type { WebhookEndpoints } from './services/endpoints.js';
import type { WebhookHistory } from './services/history.js';

export function webhooksRouter(deps: { endpoints: WebhookEndpoints; history: WebhookHistory }) {
  const { endpoints, history } = deps;
  return initServer().router(contract.webhooks, {
    getAdvancedWebhookConfig: async ({ req }) => ok('Advanced webhook config retrieved successfully.', await endpoints.config(applicationOf(req).apiKeyId)),
    updateAdvancedWebhookConfig: async ({ req, body }) =>
      ok('Advanced webhook config updated successfully.', await endpoints.updateConfig(applicationOf(req).apiKeyId, body.data)),
    createWebhookEndpoint: async ({ req, body }) => ok('Webhook endpoint created.', await endpoints.create(applicationOf(req).apiKeyId, body.data)),
    getWebhookEndpoints: async ({ req, body }) => paged('Webhook endpoints retrieved successfully.', await endpoints.list(applicationOf(req).apiKeyId, body.data)),
    updateWebhookEndpoint: async ({ req, body }) => ok('Webhook endpoint updated.', await endpoints.update(applicationOf(req).apiKeyId, body.data)),
    deleteWebhookEndpoint: async ({ req, body }) => ok('Webhook endpoint deleted.', await endpoints.remove(applicationOf(req).apiKeyId, body.data.endpointId)),
    getWebhookEndpointSecret: async ({ req, body }) =>
      ok('Webhook endpoint secret retrieved successfully.', await endpoints.secret(applicationOf(req).apiKeyId, body.data.endpointId)),
    rotateWebhookEndpointSecret: async ({ req, body }) =>
      ok('Webhook endpoint secret rotated; the previous secret keeps signing for 24 hours.', await endpoints.rotateSecret(applicationOf(req).apiKeyId, body.data.endpointId)),
    sendWebhookTestEvent: async ({ req, body }) => ok('Test event queued for delivery.', await endpoints.sendTest(applicationOf(req).apiKeyId, body.data)),
    getWebhookMessages: async ({ req, body }) => paged('Webhook messages retrieved successfully.', await history.messages(applicationOf(req).apiKeyId, body.data)),
    getWebhookAttempts: async ({ req, body }) => paged('Webhook delivery attempts retrieved successfully.', await history.attempts(applicationOf(req).apiKeyId, body.data)),
    resendWebhookMessage: async ({ req, body }) => ok('Message queued for delivery again.', await history.resend(applicationOf(req).apiKeyId, body.data)),
  });
}
