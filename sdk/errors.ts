import type { ErrorStatus } from '../contract/common/errors.js';

/**
 * What the client throws. Messages never carry credentials, request bodies or
 * URLs (a URL may hold credentials); the underlying error, when there is one,
 * is the standard `cause`.
 */

/** Where a failure happened, on every error of a call. */
export interface CallInfo {
  /** `<group>.<operationId>`, e.g. `comments.getCommentAnnotations`. */
  operation: string;
  /** The response's `x-request-id`, else the one the client sent (every attempt of a call sends the same). */
  requestId: string | undefined;
}

/** The server's error envelope `{"error": {"message", "status", "details?"}}`. */
export class CollabError extends Error {
  override readonly name = 'CollabError';
  readonly operation: string;
  readonly requestId: string | undefined;
  /**
   * How long the server asked to wait before retrying (its `Retry-After`), in
   * milliseconds; set on the rate limits' RESOURCE_EXHAUSTED.
   */
  readonly retryAfterMs: number | undefined;

  constructor(
    readonly status: ErrorStatus,
    message: string,
    readonly httpStatus: number,
    readonly details?: unknown,
    info: Partial<CallInfo> & { retryAfterMs?: number } = {},
  ) {
    super(message);
    this.operation = info.operation ?? '';
    this.requestId = info.requestId;
    this.retryAfterMs = info.retryAfterMs;
  }
}

/** An attempt took longer than the client's `timeout`. Not retried: the server may have carried it out. */
export class CollabTimeoutError extends Error {
  override readonly name = 'CollabTimeoutError';
  readonly operation: string;
  readonly requestId: string | undefined;

  constructor(
    readonly timeoutMs: number,
    info: CallInfo,
  ) {
    super(`${info.operation}: no complete response within ${timeoutMs} ms`);
    this.operation = info.operation;
    this.requestId = info.requestId;
  }
}

/** The request failed without a complete response (connection refused, DNS failure, connection reset, ...). */
export class CollabNetworkError extends Error {
  override readonly name = 'CollabNetworkError';
  readonly operation: string;
  readonly requestId: string | undefined;

  constructor(
    /** The system error code when the runtime gives one (Node.js: `ECONNREFUSED`, `ENOTFOUND`, `ECONNRESET`, ...). */
    readonly code: string | undefined,
    /** True when no connection was made, so the server cannot have received the request. */
    readonly beforeConnect: boolean,
    info: CallInfo,
    cause: unknown,
  ) {
    super(`${info.operation}: the request failed without a response${code ? ` (${code})` : ''}`, { cause });
    this.operation = info.operation;
    this.requestId = info.requestId;
  }
}

/** A response that is not the API's JSON envelope: a proxy's error page, say, or a server of another kind at `baseUrl`. */
export class CollabResponseError extends Error {
  override readonly name = 'CollabResponseError';
  readonly operation: string;
  readonly requestId: string | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(
    readonly httpStatus: number,
    /** The start of the response body (at most 2,000 characters), for diagnosis. */
    readonly body: string,
    info: CallInfo & { retryAfterMs?: number },
  ) {
    super(`${info.operation}: unexpected HTTP ${httpStatus} response, not the API's JSON envelope`);
    this.operation = info.operation;
    this.requestId = info.requestId;
    this.retryAfterMs = info.retryAfterMs;
  }
}

/** verifyUserToken refused the token, or could not check it (see `code`). */
export class UserTokenError extends Error {
  override readonly name = 'UserTokenError';

  constructor(
    /**
     * jose's error code, e.g. `ERR_JWT_EXPIRED`, `ERR_JWS_SIGNATURE_VERIFICATION_FAILED`,
     * `ERR_JWT_CLAIM_VALIDATION_FAILED` (wrong audience or issuer), `ERR_JOSE_ALG_NOT_ALLOWED`;
     * or `ERR_JWKS_UNAVAILABLE` when the key set could not be fetched (the token was not judged).
     */
    readonly code: string,
    message: string,
    cause?: unknown,
  ) {
    super(message, { cause });
  }
}

/** verifyWebhook refused a delivery: a missing or wrong signature, a timestamp out of tolerance, or a body that is not a webhook payload. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';

  constructor(message: string, cause?: unknown) {
    super(message, { cause });
  }
}
