import { z } from 'zod';
import { ZId } from '../access/schemas.js';
import { operation, pagedResultOf } from '../common/envelope.js';
import { ZPageSize, ZPageToken } from '../common/paging.js';
import { ZRecording } from './schemas.js';
import { WALKTHROUGH } from './examples.js';

export const MAX_RECORDING_IDS = 30;

export const getRecordings = operation({
  path: '/v2/recordings/get',
  summary: 'Get Recordings',
  description:
    `The recordings of an organization, oldest first: all, those of one document and/or the listed ones (annotation IDs, at most ${MAX_RECORDING_IDS}; unknown IDs are left out). Paged by an opaque keyset pageToken (null on the last page) that neither skips nor repeats a recording while others are added; a forged token or one from another query is INVALID_ARGUMENT. NOT_FOUND for an unknown organization.`,
  data: z
    .object({
      organizationId: ZId,
      documentId: ZId.optional(),
      recordingIds: z.array(ZId).min(1).max(MAX_RECORDING_IDS).optional(),
      pageSize: ZPageSize,
      pageToken: ZPageToken,
    })
    .strict(),
  result: pagedResultOf(ZRecording),
  example: {
    data: { organizationId: 'org-acme', documentId: 'doc-q3-plan' },
    result: {
      status: 'success',
      message: 'Recordings retrieved successfully.',
      data: [WALKTHROUGH],
      pageToken: null,
    },
  },
});
