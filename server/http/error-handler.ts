import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { RequestValidationError } from '@ts-rest/express';
import { ZodError, type ZodIssue } from 'zod';
import type { OperationMeta } from '../../contract/common/envelope.js';
import { ERROR_STATUS_HTTP, type ErrorStatus, type TErrorEnvelope, type TErrorEnvelopeWithCode } from '../../contract/common/errors.js';
import { AppError } from '../lib/app-error.js';
import { databaseOutage, isMissingRow, isStatementTimeout, type DatabaseOutage } from '../db/errors.js';
import { BODY_STRING_ERROR_TYPES, NonFiniteNumberInBody, ProtoKeyInBody } from './body-strings.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      /** The status of the error envelope sent, for the request metrics (two statuses share an HTTP code). */
      errorStatus?: ErrorStatus;
    }
  }
}

export function sendError(res: Response, status: ErrorStatus, message: string, details?: unknown): void {
  const http = ERROR_STATUS_HTTP[status];
  res.locals.errorStatus = status;
  // Every error of a matched operation passes here, from authentication and rate limits to the
  // handler, so an operation whose envelope carries the numeric code has it on all of them.
  const code = (res.req.operation?.metadata as OperationMeta | undefined)?.numericErrorCode ? { code: http } : {};
  const body: TErrorEnvelope | TErrorEnvelopeWithCode = {
    error: details === undefined ? { message, status, ...code } : { message, status, ...code, details },
  };
  // Answered before the body was read (bad credentials, unknown path, a limit): close the
  // connection rather than wait to drain a body we refused, which could be slow or never end.
  if (!res.req.complete && !res.headersSent) res.setHeader('connection', 'close');
  res.status(http).json(body);
}

/** Unknown paths and any method other than POST on a known path. */
export const notFoundHandler: RequestHandler = (req, res) => {
  if (req.method !== 'POST') {
    res.setHeader('Allow', 'POST');
    sendError(res, 'NOT_FOUND', `${req.method} ${req.path} does not exist: every operation is POST with a JSON body {"data": {...}}`);
    return;
  }
  sendError(res, 'NOT_FOUND', `no operation at ${req.path}`);
};

/**
 * The last middleware: every failure leaves as the error envelope. Internals
 * (stack traces, driver messages) go to the log, never to the client.
 */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  if (res.headersSent) {
    res.end();
    return;
  }
  if (err instanceof AppError) return sendError(res, err.status, err.message, err.details);
  if (err instanceof RequestValidationError) {
    const zodError = err.body ?? err.headers ?? err.query ?? err.pathParams;
    return sendError(res, 'INVALID_ARGUMENT', zodError ? describeZodError(zodError) : 'invalid request');
  }
  const type = (err as { type?: string }).type;
  // body-parser strips the reviver's error down to its message, but keeps the instance.
  if (err instanceof ProtoKeyInBody || err instanceof NonFiniteNumberInBody) return sendError(res, 'INVALID_ARGUMENT', err.message);
  if (type === 'entity.parse.failed') return sendError(res, 'INVALID_ARGUMENT', 'the request body is not valid JSON');
  if (type === 'entity.too.large') {
    const limit = (err as { limit?: number }).limit;
    return sendError(res, 'INVALID_ARGUMENT', `the request body exceeds the limit of ${limit ?? 'the configured'} bytes`);
  }
  const bodyProblem = type === undefined ? undefined : BODY_PROBLEMS.get(type);
  if (bodyProblem) return sendError(res, 'INVALID_ARGUMENT', bodyProblem);
  if (type === 'encoding.unsupported') {
    // 415 is not among the specification's statuses: a request it cannot read is INVALID_ARGUMENT.
    const encoding = String((err as { encoding?: unknown }).encoding ?? '').slice(0, 64);
    return sendError(res, 'INVALID_ARGUMENT', `content-encoding ${JSON.stringify(encoding)} is not supported: send the body uncompressed, gzip or deflate`);
  }
  if (isUnreadableBody(err)) {
    req.log?.info({ err }, 'unreadable request body');
    const encoding = req.headers['content-encoding'];
    return sendError(
      res,
      'INVALID_ARGUMENT',
      isZlibError(err) ? `the request body is not valid ${String(encoding).slice(0, 64)} data (corrupt or truncated)` : 'the request could not be read',
    );
  }
  const database = databaseFailure(err);
  if (database) {
    // At error: P2028 also covers misuse of a closed transaction, which must not pass unseen as load.
    req.log?.[database.status === 'NOT_FOUND' ? 'warn' : 'error']({ err }, 'database refused the operation');
    return sendError(res, database.status, database.message);
  }
  req.log?.error({ err }, 'unhandled error');
  sendError(res, 'INTERNAL', 'internal error; see the server log for this request id');
};

