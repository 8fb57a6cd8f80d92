import { upsertMany } from '../../db/bulk.js';
import type { Db } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import type { ReadCache } from '../../platform/read-cache.js';

export type SettingKind = 'activity' | 'email' | 'permissionProvider' | 'advancedWebhooks';

/**
 * Workspace configuration documents, one JSON row per application and kind.
 * Settings are read by many operations and written rarely, so reads come from
 * the read cache (server/platform/read-cache.ts) when one is given; every write
 * here invalidates its row. The cache keeps the stored text: each reader
 * parses its own copy, so no caller can change what the next one reads.
 */
export function createSettingsRepo(db: Db, clock: Clock, cache?: ReadCache) {
  const texts = cache?.space<string | null>('workspace.setting');
  const keyOf = (apiKeyId: string, kind: SettingKind) => `${apiKeyId}\u0000${kind}`;
  const readText = async (apiKeyId: string, kind: SettingKind): Promise<string | null> => {
    const row = await db.setting.findUnique({ where: { apiKeyId_kind: { apiKeyId, kind } }, select: { value: true } });
    return row?.value ?? null;
  };
  const changed = (apiKeyId: string, kind: SettingKind) => texts?.invalidate(keyOf(apiKeyId, kind));
  return {
    async get<T>(apiKeyId: string, kind: SettingKind): Promise<T | null> {
      const text = texts ? await texts.get(keyOf(apiKeyId, kind), () => readText(apiKeyId, kind)) : await readText(apiKeyId, kind);
      return text === null ? null : (JSON.parse(text) as T);
    },

    async put(apiKeyId: string, kind: SettingKind, value: unknown): Promise<void> {
      const text = JSON.stringify(value);
      const updatedAt = BigInt(clock.nowMs());
      await db.setting.upsert({
        where: { apiKeyId_kind: { apiKeyId, kind } },
        create: { apiKeyId, kind, value: text, updatedAt },
        update: { value: text, updatedAt },
      });
      changed(apiKeyId, kind);
    },

    /**
     * Read-modify-write without lost updates: `change` gets the stored value
     * (`initial` when there is none) and its result is written only if the row
     * still holds what was read (compare-and-set), else it runs again on the
     * newer value. Two concurrent partial updates thus both take effect, on
     * either database, without a row lock.
     */
    async update<T>(apiKeyId: string, kind: SettingKind, initial: unknown, change: (current: unknown) => T): Promise<T> {
      // The row exists from here on (insert-if-absent is one statement), so every writer goes through the compare-and-set below.
      await upsertMany(db, 'Setting', [{ apiKeyId, kind, value: JSON.stringify(initial), updatedAt: clock.nowMs() }], { key: ['apiKeyId', 'kind'], update: [] });
      for (;;) {
        const row = await db.setting.findUniqueOrThrow({ where: { apiKeyId_kind: { apiKeyId, kind } }, select: { value: true } });
        const next = change(JSON.parse(row.value));
        const written = await db.setting.updateMany({ where: { apiKeyId, kind, value: row.value }, data: { value: JSON.stringify(next), updatedAt: BigInt(clock.nowMs()) } });
        if (written.count === 1) {
          changed(apiKeyId, kind);
          return next;
        }
      }
    },
  };
}

export type SettingsRepo = ReturnType<typeof createSettingsRepo>;
