import type { TActivityServiceConfig, TEmailConfig, TPermissionProviderConfig } from '../../../contract/workspace/schemas.js';
import type { Sealer } from '../../lib/crypto.js';
import type { SettingsRepo } from './repo.js';

/** How the permission provider config is stored: its token sealed at rest. */
export interface StoredPermissionProvider {
  usePermissionProvider: boolean;
  permissionProviderUrl: string;
  authTokenSealed: string;
}

/** How the email config is stored: the provider API key sealed at rest. */
export interface StoredEmailConfig {
  useEmailService: boolean;
  type: TEmailConfig['emailServiceConfig']['type'];
  apiKeySealed: string;
  fromEmail: string;
  fromCompany: string;
  triggers: Record<string, boolean>;
}

export function createWorkspaceConfigService(deps: { repo: SettingsRepo; sealer: Sealer }) {
  const { repo, sealer } = deps;
  const open = (sealed: string) => (sealed === '' ? '' : sealer.open(sealed));

  return {
    async activityConfig(apiKeyId: string): Promise<TActivityServiceConfig> {
      // The spec: a workspace that never configured activity logs reads {isEnabled: false}.
      return (await repo.get<TActivityServiceConfig>(apiKeyId, 'activity')) ?? { isEnabled: false };
    },

    async permissionProviderConfig(apiKeyId: string): Promise<TPermissionProviderConfig> {
      const stored = await repo.get<StoredPermissionProvider>(apiKeyId, 'permissionProvider');
      return {
        usePermissionProvider: stored?.usePermissionProvider ?? false,
        permissionProviderConfig: {
          permissionProviderUrl: stored?.permissionProviderUrl ?? '',
          authToken: open(stored?.authTokenSealed ?? ''),
        },
      };
    },

    async emailConfig(apiKeyId: string): Promise<TEmailConfig> {
      const stored = await repo.get<StoredEmailConfig>(apiKeyId, 'email');
      return {
        useEmailService: stored?.useEmailService ?? false,
        emailServiceConfig: {
          type: stored?.type ?? 'default',
          apiKey: open(stored?.apiKeySealed ?? ''),
          fromEmail: stored?.fromEmail ?? '',
          fromCompany: stored?.fromCompany ?? '',
          triggers: stored?.triggers ?? {},
        },
      };
    },
  };
}

export type WorkspaceConfigService = ReturnType<typeof createWorkspaceConfigService>;
