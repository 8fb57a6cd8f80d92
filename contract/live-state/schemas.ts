import { z } from 'zod';
import { ZId } from '../access/schemas.js';
import { ZTimestampMs, ZUserRef } from '../common/content.js';
import { named } from '../common/named.js';
import { boundedObject } from '../comments/inputs.js';

/**
 * Shapes of live state (Broadcast Event, Get Live State Data) and presence.
 * Both are delivered to every client connected to the document, so both are
 * bounded well below the body limit.
 */

/** Every broadcast goes to every connected client (and through Redis to every process): a live value, not a file. */
export const MAX_LIVE_STATE_BYTES = 262_144;
/** Deeper values are refused before anything recurses over them (JSON on the way out, the stored text read back). */
export const MAX_LIVE_STATE_DEPTH = 32;
/** Awareness states are re-sent to every client every 15 seconds: small on purpose. */
export const MAX_PRESENCE_STATE_BYTES = 16_384;
export const MAX_PRESENCE_DELETE_IDS = 100;

/** What JSON can carry: numbers must be finite (1e400 parses as Infinity, which JSON writes back as null). */
function checkJsonValue(value: unknown, ctx: z.RefinementCtx): void {
  if (value === undefined) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'is required (any JSON value; null is one)' });
    return;
  }
  const walk = (node: unknown, path: (string | number)[], depth: number): boolean => {
    if (typeof node === 'number' && !Number.isFinite(node)) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path, message: 'must be a finite number' });
      return false;
    }
    if (typeof node !== 'object' || node === null) return true;
    if (depth > MAX_LIVE_STATE_DEPTH) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path, message: `must be at most ${MAX_LIVE_STATE_DEPTH} levels deep` });
      return false;
    }
    for (const key of Object.keys(node)) {
      if (key === '__proto__') {
        ctx.addIssue({ code: z.ZodIssueCode.custom, path, message: 'must not have a key "__proto__" (it is the prototype to JavaScript clients)' });
        return false;
      }
      if (!walk((node as Record<string, unknown>)[key], [...path, Array.isArray(node) ? Number(key) : key], depth + 1)) return false;
    }
    return true;
  };
  if (!walk(value, [], 1)) return;
  const size = new TextEncoder().encode(JSON.stringify(value)).length;
  if (size > MAX_LIVE_STATE_BYTES) ctx.addIssue({ code: z.ZodIssueCode.custom, message: `must be at most ${MAX_LIVE_STATE_BYTES} bytes as JSON (got ${size})` });
}

export const ZLiveStateValue = z
  .unknown()
  .superRefine(checkJsonValue)
  .describe(
    `Any JSON value: object, array, string, number, boolean or null (at most ${MAX_LIVE_STATE_BYTES} bytes as JSON, ${MAX_LIVE_STATE_DEPTH} levels deep).`,
  );

export const ZLiveStateDataId = ZId.describe('Names one live value of the document; the latest value under it is kept.');

export const ZLiveStateEntry = named(
  'LiveStateEntry',
  z.object({
    liveStateDataId: z.string(),
    // Present even when the value is null: `undefined` is the one value it cannot have.
    data: z
      .unknown()
      .refine((value) => value !== undefined, { message: 'is required' })
      .describe('The latest value (any JSON value).'),
    lastUpdated: ZTimestampMs.describe('When it was broadcast. Strictly increases per entry, so a client that receives two values can keep the newer.'),
  }),
);
export type TLiveStateEntry = z.infer<typeof ZLiveStateEntry>;

export const ZPresenceStateInput = boundedObject(z.record(z.unknown()), MAX_PRESENCE_STATE_BYTES).describe(
  `The awareness fields of the entry, e.g. \`{"status": "away"}\` (a JSON object of at most ${MAX_PRESENCE_STATE_BYTES} bytes, 8 levels, no key \`__proto__\`). Clients see \`{user, ...state, source: "api"}\`.`,
);

export const PRESENCE_SOURCES = ['api', 'connection'] as const;

export const ZPresenceEntry = named(
  'PresenceEntry',
  z.object({
    userId: z.string(),
    user: ZUserRef,
    state: z.record(z.unknown()).describe('`api`: the state set through the API. `connection`: the awareness state of the user\'s client (`{}` when it has none).'),
    source: z
      .enum(PRESENCE_SOURCES)
      .describe('`api`: set with Add / Update Presence. `connection`: the user is connected over WebSocket to an editor of the document.'),
    lastUpdated: ZTimestampMs.describe('`api`: the last Add or Update. `connection`: when the connection was set up or its awareness state last changed.'),
  }),
);
export type TPresenceEntry = z.infer<typeof ZPresenceEntry>;
