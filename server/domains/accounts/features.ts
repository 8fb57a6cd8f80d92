import { failedPrecondition } from '../../lib/app-error.js';
import type { AccountsRepo } from './repo.js';
import type { Feature } from './service.js';

const HOW_TO_ENABLE: Record<Feature, string> = {
  advancedQueries: 'the advanced-queries option is disabled for this application; enable it with `npm run --silent cli -- feature set --api-key <key> --name advancedQueries --enabled true`',
  notifications: 'notifications are disabled for this application; enable them with `npm run --silent cli -- feature set --api-key <key> --name notifications --enabled true`',
};

/** Console toggles that gate operations: FAILED_PRECONDITION, saying how to turn the toggle on, when off. */
export function createFeatureGate(repo: Pick<AccountsRepo, 'featureEnabled'>) {
  return {
    async require(apiKeyId: string, feature: Feature): Promise<void> {
      if (!(await repo.featureEnabled(apiKeyId, feature))) throw failedPrecondition(HOW_TO_ENABLE[feature]);
    },
  };
}

export type FeatureGate = ReturnType<typeof createFeatureGate>;
