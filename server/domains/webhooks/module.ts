import type { DomainModule, Platform } from '../../platform/module.js';
import { projection } from '../../platform/module.js';
import type { AccountsService } from '../accounts/service.js';
import type { SettingsRepo } from '../workspace/repo.js';
import { createDeliveryQueueRepo } from './repos/delivery-queue.js';
import { createWebhookDispatcher } from './dispatcher.js';
import { createWebhookEndpointsRepo } from './repos/endpoints.js';
import { createWebhookHistoryRepo } from './repos/history.js';
import { createWebhookMessagesRepo } from './repos/messages.js';
import { createWebhookEndpoints } from './services/endpoints.js';
import { createWebhookHistory } from './services/history.js';
import { createWebhookMessages } from './messages.js';
import { webhooksOwnedData } from './owned-data.js';
import { createWebhookSettings } from './settings.js';

/**
 * Advanced webhooks: every event of an application with webhooks on becomes
 * a message with a delivery per matching endpoint (a projection, so in the
 * event's transaction), delivered by this process's dispatcher.
 */
export function webhooksModule(p: Platform, deps: { settings: SettingsRepo; accounts: Pick<AccountsService, 'apiKeyOf'> }) {
  const { uow, ids, clock, sealer, pageTokens } = p;
  const apiKeyOf = (apiKeyId: string) => deps.accounts.apiKeyOf(apiKeyId);
  const webhookSettings = createWebhookSettings(deps.settings);
  const endpointsRepo = createWebhookEndpointsRepo(p.db);
  const messagesRepo = createWebhookMessagesRepo(p.db);
  const webhookDispatcher = createWebhookDispatcher({
    repo: createDeliveryQueueRepo(p.db),
    messagesRepo,
    uow,
    ids,
    clock,
    log: p.logger,
    events: p.events,
    sealer,
    apiKeyOf,
    allowPrivateUrls: p.config.allowPrivateUrls,
    options: p.config.webhooks,
    metrics: p.metrics,
  });
  const messages = createWebhookMessages({ repo: messagesRepo, endpointsRepo, uow, ids, clock, settings: webhookSettings, wake: () => webhookDispatcher.wake() });
  const webhookEndpoints = createWebhookEndpoints({
    repo: endpointsRepo,
    uow,
    ids,
    clock,
    sealer,
    settings: webhookSettings,
    messages,
    pageTokens,
    allowPrivateUrls: p.config.allowPrivateUrls,
    log: p.logger,
  });
  const webhookHistory = createWebhookHistory({ repo: createWebhookHistoryRepo(p.db), uow, clock, pageTokens, endpoints: webhookEndpoints, apiKeyOf, wake: () => webhookDispatcher.wake() });
  return {
    services: { webhookSettings, webhookDispatcher, webhookEndpoints, webhookHistory },
    ownedData: [webhooksOwnedData(messagesRepo)],
    projections: [projection('*', 'webhooks', messages.projection)],
    sealed: [
      { table: 'WebhookEndpoint', key: ['id'], column: 'secretSealed' },
      { table: 'WebhookEndpoint', key: ['id'], column: 'previousSecretSealed' },
    ],
  } satisfies DomainModule;
}
