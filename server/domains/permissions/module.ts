import { nowSeconds } from '../../lib/clock.js';
import type { DomainModule, Platform } from '../../platform/module.js';
import type { Access } from '../access/module.js';
import type { PermissionProviderClient } from '../permission-provider/client.js';
import type { WorkspaceConfigService } from '../workspace/service.js';
import { createPermissionsService } from './service.js';
import { createSigningKeysRepo } from './repo.js';
import { createSigningKeys, type ApplicationDigests, type SigningKeys } from './signing-keys.js';

/** Get Permissions and Generate Token, with the signing keys that sign (and the real-time layer verifies) user tokens. */
export function permissionsModule(
  p: Platform,
  deps: { access: Access; applications: ApplicationDigests; workspaceConfig: WorkspaceConfigService; provider: PermissionProviderClient },
) {
  const signingKeys: SigningKeys = createSigningKeys({ repo: createSigningKeysRepo(p.db), applications: deps.applications, uow: p.uow, sealer: p.sealer, clock: p.clock });
  const permissions = createPermissionsService({
    ...deps.access.repos,
    find: deps.access.find,
    uow: p.uow,
    config: deps.workspaceConfig,
    provider: deps.provider,
    signingKeys,
    nowSeconds: () => nowSeconds(p.clock),
  });
  return { services: { permissions, signingKeys }, sealed: [{ table: 'SigningKey', key: ['kid'], column: 'privateJwkSealed' }] } satisfies DomainModule;
}
