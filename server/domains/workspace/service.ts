import { z } from 'zod';
import {
  EMAIL_DEFAULT_TRIGGERS,
  MASKED_KEY_PREFIX,
  ZActivityServiceConfig,
  ZEmailServiceType,
  type TActivityServiceConfig,
  type TEmailConfig,
  type TPermissionProviderConfig,
} from '../../../contract/workspace/schemas.js';
import type { DataOf } from '../../../contract/common/envelope.js';
import type { updateActivityConfig } from '../../../contract/workspace/update-activity-config.js';
import { MAX_EMAIL_TRIGGERS, type updateEmailConfig } from '../../../contract/workspace/update-email-config.js';
import type { updatePermissionProviderConfig } from '../../../contract/workspace/update-permission-provider-config.js';
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

type EmailServiceType = TEmailConfig['emailServiceConfig']['type'];

/** How an application's email is sent, its provider key opened: for the email domain only, never for a response. */
export interface EmailSenderSettings {
  type: EmailServiceType;
  apiKey: string;
  fromEmail: string;
  fromCompany: string;
}

/** The Get Email Config reading of a workspace that never configured email. */
const EMAIL_CONFIG_DEFAULT: StoredEmailConfig = { useEmailService: false, type: 'default', apiKeySealed: '', fromEmail: '', fromCompany: '', triggers: {} };

/** A stored email config, parsed like the activity config: a row that does not fit fails loudly. */
const ZStoredEmailConfig = z.object({
  useEmailService: z.boolean(),
  type: ZEmailServiceType,
  apiKeySealed: z.string(),
  fromEmail: z.string(),
  fromCompany: z.string(),
  triggers: z.record(z.boolean()),
});
const parseEmailConfig = (value: unknown): StoredEmailConfig => ZStoredEmailConfig.parse(value);

/** What results show of a provider key: never the key, enough of its end to tell two keys apart. */
export function maskedKey(key: string): string {
  if (key === '') return '';
  return key.length >= 16 ? `${MASKED_KEY_PREFIX}${key.slice(-4)}` : MASKED_KEY_PREFIX;
}

/** The spec: a workspace that never configured activity logs reads {isEnabled: false}. */
const ACTIVITY_CONFIG_DEFAULT: TActivityServiceConfig = { isEnabled: false };

/** Stored settings are parsed through their schema, so a row that does not fit fails loudly instead of being trusted. */
const parseActivityConfig = (value: unknown): TActivityServiceConfig => ZActivityServiceConfig.parse(value);

