import { z } from 'zod';
import { ZId } from '../access/schemas.js';
import { operation, resultOf } from '../common/envelope.js';
import { named } from '../common/named.js';
import { MAX_RECORDING_IDS } from './get-recordings.js';

export const deleteRecordings = operation({
  path: '/v2/recordings/delete',
  summary: 'Delete Recordings',
  description:
    `Deletes recordings by annotation ID (at most ${MAX_RECORDING_IDS}). Result keyed by annotation ID; an ID the organization has no recording for gets \`success: false\`.`,
  data: z
    .object({
      organizationId: ZId,
      annotationIds: z.array(ZId).min(1).max(MAX_RECORDING_IDS),
    })
    .strict(),
  result: resultOf(z.record(named('RecordingDeletionOutcome', z.object({ success: z.boolean(), message: z.string() })))),
  example: {
    data: { organizationId: 'org-acme', annotationIds: ['rec_01KKHF5DYZ8Z7QFV04QCPF13YX'] },
    result: { status: 'success', message: 'Recordings deleted.', data: { rec_01KKHF5DYZ8Z7QFV04QCPF13YX: { success: true, message: 'Recording deleted.' } } },
  },
});
