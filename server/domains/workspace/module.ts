import type { DomainModule, Platform } from '../../platform/module.js';
import { createPermissionProviderClient } from '../permission-provider/client.js';
import { createSettingsRepo } from './repo.js';
import { createWorkspaceConfigService, resealStoredSetting } from './service.js';

/**
 * Workspace configuration (activity, email, permission provider, advanced
 * webhooks), read through the read cache; and the permission-provider
 * client, whose cached answers a changed provider setting invalidates.
 */
export function workspaceModule(p: Platform) {
  const provider = createPermissionProviderClient({ allowPrivateUrls: p.config.allowPrivateUrls, log: p.logger, now: p.clock.nowMs });
  const settings = createSettingsRepo(p.db, p.clock, p.readCache);
  const workspaceConfig = createWorkspaceConfigService({
    repo: settings,
    sealer: p.sealer,
    allowPrivateUrls: p.config.allowPrivateUrls,
    log: p.logger,
    onPermissionProviderChange: (apiKeyId) => provider.invalidate(apiKeyId),
  });
  // The webhooks domain keeps its settings beside the others (webhooks/settings.ts).
  return {
    services: { workspaceConfig },
    shared: { provider, settings },
    sealed: [{ table: 'Setting', key: ['apiKeyId', 'kind'], column: 'value', leaves: resealStoredSetting }],
  } satisfies DomainModule;
}
