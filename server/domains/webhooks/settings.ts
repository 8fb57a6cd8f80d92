import { z } from 'zod';
import type { SettingsRepo } from '../workspace/repo.js';

const ZStored = z.object({ isEnabled: z.boolean() });

/** The application's advanced webhook switch (a Setting row); off until turned on. */
export function createWebhookSettings(repo: SettingsRepo) {
  return {
    async isEnabled(apiKeyId: string): Promise<boolean> {
      const stored = await repo.get<unknown>(apiKeyId, 'advancedWebhooks');
      return stored === null ? false : ZStored.parse(stored).isEnabled;
    },
    async setEnabled(apiKeyId: string, isEnabled: boolean): Promise<boolean> {
      await repo.put(apiKeyId, 'advancedWebhooks', { isEnabled });
      return isEnabled;
    },
  };
}

export type WebhookSettings = ReturnType<typeof createWebhookSettings>;
