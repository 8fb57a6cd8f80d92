import { ZActivityServiceConfig, type TActivityServiceConfig, type TEmailConfig, type TPermissionProviderConfig } from '../../../contract/workspace/schemas.js';
import { idMap } from '../../lib/id-map.js';
import { invalidArgument } from '../../lib/app-error.js';
import type { Sealer } from '../../lib/crypto.js';
import { assertAllowedUrl, type OutboundLog } from '../../lib/outbound-http.js';
import type { ProviderTarget } from '../permission-provider/client.js';
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

export interface ActivityConfigUpdate {
  isEnabled?: boolean;
  immutable?: boolean;
  triggers?: Record<string, Record<string, boolean>>;
}

/** The spec: a workspace that never configured activity logs reads {isEnabled: false}. */
const ACTIVITY_CONFIG_DEFAULT: TActivityServiceConfig = { isEnabled: false };

/** Stored settings are parsed through their schema, so a row that does not fit fails loudly instead of being trusted. */
const parseActivityConfig = (value: unknown): TActivityServiceConfig => ZActivityServiceConfig.parse(value);

/** `update` over `stored`, deeply: triggers merge per feature, then per action. */
function mergeActivityConfig(stored: TActivityServiceConfig, update: ActivityConfigUpdate): TActivityServiceConfig {
  const next: TActivityServiceConfig = { ...stored, isEnabled: update.isEnabled ?? stored.isEnabled };
  if (update.immutable !== undefined) next.immutable = update.immutable;
  if (update.triggers !== undefined) {
    // Null-prototype maps: feature and action names are caller-chosen keys.
    const triggers = idMap<Record<string, boolean>>();
    for (const [feature, actions] of Object.entries(stored.triggers ?? {})) triggers[feature] = Object.assign(idMap<boolean>(), actions);
    for (const [feature, actions] of Object.entries(update.triggers)) triggers[feature] = Object.assign(triggers[feature] ?? idMap<boolean>(), actions);
    next.triggers = triggers;
  }
  return next;
}

export interface PermissionProviderUpdate {
  usePermissionProvider?: boolean;
  permissionProviderConfig?: { permissionProviderUrl?: string; authToken?: string };
}

export function createWorkspaceConfigService(deps: {
  repo: SettingsRepo;
  sealer: Sealer;
  allowPrivateUrls: boolean;
  /** Gets the details a refused URL's message leaves out (resolved addresses). */
  log?: OutboundLog;
  /** Told when an application's provider config changes, so cached answers go. */
  onPermissionProviderChange?: (apiKeyId: string) => void;
}) {
  const { repo, sealer } = deps;
  const open = (sealed: string) => (sealed === '' ? '' : sealer.open(sealed));

  return {
    async activityConfig(apiKeyId: string): Promise<TActivityServiceConfig> {
      const stored = await repo.get<unknown>(apiKeyId, 'activity');
      return stored === null ? ACTIVITY_CONFIG_DEFAULT : parseActivityConfig(stored);
    },

    /** A partial, deep merge over the stored config (see mergeActivityConfig); concurrent updates both take effect. */
    async updateActivityConfig(apiKeyId: string, update: ActivityConfigUpdate): Promise<TActivityServiceConfig> {
      return repo.update(apiKeyId, 'activity', ACTIVITY_CONFIG_DEFAULT, (stored) => mergeActivityConfig(parseActivityConfig(stored), update));
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

    async updatePermissionProviderConfig(apiKeyId: string, update: PermissionProviderUpdate): Promise<TPermissionProviderConfig> {
      const stored = await repo.get<StoredPermissionProvider>(apiKeyId, 'permissionProvider');
      const next: StoredPermissionProvider = {
        usePermissionProvider: update.usePermissionProvider ?? stored?.usePermissionProvider ?? false,
        permissionProviderUrl: update.permissionProviderConfig?.permissionProviderUrl?.trim() ?? stored?.permissionProviderUrl ?? '',
        authTokenSealed:
          update.permissionProviderConfig?.authToken !== undefined
            ? update.permissionProviderConfig.authToken === ''
              ? ''
              : sealer.seal(update.permissionProviderConfig.authToken)
            : (stored?.authTokenSealed ?? ''),
      };
      if (next.usePermissionProvider && next.permissionProviderUrl === '') {
        throw invalidArgument('data.permissionProviderConfig.permissionProviderUrl is required to turn the permission provider on');
      }
      // Only a new URL is checked: the stored one was checked when it was set, and
      // re-checking it (also when a client sends the whole config back unchanged)
      // would keep the provider from being turned off once its host stops
      // resolving. Requests re-check at connect time anyway.
      const sentUrl = update.permissionProviderConfig?.permissionProviderUrl?.trim();
      if (sentUrl !== undefined && sentUrl !== '' && sentUrl !== stored?.permissionProviderUrl) {
        await assertAllowedUrl(sentUrl, { allowPrivate: deps.allowPrivateUrls, log: deps.log });
      }
      await repo.put(apiKeyId, 'permissionProvider', next);
      deps.onPermissionProviderChange?.(apiKeyId);
      return this.permissionProviderConfig(apiKeyId);
    },

    /** Where to ask permission questions, or null while the provider is off. */
    async permissionProviderTarget(apiKeyId: string): Promise<ProviderTarget | null> {
      const stored = await repo.get<StoredPermissionProvider>(apiKeyId, 'permissionProvider');
      if (!stored?.usePermissionProvider || stored.permissionProviderUrl === '') return null;
      return { apiKeyId, url: stored.permissionProviderUrl, authToken: open(stored.authTokenSealed) };
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
