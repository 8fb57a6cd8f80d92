import { z } from 'zod';
import { ZId } from '../access/schemas.js';
import { ZUserRef } from '../common/content.js';

/**
 * The request pieces of the comment operations. Every string and list is
 * bounded, so a request that passes validation is storable as sent on SQLite
 * and PostgreSQL alike.
 */

export const MAX_THREADS_PER_ADD = 100;
export const MAX_COMMENTS_PER_WRITE = 100;
/** A thread's events carry the whole thread: the cap keeps one event (and one Get) bounded. */
export const MAX_COMMENTS_PER_THREAD = 1000;
export const MAX_IDS_PER_REQUEST = 100;
export const MAX_FILTER_VALUES = 30;
export const MAX_MENTIONS = 100;
export const MAX_COMMENT_TEXT = 50_000;
export const MAX_COMMENT_HTML = 200_000;
export const MAX_CONTEXT_BYTES = 16_384;
export const MAX_LOCATION_BYTES = 4_096;
export const MAX_FREE_OBJECT_DEPTH = 8;

/**
 * A free JSON object, bounded: at most `maxBytes` once serialized and
 * `MAX_FREE_OBJECT_DEPTH` levels deep, and no key `__proto__` at any depth.
 * That key is checked on the raw input: the object parse below would drop it
 * silently, and a JavaScript client reading it back would read the prototype.
 */
export function boundedObject<T extends z.ZodTypeAny>(schema: T, maxBytes: number) {
  return z.preprocess((value, ctx) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    const size = new TextEncoder().encode(JSON.stringify(value)).length;
    if (size > maxBytes) ctx.addIssue({ code: z.ZodIssueCode.custom, message: `must be at most ${maxBytes} bytes as JSON (got ${size})` });
    const walk = (node: unknown, path: (string | number)[], depth: number): void => {
      if (typeof node !== 'object' || node === null) return;
      if (depth > MAX_FREE_OBJECT_DEPTH) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, path, message: `must be at most ${MAX_FREE_OBJECT_DEPTH} levels deep` });
        return;
      }
      for (const key of Object.keys(node)) {
        if (key === '__proto__') {
          ctx.addIssue({ code: z.ZodIssueCode.custom, path, message: 'must not have a key "__proto__" (it is the prototype to JavaScript clients)' });
          continue;
        }
        walk((node as Record<string, unknown>)[key], [...path, Array.isArray(node) ? Number(key) : key], depth + 1);
      }
    };
    walk(value, [], 1);
    return value;
  }, schema);
}

export const ZStatusInput = z
  .string()
  .min(1)
  .max(64)
  .describe('`open` (the default), `in_progress`, `resolved`, or a custom value of at most 64 characters.');

export const ZPriorityInput = z.string().min(1).max(64).describe('e.g. `low`, `medium`, `high`, or a custom value of at most 64 characters.');

export const ZCustomListInput = z.array(z.string().min(1).max(256)).max(50).describe('At most 50 values of at most 256 characters.');

export const ZContextInput = boundedObject(z.record(z.unknown()), MAX_CONTEXT_BYTES).describe(
  `Application fields of the thread (at most ${MAX_CONTEXT_BYTES} bytes as JSON, ${MAX_FREE_OBJECT_DEPTH} levels, no key \`__proto__\`). Its top-level strings, numbers and booleans are the feature-level access context: a read made for a user shows the thread only when the user's access fields on the document contain every \`<key>:<value>\` of them.`,
);

export const ZLocationInput = boundedObject(
  z.object({ locationId: ZId.describe('Where in the document the thread sits (a page, a frame, a timestamp).') }).catchall(z.unknown()),
  MAX_LOCATION_BYTES,
).describe(`Where the thread sits: \`locationId\` plus any fields of the application (at most ${MAX_LOCATION_BYTES} bytes as JSON).`);

export const ZMentions = z.array(ZUserRef).max(MAX_MENTIONS).describe(`Users mentioned in the comment (at most ${MAX_MENTIONS}).`);

const commentFields = {
  commentId: ZId.optional().describe('Unique within the thread; generated (`cmt_…`) when omitted. An ID the thread already has is ALREADY_EXISTS.'),
  commentText: z.string().max(MAX_COMMENT_TEXT).describe(`The comment as plain text (at most ${MAX_COMMENT_TEXT} characters).`),
  commentHtml: z.string().max(MAX_COMMENT_HTML).optional().describe(`The comment as HTML (at most ${MAX_COMMENT_HTML} characters), stored as sent.`),
  taggedUserContacts: ZMentions.optional(),
};

/** A comment of a new thread: its author defaults to the thread's `from`. */
export const ZNewThreadComment = z
  .object({ ...commentFields, from: ZUserRef.optional().describe("The author; default: the thread's `from`.") })
  .strict();

/** A comment added to an existing thread. */
export const ZNewComment = z.object({ ...commentFields, from: ZUserRef.describe('The author (the acting user).') }).strict();

export const ZActionUser = ZUserRef.describe(
  'Who makes the change (the acting user of its events). A reference with only `userId` gets `name` and `email` from the user record when there is one.',
);

/** Duplicate IDs in one list are an error, not a silent merge. */
export function uniqueIds<T>(pick: (item: T) => string | undefined, what: string) {
  return (items: T[], ctx: z.RefinementCtx) => {
    const seen = new Set<string>();
    items.forEach((item, index) => {
      const id = pick(item);
      if (id === undefined) return;
      if (seen.has(id)) ctx.addIssue({ code: z.ZodIssueCode.custom, path: [index], message: `${what} ${id} is given twice` });
      seen.add(id);
    });
  };
}
