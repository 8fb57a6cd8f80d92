import type { Request } from 'express';
import type { OperationMeta } from '../../contract/common/envelope.js';

/** Who is calling, set by the authentication middleware before any handler runs. */
export type Principal =
  | { kind: 'application'; workspaceId: string; apiKeyId: string; apiKey: string }
  | { kind: 'workspace'; workspaceId: string }
  | { kind: 'public' }
  /** Named by its API key alone: the operation must still authenticate the request (a body signature). */
  | { kind: 'namedApplication'; workspaceId: string; apiKeyId: string; apiKey: string };

export type ApplicationContext = Extract<Principal, { kind: 'application' }>;

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      principal?: Principal;
      /** The body's exact bytes, kept for the operations whose body is signed (OperationMeta.rawBody). */
      rawBody?: Buffer;
    }
  }
}

/** The metadata of the matched contract operation (see http/operation.ts, which runs before any of its readers). */
export function routeMeta(req: Request): OperationMeta {
  if (req.operation === undefined) throw new Error('no contract operation was matched for this request');
  return req.operation.metadata as OperationMeta;
}

/** The calling application; the route's metadata guarantees the middleware set it. */
export function applicationOf(req: Request): ApplicationContext {
  const principal = req.principal;
  if (principal?.kind !== 'application') throw new Error('route is not application-authenticated');
  return principal;
}

/** The application an API key alone named (auth `signedBody`): not authenticated until the operation checks the signature. */
export function namedApplicationOf(req: Request): Extract<Principal, { kind: 'namedApplication' }> {
  const principal = req.principal;
  if (principal?.kind !== 'namedApplication') throw new Error('route is not signedBody-authenticated');
  return principal;
}

export function workspaceOf(req: Request): { workspaceId: string } {
  const principal = req.principal;
  if (principal?.kind !== 'workspace') throw new Error('route is not workspace-authenticated');
  return principal;
}
