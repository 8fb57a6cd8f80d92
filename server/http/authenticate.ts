import type { RequestHandler } from 'express';
import type { AccountsService } from '../domains/accounts/service.js';
import { unauthenticated } from '../lib/app-error.js';
import { routeMeta } from './context.js';

/** Header pairs of the operator interface, by the route's auth mode. */
export const HEADERS = {
  apiKey: 'x-service-api-key',
  authToken: 'x-service-auth-token',
  workspaceId: 'x-service-workspace-id',
  workspaceAuthToken: 'x-service-workspace-auth-token',
} as const;

/**
 * The one authentication middleware. It runs after ts-rest matched the route
 * and before the body is validated, so a caller without credentials learns
 * nothing about the operation's shape. Missing header: UNAUTHENTICATED; a
 * wrong credential: PERMISSION_DENIED (raised by the accounts service).
 */
export function authenticate(accounts: AccountsService): RequestHandler {
  return (req, _res, next) => {
    const mode = routeMeta(req).auth;
    if (mode === 'public') {
      req.principal = { kind: 'public' };
      return next();
    }
    const [idHeader, tokenHeader] =
      mode === 'workspace' ? [HEADERS.workspaceId, HEADERS.workspaceAuthToken] : [HEADERS.apiKey, HEADERS.authToken];
    const id = header(req.headers[idHeader]);
    const token = header(req.headers[tokenHeader]);
    const missing = [id === undefined && idHeader, token === undefined && tokenHeader].filter(Boolean);
    if (missing.length > 0) return next(unauthenticated(`missing header(s): ${missing.join(', ')}`));

    const check =
      mode === 'workspace'
        ? accounts.authenticateWorkspace(id!, token!).then((p) => {
            req.principal = { kind: 'workspace', workspaceId: p.workspaceId };
          })
        : accounts.authenticateApplication(id!, token!).then((p) => {
            req.principal = { kind: 'application', workspaceId: p.workspaceId, apiKeyId: p.apiKeyId, apiKey: id! };
          });
    check.then(() => next(), next);
  };
}

function header(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}
