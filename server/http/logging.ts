import type { IncomingMessage, ServerResponse } from 'node:http';
import pino, { type DestinationStream, type Logger } from 'pino';
import { pinoHttp, type HttpLogger } from 'pino-http';
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

/** The process logger (JSON lines on stdout unless a destination is given). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return destination ? pino({ level, redact }, destination) : pino({ level, redact });
}

/** Probes every few seconds would drown the request log. */
const UNLOGGED_PATHS = new Set(['/healthz', '/readyz']);

/**
 * The access log: one line per request with only what operators use (id,
 * method, path, remote address, status, time). Request headers are left out
 * entirely: they carry the credentials, and serializing every header of
 * every request was a measurable cost on the hot path.
 */
export function httpLogger(logger: Logger): HttpLogger {
  return pinoHttp({
    logger,
    genReqId: requestId,
    quietReqLogger: true,
    // The logger may come from elsewhere (tests, an embedding app): redact here too.
    redact,
    wrapSerializers: false,
    serializers: {
      req: (req: IncomingMessage & { id?: unknown }) => ({ id: req.id, method: req.method, url: req.url, remoteAddress: req.socket?.remoteAddress }),
      res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
      err: pino.stdSerializers.err,
    },
    autoLogging: { ignore: (req) => UNLOGGED_PATHS.has(req.url ?? '') },
  });
}
