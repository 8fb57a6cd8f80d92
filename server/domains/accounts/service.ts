import { randomBytes } from 'node:crypto';
import { isUniqueViolation } from '../../db/errors.js';
import { AppError, alreadyExists, invalidArgument, notFound, permissionDenied } from '../../lib/app-error.js';
import { isoOfMs, type Clock } from '../../lib/clock.js';
import { constantTimeEqual, digest, randomId, randomSecret, type Sealer } from '../../lib/crypto.js';
import type { AccountsRepo } from './repo.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';

/** Console toggles of the operator interface; a workspace starts with all of them on. */
export const FEATURES = ['advancedQueries', 'notifications'] as const;
export type Feature = (typeof FEATURES)[number];

export const AI_PROVIDERS = ['openai', 'anthropic', 'gemini'] as const;
export type AiProvider = (typeof AI_PROVIDERS)[number];

export interface ApplicationPrincipal {
  workspaceId: string;
  apiKeyId: string;
}

export interface AccountsDeps {
  repo: AccountsRepo;
  uow: UnitOfWork;
  sealer: Sealer;
  clock: Clock;
  /** Days an unverified owner email keeps its API keys working; null = forever. */
  unverifiedKeyGraceDays?: number | null;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
// A digest no real credential has, compared against when a lookup misses so a
// miss costs the same as a hit.
const MISS_DIGEST = digest(randomBytes(32).toString('hex'));
/** Opened API keys remembered for webhook payloads; a bound on memory, not a cache policy that matters. */
const OPENED_KEYS_MAX = 10_000;

export function createAccountsService(deps: AccountsDeps) {
  const { repo, sealer, clock } = deps;

  async function apiKeyOrThrow(apiKey: string) {
    const key = await repo.findApiKeyByDigest(digest(apiKey));
    if (!key) throw notFound('no application has this API key');
    return key;
  }

  function newAuthToken(apiKeyId: string, name: string, createdAt: bigint) {
    const token = randomSecret('at', 32);
    return { token, row: { id: randomId('tok'), apiKeyId, tokenDigest: digest(token), tokenSealed: sealer.seal(token), name, createdAt } };
  }

  const openedKeys = new Map<string, string>();

  /** An API key past its unverified-owner grace stops working (and is marked so). */
  async function refuseExpired(key: { id: string; expiredAt: bigint | null; createdAt: bigint; workspace: { emailVerified: boolean } }): Promise<void> {
    if (key.expiredAt) throw permissionDenied('this API key expired because the owner email is not verified; verify it to reactivate the key');
    const grace = deps.unverifiedKeyGraceDays;
    if (grace != null && !key.workspace.emailVerified && Number(key.createdAt) + grace * 86_400_000 <= clock.nowMs()) {
      await repo.markApiKeyExpired(key.id, BigInt(clock.nowMs()));
      throw permissionDenied('this API key expired because the owner email is not verified; verify it to reactivate the key');
    }
  }

  return {
    async createWorkspace(input: { ownerEmail: string; name?: string }) {
      const ownerEmail = normalizeEmail(input.ownerEmail);
      const workspaceAuthToken = randomSecret('wat', 32);
      const apiKey = randomSecret('ak', 24);
      const workspaceId = randomId('ws');
      const apiKeyId = randomId('app');
      const createdAt = BigInt(clock.nowMs());
      const { token, row } = newAuthToken(apiKeyId, 'default', createdAt);
      try {
        await deps.uow.run(() =>
          repo.createWorkspace({
            workspace: { id: workspaceId, name: input.name ?? ownerEmail, ownerEmail, authTokenDigest: digest(workspaceAuthToken), createdAt },
            apiKey: { id: apiKeyId, keyDigest: digest(apiKey), keyHint: apiKey.slice(0, 7), keySealed: sealer.seal(apiKey), name: 'default', createdAt },
            authToken: row,
          }),
        );
      } catch (error) {
        if (isUniqueViolation(error)) {
          throw alreadyExists(`a workspace already exists for ${ownerEmail}`);
        }
        throw error;
      }
      return { workspaceId, workspaceAuthToken, apiKey, authToken: token };
    },

    async verifyOwnerEmail(ownerEmail: string) {
      const workspace = await repo.findWorkspaceByEmail(normalizeEmail(ownerEmail));
      if (!workspace) throw notFound(`no workspace for ${ownerEmail}`);
      if (!workspace.emailVerified) await repo.markEmailVerified(workspace.id, BigInt(clock.nowMs()));
      return { verified: true as const };
    },

    /** Get Email Verification Status: verified workspaces get their expired keys back. */
    async emailVerificationStatus(ownerEmail: string) {
      const workspace = await repo.findWorkspaceByEmail(normalizeEmail(ownerEmail));
      if (!workspace) throw notFound(`no workspace for ${ownerEmail}`);
      if (workspace.emailVerified) await repo.reactivateApiKeys(workspace.id);
      return { verified: workspace.emailVerified };
    },

    async getWorkspace(apiKey: string) {
      const key = await apiKeyOrThrow(apiKey);
      const [tokenCount, features, aiProviders] = await Promise.all([
        repo.countAuthTokens(key.id),
        repo.listFeatures(key.id),
        repo.listAiProviders(key.id),
      ]);
      const toggles = Object.fromEntries(FEATURES.map((name) => [name, features.find((f) => f.name === name)?.enabled ?? true]));
      return {
        workspaceId: key.workspace.id,
        name: key.workspace.name,
        ownerEmail: key.workspace.ownerEmail,
        emailVerified: key.workspace.emailVerified,
        createdAt: isoOfMs(key.workspace.createdAt),
        workspaceAuthToken: '__redacted__',
        apiKey: {
          id: key.id,
          hint: `${key.keyHint}…`,
          name: key.name,
          expired: key.expiredAt !== null,
          createdAt: isoOfMs(key.createdAt),
          // The `aud` of this application's user tokens (applicationAudience: the key's SHA-256, which is what is stored).
          tokenAudience: key.keyDigest,
        },
        authTokens: tokenCount,
        features: toggles,
        aiProviders: Object.fromEntries(aiProviders.map((p) => [p.provider, { configured: true }])),
      };
    },

    async createAuthToken(apiKey: string, name?: string) {
      const key = await apiKeyOrThrow(apiKey);
      const at = clock.nowMs();
      const { token, row } = newAuthToken(key.id, name ?? `token-${at}`, BigInt(at));
      await repo.createAuthToken(row);
      return { authToken: token };
    },

    async revokeAuthToken(apiKey: string, authToken: string) {
      const key = await apiKeyOrThrow(apiKey);
      const { count } = await repo.deleteAuthToken(key.id, digest(authToken));
      if (count === 0) throw notFound('this auth token does not belong to this API key');
      return { revoked: true as const };
    },

    async setFeature(apiKey: string, name: string, enabled: boolean) {
      if (!(FEATURES as readonly string[]).includes(name)) throw invalidArgument(`unknown feature "${name}"; known: ${FEATURES.join(', ')}`);
      const key = await apiKeyOrThrow(apiKey);
      await repo.upsertFeature(key.id, name, enabled, BigInt(clock.nowMs()));
      return { name, enabled };
    },

    async setAiKey(apiKey: string, provider: string, secret: string) {
      if (!(AI_PROVIDERS as readonly string[]).includes(provider)) {
        throw invalidArgument(`unknown provider "${provider}"; known: ${AI_PROVIDERS.join(', ')}`);
      }
      // Provider keys are printable ASCII; anything else (a pasted newline) would break the request's
      // header later, in an error that carries the whole header value. Never echoed.
      if (!/^[\x21-\x7e]{1,1024}$/.test(secret)) {
        throw invalidArgument('the provider key must be 1 to 1024 printable ASCII characters without spaces or line breaks (the value is not shown)');
      }
      const key = await apiKeyOrThrow(apiKey);
      await repo.upsertAiKey(key.id, provider, sealer.seal(secret), BigInt(clock.nowMs()));
      return { provider, configured: true as const };
    },

    /** Get Auth Tokens: the tokens of one application of the calling workspace. */
    async listAuthTokens(workspaceId: string, apiKey: string) {
      const key = await repo.findApiKeyByDigest(digest(apiKey));
      // Another workspace's key reads exactly like an unknown one.
      if (!key || key.workspaceId !== workspaceId) throw notFound('no application with this API key in this workspace');
      const tokens = await repo.listAuthTokens(key.id);
      return {
        apiKey,
        authTokens: tokens.map((t) => ({ token: sealer.open(t.tokenSealed), name: t.name, createdAt: Number(t.createdAt) })),
      };
    },

    /**
     * The application credential pair. Missing headers are UNAUTHENTICATED
     * (checked by the caller); a wrong pair is PERMISSION_DENIED, as the spec
     * requires on the workspace get operations and we apply everywhere.
     */
    async authenticateApplication(apiKey: string, authToken: string): Promise<ApplicationPrincipal> {
      const found = await repo.findAuthTokenByDigest(digest(authToken));
      const keyMatches = constantTimeEqual(found?.apiKey.keyDigest ?? MISS_DIGEST, digest(apiKey));
      if (!found || !keyMatches) throw permissionDenied('invalid API key or auth token');
      const key = found.apiKey;
      await refuseExpired(key);
      if (!key.hasSealedKey) await repo.storeSealedKey(key.id, sealer.seal(apiKey));
      return { workspaceId: key.workspace.id, apiKeyId: key.id };
    },

    /**
     * The application an API key alone names (Inbound Workflow Trigger, whose
     * request a body signature authenticates): PERMISSION_DENIED for a key
     * that is unknown or expired, as authenticateApplication.
     */
    async identifyApplication(apiKey: string): Promise<ApplicationPrincipal> {
      const key = await repo.findApiKeyByDigest(digest(apiKey));
      if (!key) throw permissionDenied('invalid API key');
      await refuseExpired(key);
      return { workspaceId: key.workspace.id, apiKeyId: key.id };
    },

    /**
     * The API key itself, for webhook payloads (metadata.apiKey); '' for a key
     * created before keys were kept and not used since. Keys never change, so
     * an opened key is remembered.
     */
    async apiKeyOf(apiKeyId: string): Promise<string> {
      const known = openedKeys.get(apiKeyId);
      if (known !== undefined) return known;
      const sealed = await repo.sealedKeyOf(apiKeyId);
      if (sealed === null) return '';
      const key = sealer.open(sealed);
      if (openedKeys.size >= OPENED_KEYS_MAX) openedKeys.delete(openedKeys.keys().next().value!);
      openedKeys.set(apiKeyId, key);
      return key;
    },

    async authenticateWorkspace(workspaceId: string, workspaceAuthToken: string): Promise<{ workspaceId: string }> {
      const workspace = await repo.findWorkspaceById(workspaceId);
      const matches = constantTimeEqual(workspace?.authTokenDigest ?? MISS_DIGEST, digest(workspaceAuthToken));
      if (!workspace || !matches) throw permissionDenied('invalid workspace ID or workspace auth token');
      return { workspaceId: workspace.id };
    },
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;

export function normalizeEmail(email: string): string {
  const value = email.trim().toLowerCase();
  // Not repeated: a secret pasted into the wrong field must not come back in the error.
  if (!EMAIL.test(value)) throw new AppError('INVALID_ARGUMENT', 'the owner email is not an email address');
  return value;
}
