import type { Logger } from 'pino';
import { editorKeyOf } from '../../contract/crdt/document-name.js';
import type { Clock } from '../lib/clock.js';
import type { AppRealtime } from './application.js';
import type { LiveContext } from './connection-auth.js';
import type { ConnectionAccess, LiveRole } from './connection-access.js';

/** Close code of the Hocuspocus protocol the provider understands. */
const FORBIDDEN = { code: 4403, reason: 'Forbidden' };

/**
 * Checks every connection's access again: closes those whose user lost it
 * (or whose token expired) and follows role changes, so a lapsed permission
 * keeps its connection at most one check interval.
 */
export async function recheckAccess(apps: Iterable<AppRealtime>, deps: { access: ConnectionAccess; clock: Clock; log: Logger }): Promise<void> {
  const nowSeconds = Math.floor(deps.clock.nowMs() / 1000);
  for (const app of apps) {
    for (const [name, document] of app.hocuspocus.documents) {
      const key = editorKeyOf(name);
      const connections = document.getConnections();
      if (!key || connections.length === 0) continue;
      const users = connections.map((connection) => {
        const context = connection.context as LiveContext;
        return { userId: context.user.userId, claims: context.claims };
      });
      let roles: Map<string, LiveRole | null>;
      try {
        roles = await deps.access.rolesOf(app.apiKeyId, key, users);
      } catch (error) {
        deps.log.warn({ err: error }, 'checking connected users\' access failed; trying again at the next check');
        continue;
      }
      for (const connection of connections) {
        const context = connection.context as LiveContext;
        const role = roles.get(context.user.userId) ?? null;
        const expired = typeof context.claims.exp === 'number' && context.claims.exp <= nowSeconds;
        if (role === null || expired) {
          connection.close(FORBIDDEN);
          continue;
        }
        context.role = role;
        connection.readOnly = role === 'viewer';
      }
    }
  }
}
