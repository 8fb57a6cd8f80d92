import type { Connection, Document, Extension, onAuthenticatePayload } from '@hocuspocus/server';
import { decodeJwt } from 'jose';
import type { TUserRef } from '../../contract/common/content.js';
import { editorKeyOf, type EditorKey } from '../../contract/crdt/document-name.js';
import type { CrdtStore } from '../domains/crdt/store.js';
import type { SigningKeys, UserTokenClaims } from '../domains/permissions/signing-keys.js';
import type { Clock } from '../lib/clock.js';
import type { ConnectionAccess, LiveRole } from './connection-access.js';
import type { SocketGuard } from './socket-guard.js';

/** What a connection's hooks know about it (Hocuspocus's `context`). */
export interface LiveContext {
  apiKeyId: string;
  key: EditorKey;
  user: TUserRef;
  claims: UserTokenClaims;
  role: LiveRole;
}

/** The socket's guard and the first document's already verified token, handed over by the socket router. */
export interface RoutedContext {
  routed?: { token: string; claims: UserTokenClaims };
  guard?: SocketGuard;
}

export type DocumentListener = (apiKeyId: string, key: EditorKey, document: Document) => void;
export type ConnectionListener = (context: LiveContext, connection: Connection) => void;
export type DisconnectionListener = (context: LiveContext, document: Document) => void;

/** Thrown from onAuthenticate: the reason goes to the client, the empty message keeps Hocuspocus from logging it. */
export const refusal = (reason: string) => Object.assign(new Error(''), { reason });

/** Verifies a user token and, given an application, requires it to be that application's. */
export async function verifyUserToken(signingKeys: SigningKeys, apiKeyId: string | null, token: string): Promise<UserTokenClaims> {
  let audience: unknown;
  try {
    audience = decodeJwt(token).aud;
  } catch {
    throw refusal('invalid-token');
  }
  if (typeof audience !== 'string') throw refusal('invalid-token');
  let claims: UserTokenClaims;
  try {
    claims = await signingKeys.verify(token, { audience });
  } catch {
    throw refusal('invalid-token');
  }
  if (apiKeyId !== null && claims.app !== apiKeyId) throw refusal('invalid-token');
  return claims;
}

function userOf(claims: UserTokenClaims): TUserRef {
  const user: TUserRef = { userId: claims.user.userId };
  if (typeof claims.user.name === 'string' && claims.user.name !== '') user.name = claims.user.name;
  if (typeof claims.user.email === 'string' && claims.user.email !== '') user.email = claims.user.email;
  return user;
}

/**
 * One application's connection hooks: a document opens for a valid token of
 * that application whose user may read it (a viewer read-only), and the
 * hub's listeners hear of connections, disconnections and loaded documents.
 */
export function connectionAuth(
  apiKeyId: string,
  deps: {
    closed(): boolean;
    clock: Clock;
    signingKeys: SigningKeys;
    access: ConnectionAccess;
    store: CrdtStore;
    listeners: { loaded: DocumentListener[]; connected: ConnectionListener[]; disconnected: DisconnectionListener[] };
  },
): Extension {
  const { listeners } = deps;

  async function authenticate(token: string, documentName: string, routed: RoutedContext['routed']): Promise<LiveContext> {
    if (deps.closed()) throw refusal('server-shutting-down');
    const key = editorKeyOf(documentName);
    if (!key) throw refusal('invalid-document-name');
    let claims: UserTokenClaims;
    if (routed?.token === token) {
      // Verified when the socket was routed; on a long-lived socket it may have expired since.
      if (typeof routed.claims.exp === 'number' && routed.claims.exp <= Math.floor(deps.clock.nowMs() / 1000)) throw refusal('invalid-token');
      claims = routed.claims;
    } else {
      claims = await verifyUserToken(deps.signingKeys, apiKeyId, token);
    }
    const userId = claims.user.userId;
    const viaProvider = await deps.access.usesPermissionProvider(apiKeyId);
    const role = (await deps.access.rolesOf(apiKeyId, key, [{ userId, claims }], viaProvider)).get(userId) ?? null;
    if (role === null) throw refusal('permission-denied');
    if (viaProvider) await deps.store.openForProviderConnection(apiKeyId, key);
    return { apiKeyId, key, user: userOf(claims), claims, role };
  }

  return {
    extensionName: 'collab-auth',
    async onAuthenticate({ token, documentName, connectionConfig, context }: onAuthenticatePayload): Promise<LiveContext> {
      const { routed, guard } = context as RoutedContext;
      try {
        const live = await authenticate(token, documentName, routed);
        connectionConfig.readOnly = live.role === 'viewer';
        return live;
      } catch (error) {
        guard?.refused(documentName);
        throw error;
      }
    },
    async connected({ context, connection, documentName }) {
      (context as RoutedContext).guard?.authenticated(documentName);
      for (const listener of listeners.connected) listener(context as LiveContext, connection);
    },
    // Called once the connection has left the document (its awareness states removed).
    async onDisconnect({ context, document, documentName }) {
      (context as RoutedContext).guard?.disconnected(documentName);
      if ((context as Partial<LiveContext>).user) for (const listener of listeners.disconnected) listener(context as LiveContext, document);
    },
    async afterLoadDocument({ documentName, document }) {
      const key = editorKeyOf(documentName);
      if (key) for (const listener of listeners.loaded) listener(apiKeyId, key, document);
    },
  };
}