/** The body-parser error types (ours from the `verify` hook included) that are the client's doing, with what to tell it. */
const BODY_PROBLEMS = new Map<string, string>([
  [BODY_STRING_ERROR_TYPES.nul, 'strings in the request must not contain the NUL character (\\u0000)'],
  [BODY_STRING_ERROR_TYPES['lone-surrogate'], 'strings in the request must be valid Unicode: a UTF-16 surrogate escape (\\ud800-\\udfff) must be one half of a pair'],
  [BODY_STRING_ERROR_TYPES['not-utf8'], 'the request body is not valid UTF-8'],
  [BODY_STRING_ERROR_TYPES.charset, 'the request body must be UTF-8 JSON'],
  ['request.size.invalid', 'the request body is shorter or longer than its Content-Length'],
]);

/** Decompression failures (gzip or deflate with garbage, truncated) reach us as zlib errors. */
function isZlibError(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('Z_');
}

/** body-parser (and express) mark what they could not read with an exposed 4xx status: the client's doing, not ours. */
function isUnreadableBody(err: unknown): boolean {
  const status = (err as { status?: unknown }).status;
  return isZlibError(err) || (typeof status === 'number' && status >= 400 && status < 500 && (err as { expose?: unknown }).expose === true);
}

/** A readable message that names each failing field by its path, e.g. `data.users[0].email`. */
export function describeZodError(error: ZodError): string {
  return error.issues.slice(0, 5).map(describeIssue).join('; ');
}

function describeIssue(issue: ZodIssue): string {
  const where = formatPath(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const names = issue.keys.map((key) => (where ? `${where}.${key}` : key));
    if (where === '') return `unknown top-level field(s) ${names.join(', ')}: every parameter goes inside "data"`;
    return `unknown field(s) ${names.join(', ')}`;
  }
  if (issue.path.length === 1 && issue.path[0] === 'data' && issue.code === 'invalid_type' && issue.received === 'undefined') {
    return 'data is required: wrap every parameter in a top-level "data" object';
  }
  if (issue.code === 'invalid_type' && issue.received === 'undefined') return `${where} is required`;
  if (issue.code === 'invalid_type') return `${where} must be ${issue.expected}, got ${issue.received}`;
  // zod's own message repeats the refused value: a secret pasted into the wrong field must not come back.
  if (issue.code === 'invalid_enum_value') return `${where} must be one of ${issue.options.map((option) => `'${String(option)}'`).join(', ')}`;
  return `${where || 'body'}: ${issue.message}`;
}

function formatPath(path: (string | number)[]): string {
  return path.reduce<string>((out, part) => (typeof part === 'number' ? `${out}[${part}]` : out ? `${out}.${part}` : part), '');
}

/**
 * Database outcomes that are the caller's situation, not our fault, mapped in
 * this one place. A row that a look-up-then-write found and another request
 * deleted in between (P2025) is NOT_FOUND, as it would have been a moment
 * later. A database that is busy (a transaction that could not start in time,
 * a lost conflict, a file locked by another process), out of reach (a
 * connection cut, the server restarting) or out of space is UNAVAILABLE:
 * retrying later succeeds. The transaction is all or nothing either way; only
 * a connection lost during COMMIT leaves the client unsure which, so the
 * messages do not promise that nothing changed. They say which outage, never
 * the driver's text (paths, hosts).
 */
function databaseFailure(err: unknown): { status: ErrorStatus; message: string } | undefined {
  if (isMissingRow(err)) return { status: 'NOT_FOUND', message: 'the record this request changes no longer exists (it was deleted meanwhile)' };
  // Before the outages: PostgreSQL's query_canceled is no outage of its own.
  if (isStatementTimeout(err)) return { status: 'UNAVAILABLE', message: 'the database took too long to answer (statement timeout); retry the request' };
  const outage = databaseOutage(err);
  if (outage !== undefined) return { status: 'UNAVAILABLE', message: OUTAGE_MESSAGES[outage] };
  return undefined;
}

const OUTAGE_MESSAGES: Record<DatabaseOutage, string> = {
  busy: 'the database is busy; retry the request',
  unreachable: 'the database is unavailable; retry the request',
  full: 'the database is out of storage space; retry once an operator has freed space',
};
