import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Metrics } from '../platform/metrics.js';
import { sendError } from './error-handler.js';
import { isUntracked, untracked } from './logging.js';

/**
 * Counts and times every request but the probes and scrapes (see untracked), once its
 * response has ended or its client has gone. The labels are the contract
 * operation (`unmatched` for the GET documents and unknown paths), the
 * envelope's status and the HTTP code.
 */
export function requestMetrics(metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const start = performance.now();
    res.on('close', () => {
      if (isUntracked(res)) return;
      const status = !res.writableFinished
        ? 'aborted'
        : (res.locals.errorStatus ?? (res.statusCode < 400 ? 'success' : 'unknown'));
      metrics.recordRequest(req.operationId ?? 'unmatched', status, res.headersSent ? String(res.statusCode) : 'none', (performance.now() - start) / 1000);
    });
    next();
  };
}

/**
 * `GET /metrics`: the Prometheus text exposition. With METRICS_TOKEN set it
 * takes `Authorization: Bearer <token>`, compared in constant time (both
 * sides hashed first, so not even the length shows); anything else is
 * UNAUTHENTICATED, never echoing what was sent. Without it the page is open:
 * operators bind or firewall it (docs/operations.md, Metrics and logs).
 */
export function metricsRoute(metrics: Metrics, token: string | undefined): RequestHandler {
  const expected = token === undefined ? undefined : digest(token);
  return (req, res, next) => {
    untracked(res);
    if (expected !== undefined) {
      const presented = bearerOf(req.headers.authorization);
      if (presented === undefined || !timingSafeEqual(digest(presented), expected)) {
        res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
        return sendError(
          res,
          'UNAUTHENTICATED',
          presented === undefined ? 'GET /metrics needs the header Authorization: Bearer <METRICS_TOKEN>' : 'the metrics token is not valid',
        );
      }
    }
    metrics.text().then((text) => {
      res.setHeader('content-type', metrics.contentType);
      res.setHeader('cache-control', 'no-store');
      res.end(text);
    }, next);
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

const BEARER = /^Bearer[ \t]+([^ \t]+)[ \t]*$/i;

function bearerOf(header: string | undefined): string | undefined {
  return header === undefined ? undefined : BEARER.exec(header)?.[1];
}
