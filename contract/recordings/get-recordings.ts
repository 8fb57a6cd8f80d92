import { z } from 'zod';
import { ZId } from '../access/schemas.js';
import { operation, pagedResultOf } from '../common/envelope.js';
import { ZPageSize, ZPageToken } from '../common/paging.js';
import { ZRecording } from './schemas.js';

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
      data: [
        {
          type: 'recorder',
          annotationId: 'rec_01KKHF5DYZ8Z7QFV04QCPF13YX',
          recordingType: 'screen',
          mode: 'floating',
          metadata: { apiKey: 'ak_EXAMPLE_api_key_0000000000000000', documentId: 'doc-q3-plan', organizationId: 'org-acme' },
          recordedTime: { duration: 95400, display: '00:01:35' },
          displayName: 'Walkthrough of the Q3 budget',
          from: { userId: 'user-ada', name: 'Ada Lovelace', email: 'ada@example.com' },
          attachments: [
            {
              attachmentId: 1,
              url: 'https://cdn.example.com/recordings/q3-budget-walkthrough.webm',
              mimeType: 'video/webm',
              name: 'q3-budget-walkthrough.webm',
              type: 'video',
              size: 8412730,
            },
          ],
          latestVersion: 1,
          createdAt: 1773334083551,
        },
      ],
      pageToken: null,
    },
  },
});
