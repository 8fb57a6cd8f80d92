import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { RequestValidationError } from '@ts-rest/express';
import { ZodError, type ZodIssue } from 'zod';
import { ERROR_STATUS_HTTP, type ErrorStatus, type TErrorEnvelope } from '../../contract/common/errors.js';
import { AppError } from '../lib/app-error.js';

export function sendError(res: Response, status: ErrorStatus, message: string, details?: unknown): void {
  const body: TErrorEnvelope = { error: details === undefined ? { message, status } : { message, status, details } };
  res.status(ERROR_STATUS_HTTP[status]).json(body);
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
  if (type === 'entity.parse.failed') return sendError(res, 'INVALID_ARGUMENT', 'the request body is not valid JSON');
  if (type === 'entity.too.large') {
    const limit = (err as { limit?: number }).limit;
    return sendError(res, 'INVALID_ARGUMENT', `the request body exceeds the limit of ${limit ?? 'the configured'} bytes`);
  }
  if (type === 'nul.in.body') {
    return sendError(res, 'INVALID_ARGUMENT', 'strings in the request must not contain the NUL character (\\u0000)');
  }
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return sendError(res, 'INVALID_ARGUMENT', 'the request body must be UTF-8 JSON');
  }
  req.log?.error({ err }, 'unhandled error');
  sendError(res, 'INTERNAL', 'internal error; see the server log for this request id');
};

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
  return `${where || 'body'}: ${issue.message}`;
}

function formatPath(path: (string | number)[]): string {
  return path.reduce<string>((out, part) => (typeof part === 'number' ? `${out}[${part}]` : out ? `${out}.${part}` : part), '');
}
