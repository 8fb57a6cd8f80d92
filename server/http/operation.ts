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
      /** The path parameters of an operation whose path has some (Inbound Workflow Trigger), as its route matched them. */
      operationParams?: Record<string, string>;
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
  // The exact method and path of each operation, looked up before the router walks its ~110 routes
  // (a regular expression each); the router still answers what Express would also match
  // (a trailing slash, another letter case).
  const exact = new Map<string, { route: AppRoute; name: string }>();
  const register = (node: AppRouter) => {
    for (const [name, value] of Object.entries(node)) {
      if (!isAppRoute(value)) {
        register(value);
        continue;
      }
      const method = value.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
      exact.set(`${value.method} ${value.path}`, { route: value, name });
      router[method](value.path, (req, _res, next) => {
        req.operation = value;
        req.operationId = name;
        // Express drops req.params as the request leaves this router: kept for the operation's handlers.
        req.operationParams = { ...(req.params as Record<string, string>) };
        nameOperation(name);
        next('router');
      });
    }
  };
  register(contract);

  const fast: RequestHandler = (req, res, next) => {
    const found = exact.get(`${req.method} ${req.path}`);
    if (found === undefined) return router(req, res, next);
    req.operation = found.route;
    req.operationId = found.name;
    nameOperation(found.name);
    next();
  };

  const rest: RequestHandler = (req, res, next) => {
    if (req.operation !== undefined) return next();
    // Every POST route is an operation.
    if (req.method === 'POST') return notFoundHandler(req, res, next);
    if (hasBody(req.headers)) return sendError(res, 'INVALID_ARGUMENT', `${req.method} ${req.path} takes no request body`);
    next();
  };
  return [fast, rest];
}

/**
 * Where ts-rest's createExpressEndpoints registers each operation's handlers
 * instead of the app: the app then runs the handlers of the operation
 * matchOperation already found, rather than walking every route again.
 * Pass `collector` as createExpressEndpoints' app, then mount `dispatch`
 * followed by `after` (the error handlers ts-rest adds with `use`).
 */
export function operationDispatch(): { collector: unknown; dispatch: RequestHandler; after: RequestHandler[] } {
  const table = new Map<string, RequestHandler[]>();
  const after: RequestHandler[] = [];
  const add = (method: string) => (path: string, ...handlers: RequestHandler[]) => {
    table.set(`${method} ${path}`, handlers);
  };
  const collector = { get: add('GET'), post: add('POST'), put: add('PUT'), patch: add('PATCH'), delete: add('DELETE'), use: (...handlers: RequestHandler[]) => after.push(...handlers) };
  const dispatch: RequestHandler = (req, res, next) => {
    const handlers = req.operation === undefined ? undefined : table.get(`${req.operation.method} ${req.operation.path}`);
    if (handlers === undefined) return next();
    if (req.operationParams !== undefined) req.params = req.operationParams;
    let index = 0;
    const step = (error?: unknown): void => {
      // Express's contract: next(error) skips to the error handlers, next('route'/'router') to what follows.
      if (error) return error === 'route' || error === 'router' ? next() : next(error);
      const handler = handlers[index++];
      if (handler === undefined) return next();
      try {
        handler(req, res, step);
      } catch (thrown) {
        next(thrown);
      }
    };
    step();
  };
  return { collector, dispatch, after };
}

/** Whether the request carries a body, judged from its headers alone (nothing is read). */
export function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
