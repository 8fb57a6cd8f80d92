import { z } from 'zod';
import { ZId } from '../access/schemas.js';
import { ZUserRef } from '../common/content.js';
import { operation, resultOf } from '../common/envelope.js';
import { named } from '../common/named.js';
import { MAX_PRESENCE_DELETE_IDS, ZPresenceEntry, ZPresenceStateInput } from './schemas.js';

const SEEN_BY_CLIENTS =
  'Clients connected over WebSocket to any editor of the document, on every server process, see each entry as an awareness state `{user, ...state, source: "api"}` (under a client ID of its own, which changes with every Add or Update).';

export const ZAddPresenceData = z
  .object({
    organizationId: ZId,
    documentId: ZId,
    user: ZUserRef.describe('Who is present.'),
    state: ZPresenceStateInput.optional(),
  })
  .strict();

export const addPresence = operation({
  path: '/v2/presence/add',
  summary: 'Add Presence',
  description: `Marks a user present on a document, with an optional state (default \`{}\`). ${SEEN_BY_CLIENTS} Result: the entry. ALREADY_EXISTS when the user already has an entry on the document; NOT_FOUND for an unknown organization or document.`,
  data: ZAddPresenceData,
  result: resultOf(ZPresenceEntry),
  example: {
    data: {
      organizationId: 'org-acme',
      documentId: 'doc-q3-plan',
      user: { userId: 'user-ada', name: 'Ada Lovelace', email: 'ada@example.com' },
      state: { status: 'reviewing', section: 'budget' },
    },
    result: {
      status: 'success',
      message: 'Presence added.',
      data: {
        userId: 'user-ada',
        user: { userId: 'user-ada', name: 'Ada Lovelace', email: 'ada@example.com' },
        state: { status: 'reviewing', section: 'budget' },
        source: 'api',
        lastUpdated: 1773415503870,
      },
    },
  },
});

export const ZUpdatePresenceData = z
  .object({
    organizationId: ZId,
    documentId: ZId,
    userId: ZId,
    state: ZPresenceStateInput.describe('Replaces the entry\'s state.'),
  })
  .strict();

export const updatePresence = operation({
  path: '/v2/presence/update',
  summary: 'Update Presence',
  description: `Replaces the state of a user's presence entry; connected clients see the new state. Result: the entry. NOT_FOUND when the user has no entry on the document, and for an unknown organization or document.`,
  data: ZUpdatePresenceData,
  result: resultOf(ZPresenceEntry),
  example: {
    data: { organizationId: 'org-acme', documentId: 'doc-q3-plan', userId: 'user-ada', state: { status: 'away' } },
    result: {
      status: 'success',
      message: 'Presence updated.',
      data: {
        userId: 'user-ada',
        user: { userId: 'user-ada', name: 'Ada Lovelace', email: 'ada@example.com' },
        state: { status: 'away' },
        source: 'api',
        lastUpdated: 1773415907219,
      },
    },
  },
});

export const deletePresence = operation({
  path: '/v2/presence/delete',
  summary: 'Delete Presence',
  description: `Removes users' presence entries from a document (at most ${MAX_PRESENCE_DELETE_IDS}); connected clients see them leave. Result keyed by user ID; a user without an entry gets \`success: false\`. Users connected over WebSocket stay (their presence is their connection). NOT_FOUND for an unknown organization or document.`,
  data: z
    .object({
      organizationId: ZId,
      documentId: ZId,
      userIds: z.array(ZId).min(1).max(MAX_PRESENCE_DELETE_IDS),
    })
    .strict(),
  result: resultOf(z.record(named('PresenceDeletionOutcome', z.object({ success: z.boolean(), message: z.string() })))),
  example: {
    data: { organizationId: 'org-acme', documentId: 'doc-q3-plan', userIds: ['user-ada', 'user-grace'] },
    result: {
      status: 'success',
      message: 'Presence deleted.',
      data: { 'user-ada': { success: true, message: 'Presence deleted.' }, 'user-grace': { success: true, message: 'Presence deleted.' } },
    },
  },
});

export const getPresence = operation({
  path: '/v2/presence/get',
  summary: 'Get Presence',
  description:
    'Who is present on a document, one entry per user, ordered by userId: the entries set through the API (`source: "api"`) and the users connected over WebSocket to any editor of the document on any server process (`source: "connection"`, with the awareness state of their client). A user with both appears once, as the API entry. Connections on other processes are seen through Redis (REDIS_URL) with an awareness state up to about a second old; a crashed process\'s users stay listed for up to 45 seconds (docs/realtime.md in the repository). NOT_FOUND for an unknown organization or document.',
  data: z.object({ organizationId: ZId, documentId: ZId }).strict(),
  result: resultOf(z.array(ZPresenceEntry)),
  example: {
    data: { organizationId: 'org-acme', documentId: 'doc-q3-plan' },
    result: {
      status: 'success',
      message: 'Presence retrieved.',
      data: [
        {
          userId: 'user-ada',
          user: { userId: 'user-ada', name: 'Ada Lovelace', email: 'ada@example.com' },
          state: { status: 'away' },
          source: 'api',
          lastUpdated: 1773415907219,
        },
        {
          userId: 'user-grace',
          user: { userId: 'user-grace', name: 'Grace Hopper', email: 'grace@example.com' },
          state: { status: 'editing', section: 'hiring' },
          source: 'api',
          lastUpdated: 1773415572004,
        },
      ],
    },
  },
});
