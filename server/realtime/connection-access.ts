import type { AccessChecks } from '../domains/access/checks.js';
import type { UserTokenClaims } from '../domains/permissions/signing-keys.js';
import type { EditorKey } from '../../contract/crdt/document-name.js';

export type LiveRole = 'editor' | 'viewer';

/**
 * What a connected user may do on a document right now: `editor` writes,
 * `viewer` only reads, null closes the connection.
 *
 * The stored grants decide (the same resolver as Get Permissions: expiry,
 * folders, groups, public documents, disabled → viewer), so removing a user
 * or letting a grant lapse ends their connection at the next check. An
 * application that uses a permission provider stores no grants: there the
 * token's resources decide, as the provider answered when the token was
 * generated (document or organization entry, role and expiresAt).
 */
export function createConnectionAccess(deps: {
  checks: AccessChecks;
  usesPermissionProvider(apiKeyId: string): Promise<boolean>;
  nowSeconds(): number;
}) {
  function fromToken(claims: UserTokenClaims, key: EditorKey): LiveRole | null {
    const now = deps.nowSeconds();
    let best: LiveRole | null = null;
    for (const resource of claims.permissions?.resources ?? []) {
      if (resource.expiresAt !== undefined && resource.expiresAt <= now) continue;
      const covers =
        (resource.type === 'document' && resource.id === key.documentId && resource.organizationId === key.organizationId) ||
        (resource.type === 'organization' && resource.id === key.organizationId);
      if (!covers) continue;
      if (resource.accessRole === 'editor') return 'editor';
      best = 'viewer';
    }
    return best;
  }

  return {
    usesPermissionProvider: deps.usesPermissionProvider,
    /**
     * Roles of several users of one document (one batch of queries), keyed by
     * user ID. `viaProvider` when the caller already asked usesPermissionProvider.
     */
    async rolesOf(
      apiKeyId: string,
      key: EditorKey,
      users: { userId: string; claims: UserTokenClaims }[],
      viaProvider?: boolean,
    ): Promise<Map<string, LiveRole | null>> {
      const roles = new Map<string, LiveRole | null>();
      if (viaProvider ?? (await deps.usesPermissionProvider(apiKeyId))) {
        for (const user of users) roles.set(user.userId, fromToken(user.claims, key));
        return roles;
      }
      const readers = await deps.checks.readersAmong(apiKeyId, key.organizationId, key.documentId, [...new Set(users.map((u) => u.userId))]);
      for (const user of users) roles.set(user.userId, readers.get(user.userId)?.accessRole ?? null);
      return roles;
    },
  };
}

export type ConnectionAccess = ReturnType<typeof createConnectionAccess>;
