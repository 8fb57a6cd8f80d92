import { z } from 'zod';
import { operation, resultOf } from '../common/envelope.js';
import { ZId } from '../access/schemas.js';
import { ZJobStatus } from '../common/job-status.js';
import { named } from '../common/named.js';

export const deleteAllUserData = operation({
  path: '/v2/users/data/delete',
  summary: 'Delete All User Data',
  description: [
    "Erases a user's personal data in the whole application (every organization), as a background job: their profile, memberships and grants, group memberships, the comments and reactions they wrote, their notifications and notification configs, their recordings, the judgments they made as reviewer, their presence entries and the events they caused.",
    "Threads of other users stay readable, with the user's authorship anonymized. Erasure is per person, so there is no organizationId.",
    'Returns the jobId to follow with Delete All User Data Status. Asking again is harmless: each request erases whatever the user has when its job runs.',
  ].join(' '),
  data: z.object({ userId: ZId }).strict(),
  result: resultOf(named('UserDataDeletion', z.object({ jobId: z.string() }))),
  example: {
    data: { userId: 'user-grace' },
    result: { status: 'success', message: 'User data deletion started.', data: { jobId: 'del_01KMCYR9M0AM5B6T7V4Q61Q0KH' } },
  },
});

export const getDeleteAllUserDataStatus = operation({
  path: '/v2/users/data/delete/status',
  summary: 'Delete All User Data Status',
  description: 'The state of a Delete All User Data job. NOT_FOUND for a jobId this application did not receive from Delete All User Data.',
  data: z.object({ jobId: ZId }).strict(),
  result: resultOf(
    named(
      'UserDataDeletionStatus',
      z.object({ jobId: z.string(), status: ZJobStatus, reason: z.string().optional().describe('Why it failed; only with `failed`.') }),
    ),
  ),
  example: {
    data: { jobId: 'del_01KMCYR9M0AM5B6T7V4Q61Q0KH' },
    result: {
      status: 'success',
      message: 'User data deletion status retrieved successfully.',
      data: { jobId: 'del_01KMCYR9M0AM5B6T7V4Q61Q0KH', status: 'completed' },
    },
  },
});
