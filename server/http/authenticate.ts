import type { Request, RequestHandler, Response } from 'express';
import type { AccountsService } from '../domains/accounts/service.js';
import { AppError, unauthenticated } from '../lib/app-error.js';
import { routeMeta } from './context.js';

/** Header pairs of the operator interface, by the route's auth mode. */
export const HEADERS = {
  apiKey: 'x-service-api-key',
  authToken: 'x-service-auth-token',
  workspaceId: 'x-service-workspace-id',
  workspaceAuthToken: 'x-service-workspace-auth-token',
} as const;

/**
 * The one authentication middleware. It runs once the operation is known from
 * method and path (http/operation.ts) and before the body is read, so a caller
 * without credentials neither costs us a parse nor learns anything about the
 * operation's shape. Missing header: UNAUTHENTICATED; a wrong credential:
 * PERMISSION_DENIED (raised by the accounts service). Either failure is
 * reported to `onRejected` (the per-address failed-authentication limit),
 * which may answer 429 itself (it resolves true then); otherwise the error
 * goes on. A valid credential never reaches it.
 */
export function authenticate(accounts: AccountsService, onRejected: (req: Request, res: Response) => Promise<boolean> = async () => false): RequestHandler {
  return (req, res, next) => {
    const reject = (error: unknown) => {
      // Only a refused credential counts; a database outage is no client's failure.
      if (!(error instanceof AppError) || (error.status !== 'UNAUTHENTICATED' && error.status !== 'PERMISSION_DENIED')) return next(error);
      onRejected(req, res).then(
        (answered) => {
          if (!answered) next(error);
        },
        (countError: unknown) => {
          // Not being able to count a failure must not turn a 401/403 into a 500.
          req.log?.warn({ err: countError }, 'could not count a failed authentication');
          next(error);
        },
      );
    };
    // The GET routes (JWKS) are public documents, not operations.
    if (req.operation === undefined) return next();
    const mode = routeMeta(req).auth;
    if (mode === 'public') {
      req.principal = { kind: 'public' };
      return next();
    }
    if (mode === 'signedBody') {
      // The header wins over the query parameter (senders that cannot set headers use the latter).
      const apiKey = header(req.headers[HEADERS.apiKey]) ?? queryValue(req.query.apiKey);
      if (apiKey === undefined) return reject(unauthenticated(`missing header ${HEADERS.apiKey} (or the apiKey query parameter)`));
      accounts.identifyApplication(apiKey).then((p) => {
        req.principal = { kind: 'namedApplication', workspaceId: p.workspaceId, apiKeyId: p.apiKeyId, apiKey };
        next();
      }, reject);
      return;
    }
    const [idHeader, tokenHeader] =
      mode === 'workspace' ? [HEADERS.workspaceId, HEADERS.workspaceAuthToken] : [HEADERS.apiKey, HEADERS.authToken];
    const id = header(req.headers[idHeader]);
    const token = header(req.headers[tokenHeader]);
    const missing = [id === undefined && idHeader, token === undefined && tokenHeader].filter(Boolean);
    if (missing.length > 0) return reject(unauthenticated(`missing header(s): ${missing.join(', ')}`));

    const check =
      mode === 'workspace'
        ? accounts.authenticateWorkspace(id!, token!).then((p) => {
            req.principal = { kind: 'workspace', workspaceId: p.workspaceId };
          })
        : accounts.authenticateApplication(id!, token!).then((p) => {
            req.principal = { kind: 'application', workspaceId: p.workspaceId, apiKeyId: p.apiKeyId, apiKey: id! };
          });
    check.then(() => next(), reject);
  };
}

function queryValue(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function header(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}
