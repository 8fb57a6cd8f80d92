import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { requestId } from './request-id.js';

/** The credential headers of the API; their values never reach a log line. */
const CREDENTIAL_HEADERS = ['x-service-api-key', 'x-service-auth-token', 'x-service-workspace-auth-token', 'authorization', 'cookie', 'set-cookie', 'proxy-authorization'];

/**
 * A safety net under the slim serializers below: anything that still logs a
 * headers object (an error carrying the request, a library's own context)
 * gets the credential values censored.
 */
export const REDACT_PATHS = CREDENTIAL_HEADERS.flatMap((name) => [
  `headers["${name}"]`,
  `req.headers["${name}"]`,
  `res.headers["${name}"]`,
  `err.headers["${name}"]`,
  `*.headers["${name}"]`,
]);

const redact = { paths: REDACT_PATHS, censor: '[redacted]' };

/** What every line logged while serving a request says about it. */
interface RequestFields {
  reqId: unknown;
  /** The contract's operationId, once known (see nameOperation). */
  operation?: string;
}

/**
 * The request being served, for every line logged while serving it: set once
 * per request (see httpLogger) and read by the logger's mixin, so services,
 * the unit of work and the webhook projection log without a request
 * parameter and still say which request and operation a line belongs to.
 * It holds two strings, not the request: whatever outlives the request in its
 * context (a timer, a pooled connection) keeps only these alive.
 */
const requestContext = new AsyncLocalStorage<RequestFields>();

/** Names the operation of the request being served, for the rest of its lines (http/operation.ts, once it is matched). */
export function nameOperation(operationId: string): void {
  const fields = requestContext.getStore();
  if (fields !== undefined) fields.operation = operationId;
}

/** `reqId` and `operation` of the request being served; nothing outside a request. */
function requestFields(): object {
  const fields = requestContext.getStore();
  // A fresh object each time: pino merges the line's own fields into it.
  return fields === undefined ? {} : { reqId: fields.reqId, operation: fields.operation };
}

/**
 * What every logger of the server is made with: the request fields on each
 * line. A logger handed to startServer from elsewhere (tests, an embedding
 * application) needs them too, or its lines carry no request ID.
 */
export const REQUEST_FIELDS: Pick<LoggerOptions, 'mixin'> = { mixin: requestFields };

/** The process logger (JSON lines on stdout unless a destination is given). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options: LoggerOptions = { level, redact, ...REQUEST_FIELDS };
  return destination ? pino(options, destination) : pino(options);
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      /** A probe or a scrape: neither in the access log nor in the request metrics (see untracked). */
      untracked?: boolean;
    }
  }
}

/**
 * Called by the probe and scrape handlers: probes every few seconds and
 * metric scrapes would drown the request log and the request metrics. The
 * handler marks what it serves, so every URL Express routes to it is left
 * out (`/metrics/`, `/metrics?x=1`, `/METRICS`) and nothing else is.
 */
export function untracked(res: { locals: Express.Locals }): void {
  res.locals.untracked = true;
}

/** Whether the handler that served this response marked it (read once the response has ended). */
export function isUntracked(res: ServerResponse): boolean {
  return (res as ServerResponse & { locals?: Express.Locals }).locals?.untracked === true;
}

declare module 'node:http' {
  interface IncomingMessage {
    /** The request ID (x-request-id), set by httpLogger. */
    id: string;
    /** The logger for this request: its lines carry reqId and operation through the request context. */
    log: Logger;
  }
}

type LoggedRequest = IncomingMessage & { operationId?: string };

/** Query parameters that carry a credential (Inbound Workflow Trigger's `apiKey`, for senders that cannot set headers). */
const CREDENTIAL_PARAMS = /([?&]apiKey=)[^&#]*/gi;

/** A request URL as the access log writes it: credentials in its query replaced. */
export function withoutCredentials(url: string): string {
  return url.includes('?') ? url.replace(CREDENTIAL_PARAMS, '$1[redacted]') : url;
}

/**
 * The access log: one line per request with only what operators use (id,
 * operation, method, path, remote address, status, time), and the request
 * context for every other line logged while serving it. Request headers are
 * left out entirely: they carry the credentials.
 *
 * Written here rather than with pino-http: that library makes a child logger
 * per request bound to the serialized request (redaction included) whether or
 * not a line is ever written; it was the largest single cost of a cached
 * authenticated read. Here a request costs an ID, the context, and a line only
 * when info is enabled. The line keeps pino-http's shape and messages.
 */
export function httpLogger(logger: Logger): RequestHandler[] {
  // The logger may come from elsewhere (tests, an embedding app): redact here too.
  const log = logger.child({}, { redact });
  const handler: RequestHandler = (req, res, next) => {
    const started = performance.now();
    req.id = requestId(req, res);
    req.log = log;
    const done = () => {
      res.off('close', done);
      res.off('finish', done);
      if (isUntracked(res) || !log.isLevelEnabled('info')) return;
      const line = {
        reqId: req.id,
        operation: (req as LoggedRequest).operationId,
        req: { id: req.id, method: req.method, url: withoutCredentials(req.originalUrl ?? req.url ?? ''), remoteAddress: req.socket?.remoteAddress, clientAddress: req.ip },
        res: { statusCode: res.statusCode },
        responseTime: Math.round(performance.now() - started),
      };
      if (!res.writableFinished) log.info({ ...line, err: { type: 'Error', message: 'the client closed the connection before the response ended' } }, 'request aborted');
      else if (res.statusCode >= 500) log.info(line, 'request errored');
      else log.info(line, 'request completed');
    };
    res.on('finish', done);
    res.on('close', done);
    requestContext.run({ reqId: req.id }, next);
  };
  return [handler];
}