/** `update` over `stored`, deeply: triggers merge per feature, then per action. */
function mergeActivityConfig(stored: TActivityServiceConfig, update: DataOf<typeof updateActivityConfig>): TActivityServiceConfig {
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
  /** A stored secret written again unchanged: under the sealing key (a rotation may be under way). */
  const kept = (sealed: string) => (sealed === '' ? '' : sealer.current(sealed));

  async function storedEmailConfig(apiKeyId: string): Promise<StoredEmailConfig> {
    const stored = await repo.get<unknown>(apiKeyId, 'email');
    return stored === null ? EMAIL_CONFIG_DEFAULT : parseEmailConfig(stored);
  }

  function emailConfigOf(stored: StoredEmailConfig): TEmailConfig {
    return {
      useEmailService: stored.useEmailService,
      emailServiceConfig: {
        type: stored.type,
        apiKey: maskedKey(open(stored.apiKeySealed)),
        fromEmail: stored.fromEmail,
        fromCompany: stored.fromCompany,
        triggers: stored.triggers,
      },
    };
  }

  function mergeEmailConfig(stored: StoredEmailConfig, update: DataOf<typeof updateEmailConfig>): StoredEmailConfig {
    const sent = update.emailServiceConfig ?? {};
    let base = stored;
    // The States table: enabling a config without triggers seeds the defaults first. The seeded type is
    // `custom` unless the application already chose another non-default type (e.g. `thirdparty` with its key).
    const enabling = update.useEmailService === true || sent.type === 'custom';
    if (enabling && Object.keys(stored.triggers).length === 0) {
      base = { ...stored, useEmailService: true, type: stored.type === 'default' ? 'custom' : stored.type, triggers: { ...EMAIL_DEFAULT_TRIGGERS } };
    }
    // Null-prototype map: trigger names are caller-chosen keys.
    const triggers = Object.assign(idMap<boolean>(), base.triggers, sent.triggers ?? {});
    const next: StoredEmailConfig = {
      useEmailService: update.useEmailService ?? base.useEmailService,
      type: sent.type ?? base.type,
      apiKeySealed: sealedKeyAfter(base.apiKeySealed, sent.apiKey),
      fromEmail: sent.fromEmail ?? base.fromEmail,
      fromCompany: sent.fromCompany ?? base.fromCompany,
      triggers,
    };
    if (Object.keys(triggers).length > MAX_EMAIL_TRIGGERS) {
      throw invalidArgument(`data.emailServiceConfig.triggers: at most ${MAX_EMAIL_TRIGGERS} triggers in all (stored and sent)`);
    }
    if (next.type === 'thirdparty' && next.apiKeySealed === '') {
      throw invalidArgument('data.emailServiceConfig.apiKey: type thirdparty sends through the provider\'s API and needs its apiKey');
    }
    if (next.type === 'thirdparty' && next.fromEmail === '') {
      throw invalidArgument('data.emailServiceConfig.fromEmail: type thirdparty needs a sender address (one the provider has verified)');
    }
    return next;
  }

  /** The stored key after a request: unchanged when not sent or sent back masked, removed by "", else the new key sealed. */
  function sealedKeyAfter(storedSealed: string, sent: string | undefined): string {
    if (sent === undefined) return kept(storedSealed);
    if (sent === '') return '';
    if (sent.startsWith(MASKED_KEY_PREFIX)) {
      if (storedSealed !== '' && sent === maskedKey(open(storedSealed))) return kept(storedSealed);
      throw invalidArgument(`data.emailServiceConfig.apiKey: a masked key (${MASKED_KEY_PREFIX}…) is accepted only as the stored key's own mask; send the provider's key`);
    }
    return sealer.seal(sent);
  }

  return {
    async activityConfig(apiKeyId: string): Promise<TActivityServiceConfig> {
      const stored = await repo.get<unknown>(apiKeyId, 'activity');
      return stored === null ? ACTIVITY_CONFIG_DEFAULT : parseActivityConfig(stored);
    },

    /** A partial, deep merge over the stored config (see mergeActivityConfig); concurrent updates both take effect. */
    async updateActivityConfig(apiKeyId: string, update: DataOf<typeof updateActivityConfig>): Promise<TActivityServiceConfig> {
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

    async updatePermissionProviderConfig(apiKeyId: string, update: DataOf<typeof updatePermissionProviderConfig>): Promise<TPermissionProviderConfig> {
      const stored = await repo.get<StoredPermissionProvider>(apiKeyId, 'permissionProvider');
      const usePermissionProvider = update.usePermissionProvider ?? stored?.usePermissionProvider ?? false;
      const permissionProviderUrl = update.permissionProviderConfig?.permissionProviderUrl?.trim() ?? stored?.permissionProviderUrl ?? '';
      if (usePermissionProvider && permissionProviderUrl === '') {
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
      // Sealed after the lookup, just before the write: a master-key rotation's passes may run meanwhile.
      const token = update.permissionProviderConfig?.authToken;
      const next: StoredPermissionProvider = {
        usePermissionProvider,
        permissionProviderUrl,
        authTokenSealed: token !== undefined ? (token === '' ? '' : sealer.seal(token)) : kept(stored?.authTokenSealed ?? ''),
      };
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
      return emailConfigOf(await storedEmailConfig(apiKeyId));
    },

    /**
     * The rules of Update Email Config (the States table and the contract's
     * description): defaults seeded when enabling a config without triggers,
     * then the request merged over, then the result checked. A compare-and-set
     * on the row, so two concurrent partial updates both take effect.
     */
    async updateEmailConfig(apiKeyId: string, update: DataOf<typeof updateEmailConfig>): Promise<TEmailConfig> {
      const next = await repo.update(apiKeyId, 'email', EMAIL_CONFIG_DEFAULT, (stored) => mergeEmailConfig(parseEmailConfig(stored), update));
      return emailConfigOf(next);
    },

    /** The triggers of an application whose email service is on; null while it is off. */
    async emailTriggers(apiKeyId: string): Promise<Readonly<Record<string, boolean>> | null> {
      const stored = await storedEmailConfig(apiKeyId);
      return stored.useEmailService ? stored.triggers : null;
    },

    /** How an application's email goes out, its key opened; null while its email service is off. */
    async emailSender(apiKeyId: string): Promise<EmailSenderSettings | null> {
      const stored = await storedEmailConfig(apiKeyId);
      if (!stored.useEmailService) return null;
      return { type: stored.type, apiKey: open(stored.apiKeySealed), fromEmail: stored.fromEmail, fromCompany: stored.fromCompany };
    },
  };
}

export type WorkspaceConfigService = ReturnType<typeof createWorkspaceConfigService>;

/**
 * A stored setting (JSON text) with each sealed field (a `…Sealed` string,
 * StoredEmailConfig and StoredPermissionProvider) passed through `reseal`;
 * the same text when none changes. For a master-key rotation.
 */
export function resealStoredSetting(stored: string, reseal: (sealed: string) => string): string {
  let changed = false;
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, field]) => {
        if (!key.endsWith('Sealed') || typeof field !== 'string' || field === '') return [key, walk(field)];
        const next = reseal(field);
        changed ||= next !== field;
        return [key, next];
      }),
    );
  };
  const next = walk(JSON.parse(stored));
  return changed ? JSON.stringify(next) : stored;
}
