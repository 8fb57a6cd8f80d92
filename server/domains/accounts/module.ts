import type { DomainModule, Platform } from '../../platform/module.js';
import { withReadCache } from './cached-repo.js';
import { createFeatureGate } from './features.js';
import { createAccountsRepo } from './repo.js';
import { createAccountsService } from './service.js';

/** Workspaces, applications and their credentials, read through the read cache; and the feature gate on them. */
export function accountsModule(p: Platform) {
  const repo = withReadCache(createAccountsRepo(p.db), p.readCache);
  const features = createFeatureGate(repo);
  const accounts = createAccountsService({ repo, uow: p.uow, sealer: p.sealer, clock: p.clock, unverifiedKeyGraceDays: p.config.unverifiedKeyGraceDays });
  return {
    services: { accounts, features },
    shared: {
      // Ask AI opens the calling application's sealed provider key (set with the CLI's `ai-key set`).
      sealedAiKeyOf: (apiKeyId: string, provider: string) => repo.sealedAiKeyOf(apiKeyId, provider),
      // The signing keys: a user token's audience is its application's API key digest.
      applicationDigests: { keyDigestOf: repo.keyDigestOf, apiKeyIdOfDigest: repo.apiKeyIdOfDigest },
    },
    sealed: [
      { table: 'ApiKey', key: ['id'], column: 'keySealed' },
      { table: 'AuthToken', key: ['id'], column: 'tokenSealed' },
      { table: 'AiProviderKey', key: ['apiKeyId', 'provider'], column: 'keySealed' },
    ],
  } satisfies DomainModule;
}
