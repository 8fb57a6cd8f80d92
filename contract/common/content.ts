import { z } from 'zod';
import { named } from './named.js';
import { ZId } from '../access/schemas.js';

/**
 * Pieces shared by the content resources (comments, notifications, activity,
 * recordings). Content timestamps are Unix milliseconds: the specification
 * gives them as plain numbers, and several events can happen in one second.
 */
export const ZTimestampMs = z.number().int().nonnegative().describe('Unix time in milliseconds.');

/** A user as content shows them: who acted, who is mentioned, who is assigned. */
export const ZUserRef = named(
  'UserRef',
  z
    .object({
      userId: ZId,
      name: z.string().max(256).optional(),
      email: z.string().max(320).optional(),
    })
    .strict(),
);
export type TUserRef = z.infer<typeof ZUserRef>;

/** `metadata` of notifications, activity records and recordings. */
export const ZContentMetadata = named(
  'ContentMetadata',
  z.object({
    apiKey: z.string().describe('The API key of the owning application.'),
    documentId: z.string().optional(),
    organizationId: z.string(),
  }),
);
export type TContentMetadata = z.infer<typeof ZContentMetadata>;

/** Free JSON objects (thread context, template data): bounded in size by BODY_LIMIT_BYTES, keys refused when reserved. */
export const ZFreeObject = z.record(z.unknown());

export const ZSortOrder = z.enum(['asc', 'desc']).optional().describe('By timestamp; default `desc`.');
