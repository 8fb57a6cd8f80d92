import { z } from 'zod';
import { named } from './named.js';

/**
 * The error statuses of the specification and their HTTP codes, following
 * Google's API error model (google.rpc.Code → HTTP). Written once: the error
 * handler, the contract's error responses, the SDK's typed error and the
 * OpenAPI document all derive from this table.
 */
export const ERROR_STATUS_HTTP = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  RESOURCE_EXHAUSTED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
} as const;

export type ErrorStatus = keyof typeof ERROR_STATUS_HTTP;
export const ERROR_STATUSES = Object.keys(ERROR_STATUS_HTTP) as [ErrorStatus, ...ErrorStatus[]];

export const ZErrorStatus = named('ErrorStatus', z.enum(ERROR_STATUSES));

export const ZErrorEnvelope = named(
  'ErrorEnvelope',
  z
    .object({
      error: z.object({
        message: z.string().describe('Human-readable reason; never contains internals.'),
        status: ZErrorStatus.describe('One of the specification\'s error statuses.'),
        details: z.unknown().optional().describe('Structured detail, e.g. per-user permission results.'),
      }),
    })
    .describe('The failure envelope of every operation.'),
);

export type TErrorEnvelope = z.infer<typeof ZErrorEnvelope>;

/**
 * The failure envelope of the operations whose specification says it "may
 * carry a numeric `code`" (Get All User Data): the same fields plus `code`,
 * the response's HTTP status.
 */
export const ZErrorEnvelopeWithCode = named(
  'ErrorEnvelopeWithCode',
  z
    .object({
      error: z.object({
        message: z.string().describe('Human-readable reason; never contains internals.'),
        status: ZErrorStatus.describe('One of the specification\'s error statuses.'),
        code: z.number().int().describe('The HTTP status of the response, e.g. 404 with NOT_FOUND.'),
        details: z.unknown().optional().describe('Structured detail, e.g. per-user permission results.'),
      }),
    })
    .describe('The failure envelope with the numeric `code` the specification gives this operation.'),
);
export type TErrorEnvelopeWithCode = z.infer<typeof ZErrorEnvelopeWithCode>;

/** Every operation can fail with any of these HTTP codes, each carrying the error envelope. */
export const errorResponses = {
  400: ZErrorEnvelope,
  401: ZErrorEnvelope,
  403: ZErrorEnvelope,
  404: ZErrorEnvelope,
  409: ZErrorEnvelope,
  429: ZErrorEnvelope,
  500: ZErrorEnvelope,
  503: ZErrorEnvelope,
};

/** The same codes for an operation whose error envelope carries the numeric `code`. */
export const errorResponsesWithCode = {
  400: ZErrorEnvelopeWithCode,
  401: ZErrorEnvelopeWithCode,
  403: ZErrorEnvelopeWithCode,
  404: ZErrorEnvelopeWithCode,
  409: ZErrorEnvelopeWithCode,
  429: ZErrorEnvelopeWithCode,
  500: ZErrorEnvelopeWithCode,
  503: ZErrorEnvelopeWithCode,
};
