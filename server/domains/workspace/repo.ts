import type { Db } from '../../db/client.js';

export type SettingKind = 'activity' | 'email' | 'permissionProvider' | 'advancedWebhooks';

/** Workspace configuration documents, one JSON row per application and kind. */
export function createSettingsRepo(db: Db) {
  return {
    async get<T>(apiKeyId: string, kind: SettingKind): Promise<T | null> {
      const row = await db.setting.findUnique({ where: { apiKeyId_kind: { apiKeyId, kind } }, select: { value: true } });
      return row ? (JSON.parse(row.value) as T) : null;
    },

    async put(apiKeyId: string, kind: SettingKind, value: unknown): Promise<void> {
      const text = JSON.stringify(value);
      await db.setting.upsert({
        where: { apiKeyId_kind: { apiKeyId, kind } },
        create: { apiKeyId, kind, value: text },
        update: { value: text },
      });
    },
  };
}

export type SettingsRepo = ReturnType<typeof createSettingsRepo>;
