import { Router, type RequestHandler } from 'express';
import { isAppRoute, type AppRoute, type AppRouter } from '@ts-rest/core';
import { notFoundHandler, sendError } from './error-handler.js';
import { nameOperation } from './logging.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The contract operation, found from method and path before the body is read. */
      operation?: AppRoute;
      /** Its name in the contract, which is its operationId in the OpenAPI document (for logs and metrics). */
      operationId?: string;
    }
  }
}

/**
 * Finds each request's contract operation from its method and path alone, so
 * credentials and rate limits are settled before anything reads, inflates or
 * parses what the client sent (ts-rest attaches the route only in its own
 * handler, after the body parser). Routes are registered as
 * createExpressEndpoints registers them (`router[method](path)`), so both
 * match a request alike.
 *
 * A request that is no operation never has its body read: an unknown POST path
 * is answered NOT_FOUND here, and a body sent to one of the GET routes
 * (JWKS, health) is refused.
 */
export function matchOperation(contract: AppRouter): RequestHandler[] {
  const router = Router();
  const register = (node: AppRouter) => {
    for (const [name, value] of Object.entries(node)) {
      if (!isAppRoute(value)) {
        register(value);
        continue;
      }
      const method = value.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
      router[method](value.path, (req, _res, next) => {
        req.operation = value;
        req.operationId = name;
        nameOperation(name);
        next('router');
      });
    }
  };
  register(contract);

  const rest: RequestHandler = (req, res, next) => {
    if (req.operation !== undefined) return next();
    // Every POST route is an operation.
    if (req.method === 'POST') return notFoundHandler(req, res, next);
    if (hasBody(req.headers)) return sendError(res, 'INVALID_ARGUMENT', `${req.method} ${req.path} takes no request body`);
    next();
  };
  return [router, rest];
}

/** Whether the request carries a body, judged from its headers alone (nothing is read). */
export function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
