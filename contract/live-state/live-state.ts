import { z } from 'zod';
import { ZId } from '../access/schemas.js';
import { operation, resultOf } from '../common/envelope.js';
import { ZLiveStateDataId, ZLiveStateEntry, ZLiveStateValue } from './schemas.js';

export const ZBroadcastEventData = z
  .object({
    organizationId: ZId,
    documentId: ZId,
    liveStateDataId: ZLiveStateDataId,
    data: ZLiveStateValue,
    merge: z
      .boolean()
      .optional()
      .describe('Default false (replace). True: when both the stored value and `data` are objects, `data`\'s top-level keys are set on the stored object (a shallow merge); otherwise `data` replaces it.'),
  })
  .strict();

export const broadcastEvent = operation({
  path: '/v2/livestate/broadcast',
  summary: 'Broadcast Event',
  description:
    'Stores `data` as the latest value of `liveStateDataId` on the document, then delivers it to every client connected over WebSocket to any editor of the document (on every server process) as a Hocuspocus stateless message, the JSON text `{"type":"livestate","liveStateDataId","data","lastUpdated"}`. A client that connects later receives each stored value of its document the same way when its connection is set up. Result: the stored entry. NOT_FOUND for an unknown organization or document.',
  data: ZBroadcastEventData,
  result: resultOf(ZLiveStateEntry),
  example: {
    data: {
      organizationId: 'org-acme',
      documentId: 'doc-q3-plan',
      liveStateDataId: 'review-timer',
      data: { running: true, secondsLeft: 300, startedBy: 'user-ada' },
    },
    result: {
      status: 'success',
      message: 'Event broadcast.',
      data: { liveStateDataId: 'review-timer', data: { running: true, secondsLeft: 300, startedBy: 'user-ada' }, lastUpdated: 1773415211032 },
    },
  },
});

export const getLiveStateData = operation({
  path: '/v2/livestate/get',
  summary: 'Get Live State Data',
  description:
    'The stored live state of a document: every entry, or the one named by `liveStateDataId` (an empty list when it has none), ordered by liveStateDataId. NOT_FOUND for an unknown organization or document.',
  data: z.object({ organizationId: ZId, documentId: ZId, liveStateDataId: ZLiveStateDataId.optional() }).strict(),
  result: resultOf(z.array(ZLiveStateEntry)),
  example: {
    data: { organizationId: 'org-acme', documentId: 'doc-q3-plan' },
    result: {
      status: 'success',
      message: 'Live state data retrieved.',
      data: [
        { liveStateDataId: 'focus-section', data: 'budget', lastUpdated: 1773415264517 },
        { liveStateDataId: 'review-timer', data: { running: true, secondsLeft: 300, startedBy: 'user-ada' }, lastUpdated: 1773415211032 },
      ],
    },
  },
});
