import { z } from 'zod';
import { ZId } from '../access/schemas.js';
import { operation, pagedResultOf } from '../common/envelope.js';
import { ZPageSize, ZPageToken } from '../common/paging.js';
import { documentNeedsOrganization } from './add-judgment.js';
import { ZDecision, ZJudgment } from './schemas.js';
import { DESIGNER_REQUEST, LAUNCH_AGENCY } from './examples.js';

export const getJudgments = operation({
  path: '/v2/memory/judgments/get',
  summary: 'Get Judgments',
  description:
    'The application\'s judgments, newest first (by decidedAt, then judgmentId), matching every filter given: an organization (with its documents\' judgments), one document of it, a reviewer, a decision. Paged by an opaque keyset pageToken (null on the last page); a forged token or one from another query is INVALID_ARGUMENT, and so is documentId without organizationId.',
  data: z
    .object({
      organizationId: ZId.optional(),
      documentId: ZId.optional().describe('Requires organizationId.'),
      reviewerId: ZId.optional(),
      decision: ZDecision.optional(),
      pageSize: ZPageSize,
      pageToken: ZPageToken,
    })
    .strict()
    .refine(...documentNeedsOrganization),
  result: pagedResultOf(ZJudgment),
  example: {
    data: { organizationId: 'org-acme', decision: 'reject', pageSize: 2 },
    result: {
      status: 'success',
      message: 'Judgments retrieved successfully.',
      data: [DESIGNER_REQUEST, LAUNCH_AGENCY],
      pageToken: 'WzE3NzAxMTY3MDAwMDAsImpkZy1sYXVuY2gtYWdlbmN5Il0.ercL1I5hZ2MwUdAp6JmROo9ZXScVlSpvmsGDnOUdK0M',
    },
  },
});
