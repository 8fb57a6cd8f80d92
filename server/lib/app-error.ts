import type { ErrorStatus } from '../../contract/common/errors.js';

/**
 * The one error type services raise. The error handler turns it into the
 * failure envelope `{error:{message, status, details?}}` with the HTTP code
 * from contract/common/errors.ts.
 */
export class AppError extends Error {
  constructor(
    readonly status: ErrorStatus,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const invalidArgument = (message: string, details?: unknown) => new AppError('INVALID_ARGUMENT', message, details);
export const notFound = (message: string, details?: unknown) => new AppError('NOT_FOUND', message, details);
export const alreadyExists = (message: string) => new AppError('ALREADY_EXISTS', message);
export const failedPrecondition = (message: string) => new AppError('FAILED_PRECONDITION', message);
export const permissionDenied = (message: string) => new AppError('PERMISSION_DENIED', message);
export const unauthenticated = (message: string) => new AppError('UNAUTHENTICATED', message);
