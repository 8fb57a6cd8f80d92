import type { ReadCache } from '../../platform/read-cache.js';
import type { AccountsRepo } from './repo.js';

type TokenRow = NonNullable<Awaited<ReturnType<AccountsRepo['findAuthTokenByDigest']>>>;
type WorkspaceRow = NonNullable<Awaited<ReturnType<AccountsRepo['findWorkspaceById']>>>;

/**
 * The accounts repo with the reads of every request (the credential behind an
 * auth token or a workspace token, feature flags) served from the read cache,
 * and every write that can change their answer invalidating it. A credential
 * that does not exist is never cached: a token created on another process
 * works at once, and guessing cannot fill the cache.
 */
export function withReadCache(repo: AccountsRepo, cache: ReadCache): AccountsRepo {
  const tokens = cache.space<TokenRow | undefined>('accounts.token');
  const workspaces = cache.space<WorkspaceRow | undefined>('accounts.workspace');
  const features = cache.space<boolean>('accounts.feature');
  // Expiry, reactivation and verification change rows many tokens point at: rare, so everything goes.
  const credentialsChanged = () => {
    tokens.invalidate();
    workspaces.invalidate();
  };
  const after =
    <A extends unknown[], R>(write: (...args: A) => Promise<R>, invalidate: (...args: A) => void) =>
    async (...args: A): Promise<R> => {
      const result = await write(...args);
      invalidate(...args);
      return result;
    };

  return {
    ...repo,
    findAuthTokenByDigest: async (tokenDigest) =>
      (await tokens.get(tokenDigest, async () => (await repo.findAuthTokenByDigest(tokenDigest)) ?? undefined)) ?? null,
    findWorkspaceById: async (id) => (await workspaces.get(id, async () => (await repo.findWorkspaceById(id)) ?? undefined)) ?? null,
    featureEnabled: (apiKeyId, name) => features.get(`${apiKeyId}\u0000${name}`, () => repo.featureEnabled(apiKeyId, name)),

    deleteAuthToken: after(repo.deleteAuthToken, (_apiKeyId, tokenDigest) => tokens.invalidate(tokenDigest)),
    storeSealedKey: after(repo.storeSealedKey, () => tokens.invalidate()),
    markApiKeyExpired: after(repo.markApiKeyExpired, credentialsChanged),
    markEmailVerified: after(repo.markEmailVerified, credentialsChanged),
    reactivateApiKeys: after(repo.reactivateApiKeys, credentialsChanged),
    upsertFeature: after(repo.upsertFeature, (apiKeyId, name) => features.invalidate(`${apiKeyId}\u0000${name}`)),
  };
}
